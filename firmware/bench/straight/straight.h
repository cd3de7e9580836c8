/* The shape of straight_block.S, shared with its C reference: ARMv6-M (Thumb-1 only, e.g.
 * Cortex-M0) has no add with a shifted register, so its block repeats a 5-instruction
 * round 20 times; every other core a 4-instruction round 25 times. 100 instructions either
 * way. */
#ifndef STRAIGHT_H
#define STRAIGHT_H

#if defined(__ARM_ARCH_ISA_THUMB) && __ARM_ARCH_ISA_THUMB == 1
#define LAB_STRAIGHT_THUMB1 1
#define LAB_STRAIGHT_ROUNDS_PER_BLOCK 20
#else
#define LAB_STRAIGHT_THUMB1 0
#define LAB_STRAIGHT_ROUNDS_PER_BLOCK 25
#endif

#endif /* STRAIGHT_H */
