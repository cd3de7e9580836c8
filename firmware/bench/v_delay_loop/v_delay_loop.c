/*
 * v_delay_loop (validation suite): V_DELAY_N iterations of a SUBS/BHI delay loop
 * (delay_loop.S), from flash (delay_loop_100) and from SRAM (sram_loop_n minus
 * sram_loop_1: V_DELAY_N whole iterations). Reference figures: bench.toml [[validation]].
 * Self-check: each loop counted down to 0.
 */
#include "lab/bench.h"

#define V_DELAY_ROUNDS 20
#define V_DELAY_N 100u

LAB_INTERVAL(delay_loop_100, 2, 3, "100 iterations of SUBS; BHI (the last BHI not taken)");

LAB_INTERVAL(sram_loop_n, 4, 5, "the loop from SRAM, V_DELAY_N + 1 iterations (with probes and call)");
LAB_INTERVAL(sram_loop_1, 6, 7, "the loop from SRAM, 1 iteration (its BHI not taken; with probes and call)");

uint32_t lab_v_delay_loop(uint32_t n);
uint32_t lab_v_delay_sram_a(uint32_t n);
uint32_t lab_v_delay_sram_b(uint32_t n);

void lab_bench_run(void)
{
    for (int r = 0; r < V_DELAY_ROUNDS; r++) {
        LAB_CHECK(lab_v_delay_loop(V_DELAY_N) == 0u);
        LAB_CHECK(lab_v_delay_sram_a(V_DELAY_N + 1u) == 0u);
        LAB_CHECK(lab_v_delay_sram_b(1u) == 0u);
    }
}
