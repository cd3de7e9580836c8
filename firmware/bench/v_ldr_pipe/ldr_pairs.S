/* The M3 TRM's load/store pipelining examples (Cortex-M3 TRM r2p1, ARM DDI 0337I,
 * section 3.3.2), each after one NOP (so the probe's one-cycle STR does not delay the
 * first load) and between its own probe pair.
 *
 * void lab_v_ldr_pairs(uint32_t *p): loads from p[0], p[1], p[2] and stores into p[3..5];
 * p must point at 6 words of RAM. Guarantee: r0-r3 are clobbered, nothing else. */
#include "lab_probe_impl.h"

    .syntax unified
    .thumb
    .text

    .global lab_v_ldr_pairs
    .type lab_v_ldr_pairs, %function
    .thumb_func
lab_v_ldr_pairs:
    push {r4, lr}
    mov r4, r0
    /* LDR R0,[R1]; LDR R1,[R2]: "normally three cycles total" */
    mov r1, r4
    adds r2, r4, #4
    lab_probe 2
    nop
    ldr r0, [r1]
    ldr r1, [r2]
    lab_probe 3
    /* LDR R0,[R1,R2]; STR R0,[R3,#20]: "normally three cycles total" */
    mov r1, r4
    movs r2, #8
    mov r3, r4
    lab_probe 4
    nop
    ldr r0, [r1, r2]
    str r0, [r3, #20]
    lab_probe 5
    /* LDR R0,[R1,R2]; STR R1,[R3,R2]: "normally three cycles total" (r3 = p + 4: stores
     * into p[3]) */
    mov r1, r4
    movs r2, #8
    adds r3, r4, #4
    lab_probe 6
    nop
    ldr r0, [r1, r2]
    str r1, [r3, r2]
    lab_probe 7
    pop {r4, pc}
    .size lab_v_ldr_pairs, . - lab_v_ldr_pairs
