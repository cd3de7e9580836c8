/* Floating-point instruction sequences for the validation suite (docs/validation.md), each
 * after one NOP and between its own probe pair. Needs an FPU (bench.toml needs = ["fpu"];
 * the startup enables it before main). Written here from the instructions the sources name.
 *
 * uint32_t lab_v_fpu_seq(uint32_t a, uint32_t b): runs, in order,
 *   probes 2-3:  NOP
 *   probes 4-5:  NOP; VMOV S0, R0; VMOV S1, R1            (two core-to-FP moves)
 *   probes 6-7:  NOP; VADD.F32 S2, S0, S1; VADD.F32 S3, S0, S1;
 *                     VMUL.F32 S4, S0, S1; VMUL.F32 S5, S0, S1
 *   probes 8-9:  NOP; VMLA.F32 S2, S0, S1
 *   probes 10-11: NOP; VDIV.F32 S6, S0, S1; VSQRT.F32 S7, S0
 * with S0 = a and S1 = b taken as the bits of floats, then returns the bits of
 * S2 = a + b + a * b (after the VMLA). Uses S0-S7 only (caller-saved under the AAPCS-VFP). */
#include "lab_probe_impl.h"

    .syntax unified
    .thumb
    .fpu fpv4-sp-d16
    .text

    .global lab_v_fpu_seq
    .type lab_v_fpu_seq, %function
    .balign 4
    .thumb_func
lab_v_fpu_seq:
    lab_probe 2
    nop
    lab_probe 3
    lab_probe 4
    nop
    vmov s0, r0
    vmov s1, r1
    lab_probe 5
    lab_probe 6
    nop
    vadd.f32 s2, s0, s1
    vadd.f32 s3, s0, s1
    vmul.f32 s4, s0, s1
    vmul.f32 s5, s0, s1
    lab_probe 7
    lab_probe 8
    nop
    vmla.f32 s2, s0, s1
    lab_probe 9
    lab_probe 10
    nop
    vdiv.f32 s6, s0, s1
    vsqrt.f32 s7, s0
    lab_probe 11
    vmov r0, s2
    bx lr
    .size lab_v_fpu_seq, . - lab_v_fpu_seq
