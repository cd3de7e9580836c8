/*
 * straight: a hand-written assembly block of exactly STRAIGHT_K = 100 data-processing
 * instructions (straight_block.S) between probe 2 and probe 3, run 1000 times.
 * Measures exactly 100 instructions after calibration, at every optimisation level, since
 * the block and its probes are assembly.
 * Self-check: the block's arithmetic result equals the same computation done in C.
 */
#include "lab/bench.h"
#include "straight.h"

#define STRAIGHT_ROUNDS 1000

LAB_INTERVAL(block_100, 2, 3, "a straight-line assembly block of exactly 100 instructions");

uint32_t lab_straight_block(uint32_t seed);

static uint32_t straight_reference(uint32_t seed)
{
    uint32_t r0 = seed;
    uint32_t r1 = 0;
    for (int i = 0; i < LAB_STRAIGHT_ROUNDS_PER_BLOCK; i++) {
        r0 = r0 + 1u;
        r1 = r1 ^ r0;
        r1 = r1 + (r0 << 1);
        r1 = r1 - 3u;
    }
    return r1;
}

void lab_bench_run(void)
{
    for (uint32_t i = 0; i < STRAIGHT_ROUNDS; i++) {
        uint32_t got = lab_straight_block(i);
        LAB_CHECK(got == straight_reference(i));
    }
}
