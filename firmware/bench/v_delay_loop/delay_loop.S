/* A two-instruction delay loop (SUBS, BHI), the shape whose cycles per iteration
 * blaatschaap.be "Wait a microsecond" reports for Cortex-M0, M0+ and M3 parts, written
 * here in ARMv6-M encodings so the same code runs on every core model.
 *
 * uint32_t lab_v_delay_loop(uint32_t n), n >= 1: runs the loop n times (the BHI is taken
 * n - 1 times) and returns 0. Probe 2 before the first SUBS, probe 3 after the last BHI.
 * Guarantee: the loop's two 16-bit instructions share one 32-bit word (.balign 4). */
#include "lab_probe_impl.h"

    .syntax unified
    .thumb
    .text

    .global lab_v_delay_loop
    .type lab_v_delay_loop, %function
    .balign 4
    .thumb_func
lab_v_delay_loop:
    lab_probe 2
1:
    subs r0, r0, #1
    bhi 1b
    lab_probe 3
    bx lr
    .size lab_v_delay_loop, . - lab_v_delay_loop
