//! Thumb / Thumb-2 (ARMv7-M) instruction classifier.
//!
//! This is not a disassembler. It answers the questions the plugin asks at translation
//! time, from an instruction's bytes alone:
//!
//! * how long is it (2 or 4 bytes);
//! * does it access memory, and is it a store (stores get a memory callback; every
//!   memory access ends a counting segment, see `instrument.rs`);
//! * how does control leave it (falls through, direct branch and its target, indirect
//!   branch, exception, wait-for-interrupt);
//! * a coarse class (ALU, multiply, divide, load, store, ...) and register count for
//!   LDM/STM/PUSH/POP, which is what a cycle model needs.
//!
//! Encodings follow the ARMv7-M Architecture Reference Manual, section A5 ("The Thumb
//! instruction set encoding"). Where an encoding is UNDEFINED or not recognised the
//! answer is conservative: `Mem::Unknown` (treated as a possible load *and* store).

/// How an instruction touches memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mem {
    /// No data memory access.
    None,
    /// Reads data memory only (LDR*, LDM, POP, TBB/TBH, LDREX, PLD counts here too).
    Load,
    /// Writes data memory (STR*, STM, PUSH, STRD, STREX*).
    Store,
    /// Not recognised: may read or write.
    Unknown,
}

impl Mem {
    /// Might the instruction write memory? (Stores and unknown encodings.)
    pub fn may_store(self) -> bool {
        matches!(self, Mem::Store | Mem::Unknown)
    }
    /// Might the instruction access memory at all?
    pub fn may_access(self) -> bool {
        !matches!(self, Mem::None)
    }
}

/// How control leaves an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Continues with the next instruction (includes IT, hints, CPS, MSR, barriers).
    Seq,
    /// PC-relative branch: target = address + 4 + `offset`. `cond`: conditional
    /// (B<c>, CBZ, CBNZ); `link`: BL.
    Direct { offset: i32, cond: bool, link: bool },
    /// Branch to a register or loaded value: BX, BLX, POP {..pc}, LDR pc, LDM {..pc},
    /// MOV/ADD pc, TBB, TBH.
    Indirect { link: bool },
    /// Synchronous exception: SVC, BKPT (also semihosting), UDF, undefined encodings.
    Exception,
    /// WFI / WFE.
    Wait,
}

/// Coarse instruction class, for cost models.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Data processing, moves, compares, shifts, extends, bit fields, ADR, saturation.
    Alu,
    /// 32x32->32 multiply and multiply-accumulate (MUL, MLA, MLS, SMULxy, ...).
    Mul,
    /// 32x32->64 multiply (UMULL, SMULL, UMLAL, SMLAL).
    MulLong,
    /// SDIV, UDIV.
    Div,
    /// Single load (LDR, LDRB, LDRH, LDRSB, LDRSH, LDREX*, literal, PLD/PLI).
    Load,
    /// Single store (STR, STRB, STRH, STREX*).
    Store,
    /// LDRD (two words).
    LoadDual,
    /// STRD (two words).
    StoreDual,
    /// LDM / POP.
    LoadMulti,
    /// STM / PUSH.
    StoreMulti,
    /// TBB / TBH.
    TableBranch,
    /// B, B<c>, BL, BX, BLX, CBZ, CBNZ, MOV/ADD pc.
    Branch,
    /// IT.
    It,
    /// NOP, YIELD, SEV, DBG, WFI, WFE.
    Hint,
    /// MSR, MRS, CPS, DMB, DSB, ISB, CLREX.
    System,
    /// SVC, BKPT, UDF.
    Exception,
    /// Coprocessor space (no coprocessors on Cortex-M3: these fault).
    Coprocessor,
    /// Not a valid ARMv7-M encoding.
    Undefined,
}

/// The classification of one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Insn {
    /// Length in bytes: 2 or 4.
    pub len: u8,
    pub class: Class,
    pub mem: Mem,
    pub flow: Flow,
    /// Registers transferred by LDM/STM/PUSH/POP (2 for LDRD/STRD, 1 for other single
    /// transfers, 0 when there is no memory access).
    pub regs: u8,
}

impl Insn {
    const fn new(len: u8, class: Class, mem: Mem, flow: Flow, regs: u8) -> Insn {
        Insn {
            len,
            class,
            mem,
            flow,
            regs,
        }
    }
    const fn alu(len: u8) -> Insn {
        Insn::new(len, Class::Alu, Mem::None, Flow::Seq, 0)
    }
    const fn load(len: u8) -> Insn {
        Insn::new(len, Class::Load, Mem::Load, Flow::Seq, 1)
    }
    const fn store(len: u8) -> Insn {
        Insn::new(len, Class::Store, Mem::Store, Flow::Seq, 1)
    }
    const fn exception(len: u8) -> Insn {
        Insn::new(len, Class::Exception, Mem::None, Flow::Exception, 0)
    }
    const fn undefined(len: u8) -> Insn {
        Insn::new(len, Class::Undefined, Mem::Unknown, Flow::Exception, 0)
    }

