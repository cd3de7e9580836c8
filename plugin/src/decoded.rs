//! Decoded instructions: one instruction of a block with its encoding, and the operand
//! facts (registers written, address registers, literal address, ...) read from that
//! encoding. A leaf above the classifier (`thumb`): the block shape (`flow`), the cost
//! models and the instrumentation plan all read instructions through this module.

use crate::thumb::{Insn, decode};

/// One decoded instruction of a block, with its encoding (cost models decode operands
/// from it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodedInsn {
    pub pc: u64,
    pub insn: Insn,
    /// First halfword in bits 15:0, second (32-bit instructions only) in bits 31:16.
    pub raw: u32,
}

impl DecodedInsn {
    /// Decode the instruction with halfwords `hw1`, `hw2` (`hw2` ignored for 16-bit ones).
    pub fn new(pc: u64, hw1: u16, hw2: u16) -> DecodedInsn {
        let insn = decode(hw1, hw2);
        let hw2 = if insn.len == 4 { hw2 } else { 0 };
        DecodedInsn {
            pc,
            insn,
            raw: u32::from(hw1) | (u32::from(hw2) << 16),
        }
    }

    pub fn hw1(&self) -> u16 {
        self.raw as u16
    }

    pub fn hw2(&self) -> u16 {
        (self.raw >> 16) as u16
    }
}
/// Registers and facts about one instruction the neighbour rules and region charges need.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ops {
    /// Registers written: by a data-processing instruction (the address-generation
    /// stall) or a single load (no pipelining into an address that uses them).
    pub writes: u16,
    /// Registers a memory instruction forms its address from.
    pub addr: u16,
    /// Literal (PC-relative) load: its data address.
    pub literal: Option<u64>,
    /// Single store with an immediate (or no) offset: one cycle on ARMv7-M.
    pub store_imm: bool,
    /// Multiply that accumulates (MLA, MLS, UMLAL, SMLAL, ...).
    pub acc: bool,
    pub sys: Sys,
}

/// System instructions with their own counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Sys {
    #[default]
    Other,
    Msr,
    Mrs,
    Cps,
    Dmb,
    Dsb,
    Isb,
}

fn reg(n: u16) -> u16 {
    if n >= 15 { 0 } else { 1 << n }
}

fn literal_addr(pc: u64, offset: i64) -> u64 {
    (((pc + 4) & !3) as i64).wrapping_add(offset) as u64 & 0xFFFF_FFFF
}

/// Operand facts of an instruction (ARMv7-M ARM section A5 encodings).
pub fn ops(d: &DecodedInsn) -> Ops {
    if d.insn.len == 2 {
        ops16(d.hw1(), d.pc)
    } else {
        ops32(d.hw1(), d.hw2(), d.pc)
    }
}

fn ops16(h: u16, pc: u64) -> Ops {
    let r = |shift: u16| reg((h >> shift) & 7);
    let mut o = Ops::default();
    match h >> 11 {
        // LSL/LSR/ASR (imm), ADD/SUB (register, imm3): Rd = 2:0.
        0b00000..=0b00011 => o.writes = r(0),
        // MOV, ADD, SUB (imm8): Rdn = 10:8. CMP (0b00101) writes nothing.
        0b00100 | 0b00110 | 0b00111 => o.writes = r(8),
        0b01000 => {
            if h & 0xFC00 == 0x4000 {
                // Data processing (register): TST, CMP, CMN write nothing.
                if !matches!((h >> 6) & 0xF, 0b1000 | 0b1010 | 0b1011) {
                    o.writes = r(0);
                }
            } else if matches!((h >> 8) & 3, 0b00 | 0b10) {
                // ADD / MOV (register, any registers): Rd = D:Rd.
                o.writes = reg(((h >> 4) & 8) | (h & 7));
            }
        }
        // LDR (literal).
        0b01001 => {
            o.writes = r(8);
            o.literal = Some(literal_addr(pc, i64::from(h & 0xFF) * 4));
        }
        // Load/store (register offset): Rt 2:0, Rn 5:3, Rm 8:6.
        0b01010 | 0b01011 => {
            o.addr = r(3) | r(6);
            o.writes = r(0);
        }
        // Load/store word/byte/halfword (imm5): Rt 2:0, Rn 5:3.
        0b01100..=0b10001 => {
            o.addr = r(3);
            o.writes = r(0);
            o.store_imm = true;
        }
        // Load/store SP-relative: Rt 10:8.
        0b10010 | 0b10011 => {
            o.addr = reg(13);
            o.writes = r(8);
            o.store_imm = true;
        }
        // ADR, ADD Rd, SP, #imm.
        0b10100 | 0b10101 => o.writes = r(8),
        // Miscellaneous.
        0b10110 | 0b10111 => match (h >> 8) & 0xF {
            0b0000 => o.writes = reg(13),       // ADD/SUB SP, SP, #imm
            0b0010 | 0b1010 => o.writes = r(0), // extends, REV*
            0b0100 | 0b0101 | 0b1100 | 0b1101 => o.addr = reg(13), // PUSH, POP
            0b0110 => o.sys = Sys::Cps,
            _ => {}
        },
        // STM / LDM: Rn 10:8.
        0b11000 | 0b11001 => o.addr = r(8),
        _ => {}
    }
    o
}

