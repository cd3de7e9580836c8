/*
 * v_fpu (validation suite): single-precision FPU instruction sequences on a Cortex-M4F
 * (fpu_seq.S), each after a NOP. Reference figures: bench.toml [[validation]]. Self-check:
 * the FPU computed a + b + a * b for a = 1.5, b = 2.0 (exactly 6.5 in binary floating
 * point).
 */
#include "lab/bench.h"

#define V_FPU_ROUNDS 50
#define V_FPU_A 0x3FC00000u    /* 1.5f */
#define V_FPU_B 0x40000000u    /* 2.0f */
#define V_FPU_SUM 0x40D00000u  /* 6.5f */

LAB_INTERVAL(nop, 2, 3, "NOP");
LAB_INTERVAL(nop_vmov_pair, 4, 5, "NOP; VMOV S0,R0; VMOV S1,R1");
LAB_INTERVAL(nop_vadd2_vmul2, 6, 7, "NOP; VADD.F32 x2; VMUL.F32 x2 (independent)");
LAB_INTERVAL(nop_vmla, 8, 9, "NOP; VMLA.F32");
LAB_INTERVAL(nop_vdiv_vsqrt, 10, 11, "NOP; VDIV.F32; VSQRT.F32");

uint32_t lab_v_fpu_seq(uint32_t a, uint32_t b);

void lab_bench_run(void)
{
    for (int r = 0; r < V_FPU_ROUNDS; r++) {
        LAB_CHECK(lab_v_fpu_seq(V_FPU_A, V_FPU_B) == V_FPU_SUM);
    }
}
