/*
 * v_branch (validation suite): taken-branch refill into a loop whose first instruction is
 * at a halfword offset, 32-bit (MUL.W) and 16-bit (ADD), three iterations each
 * (branch_loops.S). Reference figures and their source: bench.toml [[validation]].
 * Self-check: each loop's result equals the same computation in C.
 */
#include "lab/bench.h"

#define V_BRANCH_ROUNDS 100
#define V_BRANCH_BASE 2u
#define V_BRANCH_N 3u

LAB_INTERVAL(loop_wide_unaligned, 2, 3, "MOV, MOV.W, 3 x (MUL.W at a halfword offset, SUB.W, CMP, BNE)");
LAB_INTERVAL(loop_narrow_unaligned, 4, 5, "MOV, MOV.W, 3 x (ADD at a halfword offset, SUB.W, CMP, BNE)");

uint32_t lab_v_loop_wide(uint32_t base, uint32_t n);
uint32_t lab_v_loop_narrow(uint32_t base, uint32_t n);

void lab_bench_run(void)
{
    uint32_t power = 1u;
    for (uint32_t i = 0; i < V_BRANCH_N; i++) {
        power *= V_BRANCH_BASE;
    }
    for (int r = 0; r < V_BRANCH_ROUNDS; r++) {
        LAB_CHECK(lab_v_loop_wide(V_BRANCH_BASE, V_BRANCH_N) == power);
        LAB_CHECK(lab_v_loop_narrow(V_BRANCH_BASE, V_BRANCH_N) == 1u + V_BRANCH_BASE * V_BRANCH_N);
    }
}