fn ops32(hw1: u16, hw2: u16, pc: u64) -> Ops {
    let rn = hw1 & 0xF;
    let rt = (hw2 >> 12) & 0xF;
    let rd = (hw2 >> 8) & 0xF;
    let op1 = (hw1 >> 11) & 3;
    let op2 = (hw1 >> 4) & 0x7F;
    let mut o = Ops::default();
    match op1 {
        0b01 => {
            if op2 & 0b1100100 == 0 {
                o.addr = reg(rn); // LDM / STM
            } else if op2 & 0b1100100 == 0b0000100 {
                let excl_tb =
                    matches!(((hw1 >> 7) & 3, (hw1 >> 4) & 3), (0b00 | 0b01, 0b00 | 0b01));
                if excl_tb {
                    // LDREX*/STREX*/TBB/TBH: [Rn] (TBB/TBH: [Rn, Rm]).
                    o.addr = reg(rn);
                    if hw1 & 0xFFF0 == 0xE8D0 && (hw2 >> 4) & 0xE == 0 {
                        o.addr |= reg(hw2 & 0xF);
                    }
                    if hw1 & 0x0010 != 0 {
                        o.writes = reg(rt);
                    }
                } else if rn == 15 {
                    // LDRD (literal): Align(PC, 4) +/- imm8 * 4.
                    let off = i64::from(hw2 & 0xFF) * 4;
                    let off = if hw1 & 0x0080 != 0 { off } else { -off };
                    o.literal = Some(literal_addr(pc, off));
                    o.writes = reg(rt) | reg(rd);
                } else {
                    o.addr = reg(rn);
                    o.writes = reg(rt) | reg(rd);
                }
            } else if op2 & 0b1100000 == 0b0100000 {
                o.writes = reg(rd); // data processing (shifted register); Rd=15: compares
            }
        }
        0b10 => {
            if hw2 & 0x8000 == 0 {
                o.writes = reg(rd); // data processing (immediate)
            } else {
                match op2 {
                    0b0111000 | 0b0111001 => o.sys = Sys::Msr,
                    0b0111011 => {
                        o.sys = match (hw2 >> 4) & 0xF {
                            0b0100 => Sys::Dsb,
                            0b0101 => Sys::Dmb,
                            0b0110 => Sys::Isb,
                            _ => Sys::Other,
                        }
                    }
                    0b0111110 | 0b0111111 => {
                        o.sys = Sys::Mrs;
                        o.writes = reg(rd);
                    }
                    _ => {}
                }
            }
        }
        0b11 => {
            let single = op2 & 0b1100000 == 0;
            if single && rn == 15 && op2 & 1 == 1 {
                // Load (literal): Align(PC, 4) +/- imm12 (U = bit 7).
                let off = i64::from(hw2 & 0xFFF);
                let off = if hw1 & 0x0080 != 0 { off } else { -off };
                o.literal = Some(literal_addr(pc, off));
                o.writes = reg(rt);
            } else if single {
                o.addr = reg(rn);
                let imm12 = hw1 & 0x0080 != 0;
                if !imm12 && hw2 & 0x0FC0 == 0 {
                    o.addr |= reg(hw2 & 0xF); // register offset
                } else {
                    o.store_imm = true;
                }
                if op2 & 1 == 1 {
                    o.writes = reg(rt);
                }
                // imm8 forms with writeback (P/U/W in hw2 10:8, 1 in bit 11): Rn written.
                if !imm12 && hw2 & 0x0800 != 0 && hw2 & 0x0100 != 0 {
                    o.writes |= reg(rn);
                }
            } else if op2 & 0b1110000 == 0b0100000 {
                o.writes = reg(rd); // data processing (register)
            } else if op2 & 0b1111000 == 0b0110000 {
                o.writes = reg(rd); // multiply, multiply-accumulate: Ra = 15 for MUL
                o.acc = rt != 15;
            } else if op2 & 0b1111000 == 0b0111000 {
                o.writes = reg(rd) | if op2 & 0b001 == 0 { reg(rt) } else { 0 };
                o.acc = op2 & 0b100 != 0; // SMLAL, UMLAL, ... (not SMULL, UMULL)
            }
        }
        _ => {}
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decode "hw1 [hw2]" (objdump halfwords) at `pc`.
    fn one(pc: u64, s: &str) -> DecodedInsn {
        let h: Vec<u16> = s
            .split_whitespace()
            .map(|p| u16::from_str_radix(p, 16).unwrap())
            .collect();
        let d = DecodedInsn::new(pc, h[0], *h.get(1).unwrap_or(&0));
        assert_eq!(usize::from(d.insn.len), h.len() * 2, "{s}");
        d
    }

    // Encodings: arm-none-eabi-as -mthumb -mcpu=cortex-m4, read back with objdump.
    const ADDS: &str = "3001"; // adds r0, #1
    const MUL_W: &str = "fb01 f002"; // mul.w r0, r1, r2
    const MLA: &str = "fb01 3002"; // mla r0, r1, r2, r3
    const UMULL: &str = "fba1 0102"; // umull r0, r1, r1, r2
    const UMLAL: &str = "fbe2 0103"; // umlal r0, r1, r2, r3
    const LDR_LIT: &str = "4801"; // ldr r0, [pc, #4]
    const LDR_REG: &str = "5888"; // ldr r0, [r1, r2]
    const PUSH3: &str = "b570"; // push {r4, r5, r6, lr}
    const ADD_SP: &str = "b082"; // sub sp, #8
    const MSR: &str = "f380 8809"; // msr PSP, r0
    const MRS: &str = "f3ef 8009"; // mrs r0, PSP
    const CPSID: &str = "b672";
    const ISB: &str = "f3bf 8f6f";
    const TBB: &str = "e8d1 f002";

    #[test]
    fn halfwords() {
        let d = DecodedInsn::new(0x100, 0xf240, 0x0004); // movw r0, #4
        assert_eq!((d.hw1(), d.hw2(), d.insn.len), (0xf240, 0x0004, 4));
        let d = DecodedInsn::new(0x100, 0x3001, 0xffff);
        assert_eq!(d.hw2(), 0, "a 16-bit instruction keeps no second halfword");
    }

    #[test]
    fn operands() {
        let o = |s: &str| ops(&one(0x100, s));
        assert_eq!(o(ADDS).writes, 1);
        assert_eq!(o("2a00").writes, 0, "cmp r2, #0");
        assert_eq!(o("4291").writes, 0, "cmp r1, r2");
        assert_eq!(o("4008").writes, 1, "ands r0, r1");
        assert_eq!(o("46ec").writes, 1 << 12, "mov ip, sp");
        assert_eq!(o(LDR_REG).addr, 0b110);
        assert_eq!(o(LDR_LIT).literal, Some(0x104 + 4));
        assert_eq!(
            o("f8df 0008").literal,
            Some(0x104 + 8),
            "ldr.w r0, [pc, #8]"
        );
        assert_eq!(
            o("f85f 0008").literal,
            Some(0x104 - 8),
            "ldr.w r0, [pc, #-8]"
        );
        assert_eq!(o("f851 0b04").writes, 0b11, "ldr r0, [r1], #4: r0 and r1");
        assert_eq!(o("f851 0022").addr, 0b110, "ldr.w r0, [r1, r2, lsl #2]");
        assert!(!o("f841 0022").store_imm, "str.w r0, [r1, r2, lsl #2]");
        assert!(o("f841 0c04").store_imm, "str r0, [r1, #-4]");
        assert_eq!(o(PUSH3).addr, 1 << 13);
        assert_eq!(o(ADD_SP).writes, 1 << 13);
        assert_eq!(o(MSR).sys, Sys::Msr);
        assert_eq!(o(MRS).sys, Sys::Mrs);
        assert_eq!(o(MRS).writes, 1);
        assert_eq!(o(ISB).sys, Sys::Isb);
        assert_eq!(o(CPSID).sys, Sys::Cps);
        assert_eq!(o(TBB).addr, 0b110);
        assert!(o(MLA).acc && !o(MUL_W).acc && o(UMLAL).acc && !o(UMULL).acc);
        assert_eq!(o(UMULL).writes, 0b11);
    }
}
