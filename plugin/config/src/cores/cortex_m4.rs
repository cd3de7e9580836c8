//! Cortex-M4 TRM r0p1 (ARM DDI 0439B) section 3.3.1 Table 3-1: as the M3, but MUL, MLA,
//! MLS, UMULL, SMULL, UMLAL, SMLAL and the DSP multiplies all take 1 cycle.
//!
//! FPU (Cortex-M4 with FPv4-SP, "M4F"): the same TRM, section 7.2.3 Table 7-1 "FPU
//! instruction set" (also printed as Table 3-27 in TI's SWCU192, CC13x2/CC26x2 TRM):
//! VABS, VADD, VSUB, VCMP, VCVT, VMUL, VNMUL, VNEG, VMOV (immediate, register), VMRS,
//! VMSR 1; VMLA, VMLS, VNMLA, VNMLS, VFMA, VFMS, VFNMA, VFNMS 3; VDIV, VSQRT 14; VLDR,
//! VSTR 2 (single) or 3 (double); VLDM, VSTM, VPUSH, VPOP 1 + N (N singles; 1 + 2N for
//! doubles); VMOV of two floats / one double to or from two core registers 2, of a
//! double's half to or from a core register 1. The table applies when the image executes
//! FP instructions; a soft-float image never does, so one table serves the M4 with and
//! without FPU.
//!
//! One row is not the TRM's: VMOV of one float to or from one core register is 1 cycle
//! here, where Table 7-1 groups it with the two-register moves at 2. It is the same
//! 32-bit transfer the table prices at 1 for a double's half (`VMOV Dd[x], Rt` names the
//! same register bits as `VMOV S(2d+x), Rt` on FPv4-SP); it was measured at 1 cycle each
//! on a Cortex-M4 with DWT CYCCNT (compendium.i-0.nl, "FPU registers": two single moves
//! take two cycles, as one two-register move does); and Arm's Cortex-M4 scheduling model
//! in LLVM (llvm/lib/Target/ARM/ARMScheduleM4.td) gives core/FP moves one cycle. GCC's
//! Cortex-M4 FPU description (gcc/config/arm/cortex-m4-fpu.md) follows the TRM's 2.
//!
//! FP context on exception entry (ARMv7-M ARM B1.5.7 "Stack alignment ... extended
//! frame"; ARM Application Note 298 "Cortex-M4(F) Lazy Stacking and Context Switching",
//! DAI0298A): with an active FP context the frame has 26 words instead of 8; the FP part
//! (S0-S15, FPSCR; the 18th word is reserved) is 17 words, priced one cycle per word
//! written or read, like the 8-word basic frame inside the 12-cycle entry (a derived rule,
//! not a published figure: see docs/timing-model.md).
//!
//! Code fetched over the System bus (`sysbus_fetch` 1) as on the M3 (M3 TRM r1p1 14.5.6):
//! an assumption; the M4 TRM names the same ICode/DCode/System buses and regions but does
//! not repeat the M3's sentence on registered fetches.

use super::cortex_m3;
use super::{CoreTable, FpuTable};

/// FPv4-SP (Cortex-M4 TRM r0p1 Table 7-1).
pub const FPV4_SP: FpuTable = FpuTable {
    alu: 1,
    mac: 3,
    div: 14,
    sqrt: 14,
    mov32: 1,
    mov64: 2,
    ldst_single: 2,
    ldst_double: 3,
    multi: 1,
    context_words: 17,
};

pub const TABLE: CoreTable = CoreTable {
    name: "cortex-m4",
    arch: "armv7e-m",
    description: "Cortex-M4 r0p1: as the M3 with single-cycle multiplies and the DSP extension; FPv4-SP instructions and FP context stacking priced when the image executes them",
    source: "Cortex-M4 TRM r0p1 (ARM DDI 0439B) 3.3.1 Table 3-1, 7.2.3 Table 7-1; ARM AN298 (DAI0298A) lazy stacking",
    mla: 1,
    mull: [1, 1, 1],
    mlal: [1, 1, 1],
    fpu: Some(&FPV4_SP),
    ..cortex_m3::TABLE
};
