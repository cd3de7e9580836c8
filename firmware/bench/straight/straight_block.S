/* uint32_t lab_straight_block(uint32_t seed)
 * probe 2; exactly 100 instructions (25 x 4; ARMv6-M: 20 x 5); probe 3; return r1.
 * The probes are the target's three-instruction sequence (lab_probe_impl.h), as LAB_PROBE. */
#include "lab_probe_impl.h"
#include "straight.h"

    .syntax unified
    .thumb
    .text
    .global lab_straight_block
    .type lab_straight_block, %function
    .thumb_func
lab_straight_block:
    movs r1, #0
    lab_probe 2
#if LAB_STRAIGHT_THUMB1
    /* ARMv6-M (no shifted-register add): 20 x 5, the same arithmetic with r2 as scratch. */
    .rept 20
    adds r0, r0, #1
    eors r1, r1, r0
    lsls r2, r0, #1
    adds r1, r1, r2
    subs r1, r1, #3
    .endr
#else
    .rept 25
    adds r0, r0, #1
    eors r1, r1, r0
    add r1, r1, r0, lsl #1
    subs r1, r1, #3
    .endr
#endif
    lab_probe 3
    mov r0, r1
    bx lr
    .size lab_straight_block, . - lab_straight_block
