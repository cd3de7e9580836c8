/*
 * v_delay_loop (validation suite): V_DELAY_N iterations of a SUBS/BHI delay loop
 * (delay_loop.S). Reference figures: bench.toml [[validation]]. Self-check: the loop
 * counted down to 0.
 */
#include "lab/bench.h"

#define V_DELAY_ROUNDS 20
#define V_DELAY_N 100u

LAB_INTERVAL(delay_loop_100, 2, 3, "100 iterations of SUBS; BHI (the last BHI not taken)");

uint32_t lab_v_delay_loop(uint32_t n);

void lab_bench_run(void)
{
    for (int r = 0; r < V_DELAY_ROUNDS; r++) {
        LAB_CHECK(lab_v_delay_loop(V_DELAY_N) == 0u);
    }
}
