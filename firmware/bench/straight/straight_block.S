/* uint32_t lab_straight_block(uint32_t seed)
 * probe 2; exactly 100 instructions (25 x 4); probe 3; return r1.
 * The probes are the same three-instruction sequence as LAB_PROBE. */
    .syntax unified
    .thumb
    .text
    .global lab_straight_block
    .type lab_straight_block, %function
    .thumb_func
lab_straight_block:
    movs r1, #0
    movw r12, #(2 * 4)
    movt r12, #0x2100
    str r12, [r12]
    .rept 25
    adds r0, r0, #1
    eors r1, r1, r0
    add r1, r1, r0, lsl #1
    subs r1, r1, #3
    .endr
    movw r12, #(3 * 4)
    movt r12, #0x2100
    str r12, [r12]
    mov r0, r1
    bx lr
    .size lab_straight_block, . - lab_straight_block
