/* uint32_t lab_sum_loop(uint32_t n), n >= 1: returns n + (n-1) + ... + 1.
 * probe 2 ... probe 3 bracket the setup and the loop. */
#include "lab_probe_impl.h"

    .syntax unified
    .thumb
    .text
    .global lab_sum_loop
    .global lab_sum_loop_setup
    .global lab_sum_loop_body
    .global lab_sum_loop_exit
    .type lab_sum_loop, %function
    .thumb_func
lab_sum_loop:
    lab_probe 2
lab_sum_loop_setup:
    movs r1, #0
lab_sum_loop_body:
    adds r1, r1, r0
    subs r0, r0, #1
    bne lab_sum_loop_body
lab_sum_loop_exit:
    lab_probe 3
    mov r0, r1
    bx lr
    .size lab_sum_loop, . - lab_sum_loop