    /// Target address of a direct branch at `pc`, if this is one.
    pub fn direct_target(&self, pc: u64) -> Option<u64> {
        match self.flow {
            Flow::Direct { offset, .. } => {
                Some((pc.wrapping_add(4).wrapping_add(offset as i64 as u64)) & 0xFFFF_FFFF)
            }
            _ => None,
        }
    }

    /// True when, executed at `pc`, this instruction can only move execution forward:
    /// it falls through, or is a direct branch to a higher address. A run of such
    /// instructions cannot loop, so the instruction-limit check (a hang detector) only
    /// needs to run in blocks that do NOT end with one of these.
    pub fn only_forward(&self, pc: u64) -> bool {
        match self.flow {
            Flow::Seq => true,
            Flow::Direct { .. } => self.direct_target(pc).is_some_and(|t| t > pc),
            Flow::Indirect { .. } | Flow::Exception | Flow::Wait => false,
        }
    }
}

/// Length in bytes of the Thumb instruction whose first halfword is `hw1`.
pub fn insn_len(hw1: u16) -> u8 {
    // 0b11101, 0b11110, 0b11111 in bits [15:11] start a 32-bit instruction.
    if (hw1 >> 11) >= 0b11101 { 4 } else { 2 }
}

/// Classify the instruction in `bytes` (little-endian halfwords, as QEMU hands them to
/// plugins). Returns `None` if `bytes` is too short for the instruction it starts.
pub fn decode_bytes(bytes: &[u8]) -> Option<Insn> {
    if bytes.len() < 2 {
        return None;
    }
    let hw1 = u16::from_le_bytes([bytes[0], bytes[1]]);
    if insn_len(hw1) == 2 {
        return Some(decode16(hw1));
    }
    if bytes.len() < 4 {
        return None;
    }
    let hw2 = u16::from_le_bytes([bytes[2], bytes[3]]);
    Some(decode32(hw1, hw2))
}

/// Classify an instruction given its halfwords (`hw2` is ignored for 16-bit ones).
pub fn decode(hw1: u16, hw2: u16) -> Insn {
    if insn_len(hw1) == 2 {
        decode16(hw1)
    } else {
        decode32(hw1, hw2)
    }
}

fn sign_extend(value: u32, bits: u32) -> i32 {
    let shift = 32 - bits;
    ((value << shift) as i32) >> shift
}

fn bit(v: u16, n: u32) -> u32 {
    ((v >> n) & 1) as u32
}

/// 16-bit Thumb instructions (ARMv7-M A5.2).
pub fn decode16(h: u16) -> Insn {
    let op = h >> 10; // bits [15:10]
    match op {
        // Shift (immediate), add, subtract, move, compare.
        0b000000..=0b001111 => Insn::alu(2),
        // Data processing (register); MUL is opcode 0b1101.
        0b010000 => {
            if (h >> 6) & 0xF == 0b1101 {
                Insn::new(2, Class::Mul, Mem::None, Flow::Seq, 0)
            } else {
                Insn::alu(2)
            }
        }
        // Special data instructions and branch and exchange.
        0b010001 => {
            let opc = (h >> 6) & 0xF;
            let rd = ((h >> 4) & 0x8) | (h & 0x7);
            match opc {
                // ADD (register), MOV (register): a write to PC is a branch.
                0b0000..=0b0011 | 0b1000..=0b1011 if rd == 15 => Insn::new(
                    2,
                    Class::Branch,
                    Mem::None,
                    Flow::Indirect { link: false },
                    0,
                ),
                0b1100 | 0b1101 => Insn::new(
                    2,
                    Class::Branch,
                    Mem::None,
                    Flow::Indirect { link: false },
                    0,
                ),
                0b1110 | 0b1111 => Insn::new(
                    2,
                    Class::Branch,
                    Mem::None,
                    Flow::Indirect { link: true },
                    0,
                ),
                _ => Insn::alu(2),
            }
        }
        // LDR (literal).
        0b010010 | 0b010011 => Insn::load(2),
        // Load/store single data item, register offset: opB = bits [11:9].
        0b010100..=0b010111 => {
            if (h >> 9) & 0x7 <= 0b010 {
                Insn::store(2) // STR, STRH, STRB
            } else {
                Insn::load(2) // LDRSB, LDR, LDRH, LDRB, LDRSH
            }
        }
        // STR/LDR, STRB/LDRB (imm5), STRH/LDRH (imm5), STR/LDR (SP + imm8): bit 11 = L.
        0b011000..=0b100111 => {
            if bit(h, 11) == 1 {
                Insn::load(2)
            } else {
                Insn::store(2)
            }
        }
        // ADR, ADD (SP plus immediate).
        0b101000..=0b101011 => Insn::alu(2),
        // Miscellaneous 16-bit instructions.
        0b101100..=0b101111 => decode16_misc(h),
        // STM / LDM (bit 11 = L).
        0b110000..=0b110011 => {
            let regs = (h & 0xFF).count_ones() as u8;
            if bit(h, 11) == 1 {
                Insn::new(2, Class::LoadMulti, Mem::Load, Flow::Seq, regs)
            } else {
                Insn::new(2, Class::StoreMulti, Mem::Store, Flow::Seq, regs)
            }
        }
        // Conditional branch, UDF, SVC.
        0b110100..=0b110111 => {
            let cond = (h >> 8) & 0xF;
            match cond {
                0xE => Insn::exception(2), // UDF (permanently undefined)
                0xF => Insn::exception(2), // SVC
                _ => Insn::new(
                    2,
                    Class::Branch,
                    Mem::None,
                    Flow::Direct {
                        offset: sign_extend(((h & 0xFF) as u32) << 1, 9),
                        cond: true,
                        link: false,
                    },
                    0,
                ),
            }
        }
        // B (T2), unconditional.
        0b111000 | 0b111001 => Insn::new(
            2,
            Class::Branch,
            Mem::None,
            Flow::Direct {
                offset: sign_extend(((h & 0x7FF) as u32) << 1, 12),
                cond: false,
                link: false,
            },
            0,
        ),
        // First halfword of a 32-bit instruction: not a 16-bit instruction.
        _ => Insn::undefined(2),
    }
}

