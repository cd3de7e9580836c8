/* Two counted loops whose first instruction sits at a halfword offset, for the validation
 * suite (docs/validation.md, case source: the published DWT measurements of
 * compendium.i-0.nl "Branch timing"). Written here from the instruction sequence the
 * source describes; each function is bracketed by its own probe pair.
 *
 * uint32_t lab_v_loop_wide(uint32_t base, uint32_t n), n >= 1: base ** n, the loop's
 *   first instruction a 32-bit MUL.W at a halfword offset.
 * uint32_t lab_v_loop_narrow(uint32_t base, uint32_t n), n >= 1: 1 + base * n, the loop's
 *   first instruction a 16-bit ADD at a halfword offset.
 * Between the probes: MOV (16-bit), MOV.W (32-bit), then n x 4 instructions; the last
 * BNE falls through. Guarantee: the function entry is 4-byte aligned and the probe is
 * 12 bytes, so the loop starts at entry + 18 (a halfword offset). */
#include "lab_probe_impl.h"

    .syntax unified
    .thumb
    .text

    .global lab_v_loop_wide
    .type lab_v_loop_wide, %function
    .balign 4
    .thumb_func
lab_v_loop_wide:
    lab_probe 2
    mov r2, r0
    mov.w r0, #1
1:
    mul.w r0, r2, r0
    sub.w r1, r1, #1
    cmp r1, #0
    bne 1b
    lab_probe 3
    bx lr
    .size lab_v_loop_wide, . - lab_v_loop_wide

    .global lab_v_loop_narrow
    .type lab_v_loop_narrow, %function
    .balign 4
    .thumb_func
lab_v_loop_narrow:
    lab_probe 4
    mov r2, r0
    mov.w r0, #1
1:
    add r0, r2
    sub.w r1, r1, #1
    cmp r1, #0
    bne 1b
    lab_probe 5
    bx lr
    .size lab_v_loop_narrow, . - lab_v_loop_narrow
