//! Floating-point instructions (FPv4-SP / FPv5-SP, coprocessors 10 and 11): which
//! operation a coprocessor-space encoding is, for cost models. A leaf above `decoded`:
//! `thumb` classifies these as `Class::Coprocessor` (with their memory access); this
//! module tells a VDIV from a VADD and counts the registers of a VLDM/VPUSH.
//!
//! Encodings: ARMv7-M Architecture Reference Manual (ARM DDI 0403E) section A6
//! "Floating-point Instruction Encoding": A6.4 "Floating-point data-processing
//! instructions" (Table A6-1, A6-2), A6.5 "Extension register load or store
//! instructions", A6.6 "32-bit transfer between ARM core and extension registers", A6.7
//! "64-bit transfers between ARM core and extension registers".

use crate::decoded::DecodedInsn;
use crate::thumb::Class;

/// One floating-point operation, as the FPU cycle tables group them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FpOp {
    /// VADD, VSUB, VMUL, VNMUL, VABS, VNEG, VCMP(E), VCVT*, VMOV (immediate, register),
    /// and FPv5's VSEL, VMAXNM, VMINNM, VRINT*.
    Alu,
    /// VMLA, VMLS, VNMLA, VNMLS, VFMA, VFMS, VFNMA, VFNMS.
    Mac,
    Div,
    Sqrt,
    /// One 32-bit core/FP transfer: VMOV of one single or of half a double to or from a
    /// core register; VMRS, VMSR.
    Mov32,
    /// VMOV of two singles / one double to or from two core registers.
    Mov64,
    /// VLDR / VSTR; `double`: of a double register.
    LoadStore {
        double: bool,
    },
    /// VLDM, VSTM, VPUSH, VPOP: `words` single-precision words transferred.
    Multi {
        words: u8,
    },
}

fn coproc_fp(hw2: u16) -> bool {
    (hw2 >> 9) & 0x7 == 0b101 // coprocessor 10 or 11
}