fn decode16_misc(h: u16) -> Insn {
    // CBZ / CBNZ: 1011 o0i1 iiii innn.
    if h & 0xF500 == 0xB100 {
        let imm = (bit(h, 9) << 6) | ((((h >> 3) & 0x1F) as u32) << 1);
        return Insn::new(
            2,
            Class::Branch,
            Mem::None,
            Flow::Direct {
                offset: imm as i32,
                cond: true,
                link: false,
            },
            0,
        );
    }
    match (h >> 8) & 0xF {
        0b0000 => Insn::alu(2), // ADD/SUB SP, SP, #imm7
        0b0010 => Insn::alu(2), // SXTH, SXTB, UXTH, UXTB
        0b0100 | 0b0101 => {
            // PUSH {reglist[, lr]}
            let regs = (h & 0xFF).count_ones() as u8 + bit(h, 8) as u8;
            Insn::new(2, Class::StoreMulti, Mem::Store, Flow::Seq, regs)
        }
        0b0110 => {
            // CPS: 1011 0110 011m 00IF
            if h & 0xFFEC == 0xB660 {
                Insn::new(2, Class::System, Mem::None, Flow::Seq, 0)
            } else {
                Insn::undefined(2)
            }
        }
        0b1010 => {
            // REV, REV16, REVSH (op 10 is undefined).
            if (h >> 6) & 0x3 == 0b10 {
                Insn::undefined(2)
            } else {
                Insn::alu(2)
            }
        }
        0b1100 | 0b1101 => {
            // POP {reglist[, pc]}
            let pc = bit(h, 8) == 1;
            let regs = (h & 0xFF).count_ones() as u8 + pc as u8;
            if pc {
                Insn::new(
                    2,
                    Class::LoadMulti,
                    Mem::Load,
                    Flow::Indirect { link: false },
                    regs,
                )
            } else {
                Insn::new(2, Class::LoadMulti, Mem::Load, Flow::Seq, regs)
            }
        }
        0b1110 => Insn::exception(2), // BKPT
        0b1111 => {
            if h & 0xF != 0 {
                Insn::new(2, Class::It, Mem::None, Flow::Seq, 0)
            } else {
                match (h >> 4) & 0xF {
                    0b0010 | 0b0011 => Insn::new(2, Class::Hint, Mem::None, Flow::Wait, 0),
                    _ => Insn::new(2, Class::Hint, Mem::None, Flow::Seq, 0),
                }
            }
        }
        _ => Insn::undefined(2),
    }
}

