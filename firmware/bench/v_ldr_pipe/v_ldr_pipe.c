/*
 * v_ldr_pipe (validation suite): the three load/store pipelining examples of the
 * Cortex-M3 TRM section 3.3.2, each after one NOP (ldr_pairs.S). Reference figures:
 * bench.toml [[validation]]. Self-check: the stores wrote what the loads read.
 */
#include "lab/bench.h"

#define V_LDR_ROUNDS 100

LAB_INTERVAL(nop_ldr_ldr, 2, 3, "NOP; LDR R0,[R1]; LDR R1,[R2]");
LAB_INTERVAL(nop_ldr_str_imm, 4, 5, "NOP; LDR R0,[R1,R2]; STR R0,[R3,#20]");
LAB_INTERVAL(nop_ldr_str_reg, 6, 7, "NOP; LDR R0,[R1,R2]; STR R1,[R3,R2]");

void lab_v_ldr_pairs(uint32_t *p);

static uint32_t words[6];

void lab_bench_run(void)
{
    for (int r = 0; r < V_LDR_ROUNDS; r++) {
        for (uint32_t i = 0; i < 6; i++) {
            words[i] = 0x100u + i + (uint32_t)r;
        }
        uint32_t third = words[2];
        lab_v_ldr_pairs(words);
        /* STR R0,[R3,#20] with R3 = p: p[5] = p[2]; STR R1,[R3,R2] with R3 = p + 4,
         * R2 = 8: p[3] = R1 = p */
        LAB_CHECK(words[5] == third);
        LAB_CHECK(words[3] == (uint32_t)(uintptr_t)words);
    }
}