/// The floating-point operation `d` is, or `None` when it is not an FP instruction
/// (other coprocessors, encodings this module does not know: VLLDM/VLSTM, undefined).
pub fn fp_op(d: &DecodedInsn) -> Option<FpOp> {
    if d.insn.class != Class::Coprocessor || d.insn.len != 4 {
        return None;
    }
    let (hw1, hw2) = (d.hw1(), d.hw2());
    if !coproc_fp(hw2) {
        return None;
    }
    let double = hw2 & 0x0100 != 0;
    match hw1 >> 8 {
        // 1110 110x: extension register load/store and 64-bit transfers (A6.5, A6.7).
        0xEC | 0xED => {
            let opcode = (hw1 >> 4) & 0x1F;
            if opcode & 0b11110 == 0b00100 {
                // VMOV two core registers <-> two singles / one double
                return Some(FpOp::Mov64);
            }
            if opcode & 0b10011 == 0b10000 || opcode & 0b10011 == 0b10001 {
                // VSTR / VLDR (1xx00 / 1xx01 with W = 0)
                return Some(FpOp::LoadStore { double });
            }
            let (p, u, w) = (hw1 & 0x0100 != 0, hw1 & 0x0080 != 0, hw1 & 0x0020 != 0);
            // VSTM/VLDM (P=0,U=1), VPUSH/VSTMDB and VPOP (P=1,U=0,W=1)
            if (!p && u) || (p && !u && w) {
                let imm8 = (hw2 & 0xFF) as u8;
                return Some(FpOp::Multi { words: imm8 });
            }
            None
        }
        // 1110 1110: data processing (bit 4 of hw2 clear) or 32-bit transfers (A6.4, A6.6).
        0xEE => {
            if hw2 & 0x0010 != 0 {
                // VMOV core <-> single (A=000), VMRS/VMSR (A=111), VMOV scalar: one word
                return Some(FpOp::Mov32);
            }
            let opc1 = ((hw1 >> 5) & 0b100) | ((hw1 >> 4) & 0b011); // bits 23, 21, 20
            let opc2 = hw1 & 0xF;
            let opc3 = (hw2 >> 6) & 0x3;
            Some(match opc1 {
                0b000 | 0b001 | 0b101 | 0b110 => FpOp::Mac,
                0b100 => FpOp::Div,
                0b111 if opc2 == 0b0001 && opc3 == 0b11 => FpOp::Sqrt,
                _ => FpOp::Alu,
            })
        }
        // 1111 1110: FPv5's VSEL, VMAXNM/VMINNM, VCVTA/N/P/M, VRINTA/N/P/M.
        0xFE => Some(FpOp::Alu),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(hw1: u16, hw2: u16) -> Option<FpOp> {
        fp_op(&DecodedInsn::new(0x1000, hw1, hw2))
    }

    // Encodings from arm-none-eabi-as -mcpu=cortex-m4 -mfpu=fpv4-sp-d16 listings.
    #[test]
    fn data_processing() {
        assert_eq!(op(0xee30, 0x0a20), Some(FpOp::Alu)); // vadd.f32 s0, s0, s1
        assert_eq!(op(0xee30, 0x0a60), Some(FpOp::Alu)); // vsub.f32 s0, s0, s1
        assert_eq!(op(0xee20, 0x0a20), Some(FpOp::Alu)); // vmul.f32 s0, s0, s1
        assert_eq!(op(0xee20, 0x0a60), Some(FpOp::Alu)); // vnmul.f32 s0, s0, s1
        assert_eq!(op(0xee00, 0x0a20), Some(FpOp::Mac)); // vmla.f32 s0, s0, s1
        assert_eq!(op(0xee00, 0x0a60), Some(FpOp::Mac)); // vmls.f32 s0, s0, s1
        assert_eq!(op(0xee10, 0x0a60), Some(FpOp::Mac)); // vnmla.f32 s0, s0, s1
        assert_eq!(op(0xeea0, 0x0a20), Some(FpOp::Mac)); // vfma.f32 s0, s0, s1
        assert_eq!(op(0xee90, 0x0a20), Some(FpOp::Mac)); // vfnms.f32 s0, s0, s1
        assert_eq!(op(0xee80, 0x0a20), Some(FpOp::Div)); // vdiv.f32 s0, s0, s1
        assert_eq!(op(0xeeb1, 0x0ac0), Some(FpOp::Sqrt)); // vsqrt.f32 s0, s0
        assert_eq!(op(0xeeb0, 0x0ac0), Some(FpOp::Alu)); // vabs.f32 s0, s0
        assert_eq!(op(0xeeb1, 0x0a40), Some(FpOp::Alu)); // vneg.f32 s0, s0
        assert_eq!(op(0xeeb4, 0x0a60), Some(FpOp::Alu)); // vcmp.f32 s0, s1
        assert_eq!(op(0xeeb8, 0x0ac0), Some(FpOp::Alu)); // vcvt.f32.s32 s0, s0
        assert_eq!(op(0xeebd, 0x0ac0), Some(FpOp::Alu)); // vcvt.s32.f32 s0, s0
        assert_eq!(op(0xeeb7, 0x0a00), Some(FpOp::Alu)); // vmov.f32 s0, #1.0
        assert_eq!(op(0xeeb0, 0x0a60), Some(FpOp::Alu)); // vmov.f32 s0, s1
    }

    #[test]
    fn transfers_and_memory() {
        assert_eq!(op(0xee00, 0x0a10), Some(FpOp::Mov32)); // vmov s0, r0
        assert_eq!(op(0xee10, 0x0a10), Some(FpOp::Mov32)); // vmov r0, s0
        assert_eq!(op(0xec41, 0x0a10), Some(FpOp::Mov64)); // vmov s0, s1, r0, r1
        assert_eq!(op(0xec51, 0x0b10), Some(FpOp::Mov64)); // vmov r0, r1, d0
        assert_eq!(op(0xee20, 0x0b10), Some(FpOp::Mov32)); // vmov.32 d0[1], r0
        assert_eq!(op(0xee30, 0x0b10), Some(FpOp::Mov32)); // vmov.32 r0, d0[1]
        assert_eq!(op(0xeef1, 0x0a10), Some(FpOp::Mov32)); // vmrs r0, fpscr
        assert_eq!(op(0xeee1, 0x0a10), Some(FpOp::Mov32)); // vmsr fpscr, r0
        assert_eq!(op(0xed90, 0x0a00), Some(FpOp::LoadStore { double: false })); // vldr s0, [r0]
        assert_eq!(op(0xed80, 0x0a00), Some(FpOp::LoadStore { double: false })); // vstr s0, [r0]
        assert_eq!(op(0xed90, 0x0b00), Some(FpOp::LoadStore { double: true })); // vldr d0, [r0]
        assert_eq!(op(0xed2d, 0x8a10), Some(FpOp::Multi { words: 16 })); // vpush {s16-s31}
        assert_eq!(op(0xecbd, 0x8a10), Some(FpOp::Multi { words: 16 })); // vpop {s16-s31}
        assert_eq!(op(0xec90, 0x0a04), Some(FpOp::Multi { words: 4 })); // vldmia r0, {s0-s3}
        assert_eq!(op(0xeca0, 0x8b10), Some(FpOp::Multi { words: 16 })); // vstmia r0!, {d8-d15}
        assert_eq!(op(0xed2d, 0x8b10), Some(FpOp::Multi { words: 16 })); // vpush {d8-d15}
        // not FP: another coprocessor, a 16-bit instruction
        assert_eq!(op(0xee00, 0x0e10), None); // mcr p14, ...
        assert_eq!(op(0xbf00, 0), None);
    }
}