/// 32-bit Thumb-2 instructions (ARMv7-M A5.3).
pub fn decode32(hw1: u16, hw2: u16) -> Insn {
    let op1 = (hw1 >> 11) & 0x3;
    let op2 = (hw1 >> 4) & 0x7F;
    match op1 {
        0b01 => {
            if op2 & 0b1100100 == 0b0000000 {
                decode32_ldm_stm(hw1, hw2)
            } else if op2 & 0b1100100 == 0b0000100 {
                decode32_dual_excl_tb(hw1, hw2)
            } else if op2 & 0b1100000 == 0b0100000 {
                // Data processing (shifted register).
                Insn::alu(4)
            } else {
                coprocessor(hw1)
            }
        }
        0b10 => {
            if hw2 & 0x8000 == 0 {
                // Data processing (modified immediate / plain binary immediate).
                Insn::alu(4)
            } else {
                decode32_branch_misc(hw1, hw2)
            }
        }
        0b11 => {
            if op2 & 0b1100001 == 0b0000000 {
                // Store single data item (000xxx0; 001xxx0 is undefined on v7-M but
                // classified conservatively as a store).
                Insn::store(4)
            } else if op2 & 0b1100000 == 0b0000000 {
                // 00xxxx1: loads (byte, halfword, word) and memory hints; xx111 undefined.
                if op2 & 0b0000111 == 0b0000111 {
                    Insn::undefined(4)
                } else if op2 & 0b0000111 == 0b0000101 && (hw2 >> 12) == 0xF {
                    // LDR pc, [...]
                    Insn::new(4, Class::Load, Mem::Load, Flow::Indirect { link: false }, 1)
                } else {
                    Insn::load(4)
                }
            } else if op2 & 0b1110000 == 0b0100000 {
                // Data processing (register), including CLZ, REV, RBIT, extends.
                Insn::alu(4)
            } else if op2 & 0b1111000 == 0b0110000 {
                Insn::new(4, Class::Mul, Mem::None, Flow::Seq, 0)
            } else if op2 & 0b1111000 == 0b0111000 {
                // Long multiply, long multiply accumulate, divide.
                match op2 & 0x7 {
                    0b001 | 0b011 => Insn::new(4, Class::Div, Mem::None, Flow::Seq, 0),
                    _ => Insn::new(4, Class::MulLong, Mem::None, Flow::Seq, 0),
                }
            } else {
                coprocessor(hw1)
            }
        }
        // op1 == 0 is a 16-bit instruction.
        _ => decode16(hw1),
    }
}

fn coprocessor(hw1: u16) -> Insn {
    // LDC/STC (and on FP cores VLDR/VSTR/VLDM/VSTM/VPUSH/VPOP) live in 111x 110x. On a
    // Cortex-M3 they all fault (no coprocessor); classify them as possible memory
    // accesses so the plugin stays correct on a core that has them.
    let mem = if (hw1 >> 9) & 0x7 == 0b110 {
        if bit(hw1, 4) == 1 {
            Mem::Load
        } else {
            Mem::Store
        }
    } else {
        Mem::None
    };
    Insn::new(4, Class::Coprocessor, mem, Flow::Seq, 0)
}

fn decode32_ldm_stm(hw1: u16, hw2: u16) -> Insn {
    // 1110 100o o0WL nnnn : op = bits[8:7]; 00 and 11 are SRS/RFE (undefined on M).
    let op = (hw1 >> 7) & 0x3;
    if op == 0b00 || op == 0b11 {
        return Insn::undefined(4);
    }
    let regs = hw2.count_ones() as u8;
    if bit(hw1, 4) == 1 {
        let flow = if hw2 & 0x8000 != 0 {
            Flow::Indirect { link: false }
        } else {
            Flow::Seq
        };
        Insn::new(4, Class::LoadMulti, Mem::Load, flow, regs)
    } else {
        Insn::new(4, Class::StoreMulti, Mem::Store, Flow::Seq, regs)
    }
}

fn decode32_dual_excl_tb(hw1: u16, hw2: u16) -> Insn {
    // 1110 100p u1wl nnnn
    let op1 = (hw1 >> 7) & 0x3;
    let op2 = (hw1 >> 4) & 0x3;
    let load = bit(hw1, 4) == 1;
    // ARMv8-M (ARM DDI 0553 C2.4): SG is E97F E97F (in v7-M's LDRD space, with PC as
    // both destinations: unpredictable there); TT, TTT, TTA, TTAT are E84n F0xx (STREX
    // with Rt = PC on v7-M). Neither accesses memory.
    if hw1 == 0xE97F && hw2 == 0xE97F {
        return Insn::alu(4);
    }
    if hw1 & 0xFFF0 == 0xE840 && hw2 & 0xF000 == 0xF000 && hw2 & 0x3F == 0 {
        return Insn::alu(4);
    }
    if op1 == 0b00 && op2 <= 0b01 {
        // STREX / LDREX
        return if load { Insn::load(4) } else { Insn::store(4) };
    }
    if op1 == 0b01 && op2 <= 0b01 {
        let op3 = (hw2 >> 4) & 0xF;
        return match (load, op3) {
            (false, 0b0100 | 0b0101) => Insn::store(4), // STREXB, STREXH
            (true, 0b0100 | 0b0101) => Insn::load(4),   // LDREXB, LDREXH
            // ARMv8-M load-acquire / store-release: LDA(B/H), LDAEX(B/H), STL(B/H),
            // STLEX(B/H) (undefined on v7-M)
            (false, 0b1000..=0b1111) => Insn::store(4),
            (true, 0b1000..=0b1111) => Insn::load(4),
            (true, 0b0000 | 0b0001) => Insn::new(
                4,
                Class::TableBranch,
                Mem::Load,
                Flow::Indirect { link: false },
                1,
            ), // TBB, TBH
            _ => Insn::undefined(4),
        };
    }
    // LDRD / STRD (immediate; LDRD literal).
    if load {
        Insn::new(4, Class::LoadDual, Mem::Load, Flow::Seq, 2)
    } else {
        Insn::new(4, Class::StoreDual, Mem::Store, Flow::Seq, 2)
    }
}

