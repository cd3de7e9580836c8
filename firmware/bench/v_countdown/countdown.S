/* The loop GCC -O0 makes of `while (counter--);` with a uint8_t counter, as disassembled
 * in carminenoviello.com "How to precisely measure microseconds with STM32" (2015):
 * LDRB.W, UXTB, SUBS, UXTB, STRB.W, CMP, BNE, with the same alignment (the loop's first
 * instruction, 32-bit, at a halfword offset; the STRB.W word aligned). The source's
 * listing is cut after the STRB.W; the CMP r3, #0 / BNE back are GCC's usual ending of
 * this loop (an inference, noted in docs/validation.md). The counter is at [r0] here, at
 * [sp, #3] in the source (neither base register is written in the loop).
 *
 * uint32_t lab_v_countdown_1(uint8_t *counter), lab_v_countdown_11(uint8_t *counter):
 * run the loop until *counter was 0 before its decrement (*counter + 1 times) and
 * return 0. Two copies, each between its own probe pair (2-3 and 4-5), so the
 * difference of the two metrics is the cost of the 10 extra iterations. */
#include "lab_probe_impl.h"

    .syntax unified
    .thumb
    .text

    .macro countdown name, first_probe
    .global \name
    .type \name, %function
    .balign 4
    .thumb_func
\name:
    lab_probe \first_probe
    nop                     /* puts the loop at a halfword offset */
1:
    ldrb.w r3, [r0]
    uxtb r3, r3
    subs r2, r3, #1
    uxtb r2, r2
    strb.w r2, [r0]
    cmp r3, #0
    bne 1b
    lab_probe (\first_probe + 1)
    movs r0, #0
    bx lr
    .size \name, . - \name
    .endm

    countdown lab_v_countdown_1, 2
    countdown lab_v_countdown_11, 4
