/*
 * loop: a counted loop in assembly (sum_loop.S) summing n .. 1, n = LOOP_N, between
 * probe 2 and probe 3, run 1000 times.
 * Measures: the setup instructions between label lab_sum_loop_setup and lab_sum_loop_body,
 * plus n times the instructions between lab_sum_loop_body and lab_sum_loop_exit. The
 * integration test derives the expected count from the ELF's disassembly.
 * Self-check: the sum equals n (n + 1) / 2.
 */
#include "lab/bench.h"

#define LOOP_ROUNDS 1000
#define LOOP_N 100u

LAB_INTERVAL(sum_loop_100, 2, 3, "an assembly loop summing 100..1: setup + 100 x body");

uint32_t lab_sum_loop(uint32_t n);

void lab_bench_run(void)
{
    for (int i = 0; i < LOOP_ROUNDS; i++) {
        uint32_t sum = lab_sum_loop(LOOP_N);
        LAB_CHECK(sum == LOOP_N * (LOOP_N + 1u) / 2u);
    }
}