fn decode32_branch_misc(hw1: u16, hw2: u16) -> Insn {
    let op = (hw1 >> 4) & 0x7F;
    let op2 = (hw2 >> 12) & 0x7; // bits 14:12 (bit 15 is 1 here)
    let s = bit(hw1, 10);
    let j1 = bit(hw2, 13);
    let j2 = bit(hw2, 11);
    let imm11 = (hw2 & 0x7FF) as u32;
    if op2 & 0b101 == 0b000 {
        if op & 0b0111000 != 0b0111000 {
            // B<c>.W (T3): imm32 = SignExtend(S:J2:J1:imm6:imm11:'0', 21)
            let imm6 = (hw1 & 0x3F) as u32;
            let imm = (s << 20) | (j2 << 19) | (j1 << 18) | (imm6 << 12) | (imm11 << 1);
            return Insn::new(
                4,
                Class::Branch,
                Mem::None,
                Flow::Direct {
                    offset: sign_extend(imm, 21),
                    cond: true,
                    link: false,
                },
                0,
            );
        }
        return match op {
            0b0111000 | 0b0111001 => Insn::new(4, Class::System, Mem::None, Flow::Seq, 0), // MSR
            0b0111010 => {
                // Hints: op1 (hw2[10:8]) must be 000.
                if hw2 & 0x0700 != 0 {
                    Insn::undefined(4)
                } else {
                    match hw2 & 0xFF {
                        0x02 | 0x03 => Insn::new(4, Class::Hint, Mem::None, Flow::Wait, 0),
                        _ => Insn::new(4, Class::Hint, Mem::None, Flow::Seq, 0),
                    }
                }
            }
            0b0111011 => Insn::new(4, Class::System, Mem::None, Flow::Seq, 0), // CLREX, DSB, DMB, ISB
            0b0111110 | 0b0111111 => Insn::new(4, Class::System, Mem::None, Flow::Seq, 0), // MRS
            _ => Insn::undefined(4),
        };
    }
    if op2 & 0b101 == 0b001 || op2 & 0b101 == 0b101 {
        // B.W (T4) or BL: I1 = NOT(J1 XOR S), I2 = NOT(J2 XOR S),
        // imm32 = SignExtend(S:I1:I2:imm10:imm11:'0', 25)
        let i1 = (!(j1 ^ s)) & 1;
        let i2 = (!(j2 ^ s)) & 1;
        let imm10 = (hw1 & 0x3FF) as u32;
        let imm = (s << 24) | (i1 << 23) | (i2 << 22) | (imm10 << 12) | (imm11 << 1);
        let link = op2 & 0b100 != 0;
        return Insn::new(
            4,
            Class::Branch,
            Mem::None,
            Flow::Direct {
                offset: sign_extend(imm, 25),
                cond: false,
                link,
            },
            0,
        );
    }
    if op2 == 0b010 && op == 0b1111111 {
        return Insn::exception(4); // UDF.W
    }
    Insn::undefined(4) // includes BLX (immediate), which M-profile does not have
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decode an encoding written the way objdump prints it: "hw1" or "hw1 hw2".
    fn d(s: &str) -> Insn {
        let parts: Vec<u16> = s
            .split_whitespace()
            .map(|p| u16::from_str_radix(p, 16).unwrap())
            .collect();
        let insn = decode(parts[0], *parts.get(1).unwrap_or(&0));
        assert_eq!(insn.len as usize, parts.len() * 2, "length of {s}");
        // decode_bytes must agree with decode on the little-endian byte form.
        let mut bytes = Vec::new();
        for p in &parts {
            bytes.extend_from_slice(&p.to_le_bytes());
        }
        assert_eq!(decode_bytes(&bytes), Some(insn), "{s}");
        insn
    }

    fn is_store(s: &str) -> bool {
        d(s).mem == Mem::Store
    }
    fn is_load(s: &str) -> bool {
        d(s).mem == Mem::Load
    }
    fn no_mem(s: &str) -> bool {
        d(s).mem == Mem::None
    }

    // Encodings below were produced with arm-none-eabi-as -mcpu=cortex-m3 -mthumb and
    // read back with objdump.

    #[test]
    fn lengths() {
        assert_eq!(insn_len(0xbf00), 2); // nop
        assert_eq!(insn_len(0x6000), 2); // str r0, [r0]
        assert_eq!(insn_len(0xe7fe), 2); // b .
        assert_eq!(insn_len(0xe8bd), 4); // ldmia.w sp!, {...}
        assert_eq!(insn_len(0xf240), 4); // movw
        assert_eq!(insn_len(0xf8c0), 4); // str.w
        assert_eq!(insn_len(0xfb00), 4); // mla
        assert_eq!(decode_bytes(&[0x40, 0xf2]), None, "truncated 32-bit insn");
        assert_eq!(decode_bytes(&[0x00]), None);
        // movw r0, #0 is 0xf240 0x0000, stored as bytes 40 f2 00 00.
        assert_eq!(decode_bytes(&[0x40, 0xf2, 0x00, 0x00]).unwrap().len, 4);
    }

    #[test]
    fn probe_sequence() {
        // movw r0, #4 ; movt r0, #0x2100 ; str r0, [r0]
        let movw = d("f240 0004");
        let movt = d("f2c2 1000");
        let st = d("6000");
        assert_eq!(movw.mem, Mem::None);
        assert_eq!(movt.mem, Mem::None);
        assert_eq!(movw.class, Class::Alu);
        assert_eq!(st.mem, Mem::Store);
        assert_eq!(st.class, Class::Store);
        assert_eq!(st.flow, Flow::Seq);
    }

    #[test]
    fn stores_16bit() {
        assert!(is_store("6000")); // str r0, [r0]
        assert!(is_store("6048")); // str r0, [r1, #4]
        assert!(is_store("5088")); // str r0, [r1, r2]
        assert!(is_store("7008")); // strb r0, [r1, #0]
        assert!(is_store("5488")); // strb r0, [r1, r2]
        assert!(is_store("8008")); // strh r0, [r1, #0]
        assert!(is_store("5288")); // strh r0, [r1, r2]
        assert!(is_store("9001")); // str r0, [sp, #4]
        assert!(is_store("c10c")); // stmia r1!, {r2, r3}
        let push = d("b510"); // push {r4, lr}
        assert_eq!(
            (push.mem, push.class, push.regs),
            (Mem::Store, Class::StoreMulti, 2)
        );
        assert_eq!(d("c10c").regs, 2);
    }

    #[test]
    fn stores_32bit() {
        assert!(is_store("f8c1 0004")); // str.w r0, [r1, #4]
        assert!(is_store("f841 0c04")); // str r0, [r1, #-4]
        assert!(is_store("f841 0f04")); // str r0, [r1, #4]!
        assert!(is_store("f841 0022")); // str.w r0, [r1, r2, lsl #2]
        assert!(is_store("f881 0004")); // strb.w r0, [r1, #4]
        assert!(is_store("f8a1 0004")); // strh.w r0, [r1, #4]
        assert!(is_store("f841 0e04")); // strt r0, [r1, #4]
        assert!(is_store("e9c1 2302")); // strd r2, r3, [r1, #8]
        assert!(is_store("e841 2300")); // strex r3, r2, [r1]
        assert!(is_store("e8c1 2f43")); // strexb r3, r2, [r1]
        assert!(is_store("e8c1 2f53")); // strexh r3, r2, [r1]
        assert!(is_store("e881 000c")); // stmia.w r1, {r2, r3}
        assert!(is_store("e901 000c")); // stmdb r1, {r2, r3}
        let push = d("e92d 4ff0"); // push.w {r4-r11, lr}
        assert_eq!(
            (push.mem, push.class, push.regs),
            (Mem::Store, Class::StoreMulti, 9)
        );
        assert_eq!(d("e9c1 2302").class, Class::StoreDual);
        assert_eq!(d("e9c1 2302").regs, 2);
    }

    #[test]
    fn loads() {
        assert!(is_load("6800")); // ldr r0, [r0]
        assert!(is_load("4801")); // ldr r0, [pc, #4]
        assert!(is_load("5888")); // ldr r0, [r1, r2]
        assert!(is_load("5688")); // ldrsb r0, [r1, r2]
        assert!(is_load("5e88")); // ldrsh r0, [r1, r2]
        assert!(is_load("7808")); // ldrb r0, [r1, #0]
        assert!(is_load("8808")); // ldrh r0, [r1, #0]
        assert!(is_load("9801")); // ldr r0, [sp, #4]
        assert!(is_load("c90c")); // ldmia r1!, {r2, r3}
        assert!(is_load("bc10")); // pop {r4}
        assert!(is_load("f8d1 0004")); // ldr.w r0, [r1, #4]
        assert!(is_load("f851 0022")); // ldr.w r0, [r1, r2, lsl #2]
        assert!(is_load("f991 0004")); // ldrsb.w r0, [r1, #4]
        assert!(is_load("f9b1 0004")); // ldrsh.w r0, [r1, #4]
        assert!(is_load("e9d1 2302")); // ldrd r2, r3, [r1, #8]
        assert!(is_load("e851 2f00")); // ldrex r2, [r1]
        assert!(is_load("e8d1 2f4f")); // ldrexb r2, [r1]
        assert!(is_load("e891 000c")); // ldmia.w r1, {r2, r3}
        assert!(is_load("f891 f000")); // pld [r1]
        assert_eq!(d("f8d1 0004").flow, Flow::Seq);
    }

    #[test]
    fn no_memory() {
        for s in [
            "bf00",      // nop
            "3001",      // adds r0, #1
            "1c40",      // adds r0, r0, #1
            "1840",      // adds r0, r0, r1
            "4348",      // muls r0, r1
            "4608",      // mov r0, r1
            "4408",      // add r0, r1
            "a001",      // adr r0, .+4
            "b082",      // sub sp, #8
            "b002",      // add sp, #8
            "b2c0",      // uxtb r0, r0
            "ba00",      // rev r0, r0
            "bf08",      // it eq
            "b662",      // cpsie i
            "b672",      // cpsid i
            "f240 0004", // movw r0, #4
            "f2c2 1000", // movt r0, #0x2100
            "f101 0001", // add.w r0, r1, #1
            "eb01 0002", // add.w r0, r1, r2
            "ea4f 0041", // mov.w r0, r1, lsl #1
            "fb01 f002", // mul.w r0, r1, r2
            "fb91 f0f2", // sdiv r0, r1, r2
            "fbb1 f0f2", // udiv r0, r1, r2
            "fba1 0102", // umull r0, r1, r1, r2
            "fab1 f081", // clz r0, r1
            "f3bf 8f4f", // dsb sy
            "f3bf 8f6f", // isb sy
            "f3ef 8009", // mrs r0, PSP
            "f380 8809", // msr PSP, r0
        ] {
            assert!(no_mem(s), "{s} should not access memory");
        }
        assert_eq!(d("fb01 f002").class, Class::Mul);
        assert_eq!(d("fb91 f0f2").class, Class::Div);
        assert_eq!(d("fbb1 f0f2").class, Class::Div);
        assert_eq!(d("fba1 0102").class, Class::MulLong);
        assert_eq!(d("bf08").class, Class::It);
        assert_eq!(d("bf00").class, Class::Hint);
    }

    #[test]
    fn branches() {
        // b . (at any pc): target = pc
        let b_self = d("e7fe");
        assert_eq!(b_self.direct_target(0x100), Some(0x100));
        assert!(!b_self.only_forward(0x100));
        // bne.n with offset -4 (loop back to pc-4 ... objdump: d1fc)
        let bne = d("d1fc");
        assert_eq!(
            bne.flow,
            Flow::Direct {
                offset: -8,
                cond: true,
                link: false
            }
        );
        assert_eq!(bne.direct_target(0x20), Some(0x1c));
        // b.n forward by 8: e002 at 0x10 -> 0x18
        assert_eq!(d("e002").direct_target(0x10), Some(0x18));
        assert!(d("e002").only_forward(0x10));
        // cbz r0, +0x0a : b128 at 0x0 -> target 0xe (always forward)
        let cbz = d("b128");
        assert_eq!(cbz.direct_target(0), Some(0xe));
        assert!(cbz.only_forward(0));
        assert_eq!(
            d("b918").flow,
            Flow::Direct {
                offset: 6,
                cond: true,
                link: false
            }
        ); // cbnz r0
        // bl: f000 f802 at 0 -> 8; f7ff fffe at 0x10 -> 0x10 (bl to self)
        let bl = d("f000 f802");
        assert_eq!(
            bl.flow,
            Flow::Direct {
                offset: 4,
                cond: false,
                link: true
            }
        );
        assert_eq!(bl.direct_target(0), Some(8));
        assert_eq!(d("f7ff fffe").direct_target(0x10), Some(0x10));
        // b.w far backwards: f7ff bffe = b.w . ; f400 b800 = b.w -0x400000
        assert_eq!(
            d("f7ff bffe").flow,
            Flow::Direct {
                offset: -4,
                cond: false,
                link: false
            }
        );
        assert_eq!(d("f400 b800").direct_target(0x0040_0000), Some(4));
        // beq.w: f000 8001 at 0 -> 6; f43f affe = beq.w .
        assert_eq!(
            d("f000 8001").flow,
            Flow::Direct {
                offset: 2,
                cond: true,
                link: false
            }
        );
        assert_eq!(d("f43f affe").direct_target(0x200), Some(0x200));
        // indirect
        assert_eq!(d("4770").flow, Flow::Indirect { link: false }); // bx lr
        assert_eq!(d("4788").flow, Flow::Indirect { link: true }); // blx r1
        assert_eq!(d("46f7").flow, Flow::Indirect { link: false }); // mov pc, lr
        assert_eq!(d("4487").flow, Flow::Indirect { link: false }); // add pc, r0
        assert_eq!(d("bd10").flow, Flow::Indirect { link: false }); // pop {r4, pc}
        assert_eq!(d("bd10").mem, Mem::Load);
        assert_eq!(d("e8bd 8010").flow, Flow::Indirect { link: false }); // ldmia.w sp!, {r4, pc}
        assert_eq!(d("f85d fb04").flow, Flow::Indirect { link: false }); // ldr.w pc, [sp], #4
        let tbb = d("e8d1 f002"); // tbb [r1, r2]
        assert_eq!((tbb.class, tbb.mem), (Class::TableBranch, Mem::Load));
        assert_eq!(d("e8d1 f012").class, Class::TableBranch); // tbh [r1, r2, lsl #1]
        assert!(!d("4770").only_forward(0));
    }

    #[test]
    fn exceptions_and_waits() {
        assert_eq!(d("df00").flow, Flow::Exception); // svc 0
        assert_eq!(d("beab").flow, Flow::Exception); // bkpt 0xab
        assert_eq!(d("de00").flow, Flow::Exception); // udf #0
        assert_eq!(d("f7f0 a000").flow, Flow::Exception); // udf.w #0
        assert_eq!(d("bf30").flow, Flow::Wait); // wfi
        assert_eq!(d("bf20").flow, Flow::Wait); // wfe
        assert_eq!(d("f3af 8003").flow, Flow::Wait); // wfi.w
        assert_eq!(d("f3af 8000").flow, Flow::Seq); // nop.w
        assert!(!d("df00").only_forward(0));
        assert!(!d("bf30").only_forward(0));
    }

    #[test]
    fn unknown_is_conservative() {
        assert!(d("b600").mem.may_store()); // unallocated misc 16-bit
        assert!(Mem::Unknown.may_access());
        assert!(!Mem::Load.may_store());
        assert!(Mem::Store.may_access());
    }

    // ARMv8-M mainline additions (arm-none-eabi-as -march=armv8-m.main+fp, objdump).
    #[test]
    fn armv8m_mainline() {
        let sg = d("e97f e97f");
        assert_eq!(
            (sg.class, sg.mem, sg.flow),
            (Class::Alu, Mem::None, Flow::Seq)
        );
        for tt in ["e841 f000", "e841 f040", "e841 f080", "e841 f0c0"] {
            assert_eq!((d(tt).class, d(tt).mem), (Class::Alu, Mem::None), "{tt}");
        }
        for ld in [
            "e8d1 0faf",
            "e8d1 0f8f",
            "e8d1 0f9f",
            "e8d1 0fef",
            "e8d1 0fcf",
        ] {
            assert_eq!((d(ld).class, d(ld).flow), (Class::Load, Flow::Seq), "{ld}");
            assert!(is_load(ld), "{ld}");
        }
        for st in [
            "e8c1 0faf",
            "e8c1 0f8f",
            "e8c1 0f9f",
            "e8c1 0fe2",
            "e8c1 0fd2",
        ] {
            assert_eq!(d(st).class, Class::Store, "{st}");
            assert!(is_store(st), "{st}");
        }
        // STREX is unchanged
        assert!(is_store("e841 2300")); // strex r3, r2, [r1]
        assert_eq!(d("4774").class, Class::Branch); // bxns lr
        assert_eq!(d("479c").class, Class::Branch); // blxns r3
        assert_eq!(d("f380 880a").class, Class::System); // msr msplim, r0
        assert_eq!(d("f3ef 800b").class, Class::System); // mrs r0, psplim
        // floating point: coprocessor space with its memory access
        assert_eq!(d("ee30 0a20").class, Class::Coprocessor); // vadd.f32
        assert!(is_store("ed2d 8a10")); // vpush {s16-s31}
        assert!(is_load("ecbd 8a10")); // vpop {s16-s31}
    }
}
