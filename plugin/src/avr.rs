//! The AVR cycle model (`core=avre`): every instruction's length and cycles from its first
//! opcode word, and what its cycles depend on at run time.
//!
//! The counts are the core table's (`rtoslab_plugin_config::cores::AvrTable`, from
//! Microchip's AVR Instruction Set Manual, AVRe column, 16-bit PC). An AVR core has no
//! pipeline effects beyond the documented ones and fetches from flash with no wait
//! states, so an instruction's cost is static except for:
//! * a conditional branch (BRBS/BRBC and their aliases): one more cycle when taken;
//! * a skip (CPSE, SBRC, SBRS, SBIC, SBIS): one more cycle per word of the instruction it
//!   skips. QEMU translates the skipped instruction inline behind a branch, after the
//!   plugin's per-instruction counting, so the skipped instruction's own count runs
//!   anyway: the correction of a skip is the skipped words minus that count;
//! * an interrupt: the response cycles before the vector's first instruction, more when
//!   it wakes the core from SLEEP.
//!
//! Pure functions of the opcode: unit-tested here, applied by the runtime.

use rtoslab_plugin_config::cores::AvrTable;

/// What an instruction's run-time cost or the probe depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dyn {
    /// Its cost is static.
    None,
    /// BRBS (`set`) / BRBC (`!set`) on SREG bit `bit`: taken adds the table's extra.
    Branch { bit: u8, set: bool },
    /// CPSE Rd, Rr: skips when the registers are equal.
    SkipEq { rd: u8, rr: u8 },
    /// SBRC (`set` false) / SBRS (`set` true) Rr, b: skips when the bit is clear / set.
    SkipReg { rr: u8, bit: u8, set: bool },
    /// SBIC / SBIS A, b: the same on I/O register A (data address 0x20 + A).
    SkipIo { io: u8, bit: u8, set: bool },
    /// SLEEP: an interrupt that wakes the core costs more.
    Sleep,
}

/// One decoded instruction: its length in 16-bit words, its static cycles (a branch or
/// skip: not taken / no skip), whether it may store to data space (the probe), and its
/// run-time dependency.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AvrInsn {
    pub words: u8,
    pub cycles: u32,
    pub stores: bool,
    pub dynamic: Dyn,
    /// An encoding the AVRe+ core does not have (1 cycle; QEMU decides what it does).
    pub unknown: bool,
}

impl AvrInsn {
    fn plain(cycles: u32) -> AvrInsn {
        AvrInsn {
            words: 1,
            cycles,
            stores: false,
            dynamic: Dyn::None,
            unknown: false,
        }
    }

    fn long(cycles: u32) -> AvrInsn {
        AvrInsn {
            words: 2,
            ..AvrInsn::plain(cycles)
        }
    }

    fn store(cycles: u32) -> AvrInsn {
        AvrInsn {
            stores: true,
            ..AvrInsn::plain(cycles)
        }
    }

    fn with(self, dynamic: Dyn) -> AvrInsn {
        AvrInsn { dynamic, ..self }
    }

    fn unknown() -> AvrInsn {
        AvrInsn {
            unknown: true,
            ..AvrInsn::plain(1)
        }
    }
}

/// Decode the instruction whose first word is `op`.
pub fn decode(op: u16, t: &AvrTable) -> AvrInsn {
    let d5 = ((op >> 4) & 0x1F) as u8;
    let r5 = (((op >> 5) & 0x10) | (op & 0x0F)) as u8;
    let bit = (op & 7) as u8;
    match op >> 12 {
        0x0 => match op >> 8 {
            0x00 if op == 0 => AvrInsn::plain(1), // NOP
            0x00 => AvrInsn::unknown(),
            0x01 => AvrInsn::plain(1),            // MOVW
            0x02 | 0x03 => AvrInsn::plain(t.mul), // MULS, MULSU, FMUL*
            _ => AvrInsn::plain(1),               // CPC, SBC, ADD
        },
        0x1 => {
            if op & 0x0C00 == 0 {
                AvrInsn::plain(t.skip).with(Dyn::SkipEq { rd: d5, rr: r5 }) // CPSE
            } else {
                AvrInsn::plain(1) // CP, SUB, ADC
            }
        }
        0x2..=0x7 => AvrInsn::plain(1), // AND EOR OR MOV CPI SBCI SUBI ORI ANDI
        0x8 | 0xA => {
            // LDD/STD (and LD/ST) through Y or Z with a displacement
            if op & 0x0200 != 0 {
                AvrInsn::store(t.st)
            } else {
                AvrInsn::plain(t.ld)
            }
        }
        0x9 => decode_9(op, t, d5, r5, bit),
        0xB => AvrInsn::plain(1), // IN, OUT
        0xC => AvrInsn::plain(t.rjmp),
        0xD => AvrInsn::plain(t.rcall),
        0xE => AvrInsn::plain(1), // LDI
        _ => {
            // 0xF
            match (op >> 9) & 7 {
                0..=3 => AvrInsn::plain(t.branch).with(Dyn::Branch {
                    bit,
                    set: op & 0x0400 == 0,
                }),
                4 | 5 if op & 8 == 0 => AvrInsn::plain(1), // BLD, BST
                6 | 7 if op & 8 == 0 => AvrInsn::plain(t.skip).with(Dyn::SkipReg {
                    rr: d5,
                    bit,
                    set: op & 0x0200 != 0,
                }),
                _ => AvrInsn::unknown(),
            }
        }
    }
}

fn decode_9(op: u16, t: &AvrTable, d5: u8, r5: u8, bit: u8) -> AvrInsn {
    let _ = r5;
    match (op >> 9) & 7 {
        0 => match op & 0xF {
            0x0 => AvrInsn::long(t.lds),
            0x1 | 0x2 | 0x9 | 0xA | 0xC | 0xD | 0xE => AvrInsn::plain(t.ld),
            0x4..=0x7 => AvrInsn::plain(t.lpm), // LPM/ELPM Rd, Z(+)
            0xF => AvrInsn::plain(t.pop),
            _ => AvrInsn::unknown(),
        },
        1 => match op & 0xF {
            0x0 => AvrInsn {
                words: 2,
                ..AvrInsn::store(t.sts)
            },
            0x1 | 0x2 | 0x9 | 0xA | 0xC | 0xD | 0xE => AvrInsn::store(t.st),
            0xF => AvrInsn::store(t.push),
            _ => AvrInsn::unknown(), // XCH/LAS/LAC/LAT: AVRxm only
        },
        2 => decode_9_2(op, t, d5),
        3 => AvrInsn::plain(t.adiw), // ADIW (0x96xx), SBIW (0x97xx)
        4 | 5 => {
            // CBI 98, SBIC 99, SBI 9A, SBIS 9B
            let io = ((op >> 3) & 0x1F) as u8;
            match (op >> 8) & 3 {
                0 | 2 => AvrInsn::plain(t.sbi),
                1 => AvrInsn::plain(t.skip).with(Dyn::SkipIo {
                    io,
                    bit,
                    set: false,
                }),
                _ => AvrInsn::plain(t.skip).with(Dyn::SkipIo { io, bit, set: true }),
            }
        }
        _ => AvrInsn::plain(t.mul), // MUL 9C-9F
    }
}

fn decode_9_2(op: u16, t: &AvrTable, _d5: u8) -> AvrInsn {
    // 1001 010x xxxx xxxx
    match op & 0xF {
        0x0..=0x3 | 0x5..=0x7 | 0xA => AvrInsn::plain(1), // COM NEG SWAP INC ASR LSR ROR DEC
        0x8 => match op {
            0x9508 => AvrInsn::plain(t.ret),
            0x9518 => AvrInsn::plain(t.reti),
            0x9588 => AvrInsn::plain(1).with(Dyn::Sleep),
            0x9598 | 0x95A8 => AvrInsn::plain(1), // BREAK, WDR
            0x95C8 | 0x95D8 => AvrInsn::plain(t.lpm), // LPM, ELPM (R0)
            0x95E8 => AvrInsn::plain(1),          // SPM: the flash write time is not modelled
            _ if op & 0xFF0F == 0x9408 => AvrInsn::plain(1), // BSET/BCLR (SEx/CLx)
            _ => AvrInsn::unknown(),
        },
        0x9 => match op {
            0x9409 | 0x9419 => AvrInsn::plain(t.ijmp), // IJMP, EIJMP
            0x9509 => AvrInsn::plain(t.icall),
            0x9519 => AvrInsn::plain(t.icall + 1), // EICALL: 22-bit PC parts only
            _ => AvrInsn::unknown(),
        },
        0xC | 0xD => AvrInsn::long(t.jmp),
        0xE | 0xF => AvrInsn::long(t.call),
        _ => AvrInsn::unknown(), // DES (0x..B): AVRxm only
    }
}

/// The cycles a taken branch adds.
pub fn branch_extra(t: &AvrTable) -> u32 {
    t.branch_taken - t.branch
}

/// The correction a skip adds to the counters when it skips `skipped` (whose own count
/// ran anyway): the skipped words, less the skipped instruction's counted cycles, as a
/// two's-complement amount to add.
pub fn skip_correction(skipped: &AvrInsn) -> u64 {
    u64::from(skipped.words).wrapping_sub(u64::from(skipped.cycles))
}

/// Is a branch taken, from SREG before it runs?
pub fn branch_taken(sreg: u8, bit: u8, set: bool) -> bool {
    ((sreg >> bit) & 1 != 0) == set
}

/// Does a bit test skip (SBRC/SBRS/SBIC/SBIS), from the tested byte?
pub fn bit_skips(value: u8, bit: u8, set: bool) -> bool {
    ((value >> bit) & 1 != 0) == set
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtoslab_plugin_config::cores::avr::AVRE;

    fn c(op: u16) -> u32 {
        decode(op, &AVRE).cycles
    }

    #[test]
    fn manual_counts() {
        // Encodings from avr-gcc output; counts from the manual's AVRe column.
        assert_eq!(c(0x0000), 1); // nop
        assert_eq!(c(0x0f01), 1); // add r16, r17
        assert_eq!(c(0xe00a), 1); // ldi r16, 10
        assert_eq!(c(0x9601), 2); // adiw r24, 1
        assert_eq!(c(0x9701), 2); // sbiw r24, 1
        assert_eq!(c(0x9f01), 2); // mul r16, r17
        assert_eq!(c(0x900c), 2); // ld r0, X
        assert_eq!(c(0x8008), 2); // ld r0, Y
        assert_eq!(c(0x8111), 2); // ldd r17, Z+1
        assert_eq!(c(0x920d), 2); // st X+, r0
        assert_eq!(c(0x8219), 2); // std Y+1, r1
        assert_eq!(c(0x9000), 2); // lds r0, k
        assert_eq!(c(0x9200), 2); // sts k, r0
        assert_eq!(c(0x920f), 2); // push r0
        assert_eq!(c(0x900f), 2); // pop r0
        assert_eq!(c(0x95c8), 3); // lpm
        assert_eq!(c(0x9005), 3); // lpm r0, Z+
        assert_eq!(c(0x9a28), 2); // sbi 0x05, 0
        assert_eq!(c(0x9828), 2); // cbi 0x05, 0
        assert_eq!(c(0xc000), 2); // rjmp .+0
        assert_eq!(c(0x9409), 2); // ijmp
        assert_eq!(c(0x940c), 3); // jmp
        assert_eq!(c(0xd000), 3); // rcall
        assert_eq!(c(0x9509), 3); // icall
        assert_eq!(c(0x940e), 4); // call
        assert_eq!(c(0x9508), 4); // ret
        assert_eq!(c(0x9518), 4); // reti
        assert_eq!(c(0xb10b), 1); // in r16, 0x0b
        assert_eq!(c(0xb90b), 1); // out 0x0b, r16
        assert_eq!(c(0x9478), 1); // sei
        assert_eq!(c(0x94f8), 1); // cli
        assert_eq!(c(0x9588), 1); // sleep
    }

    #[test]
    fn lengths_and_stores() {
        for op in [0x9000u16, 0x9200, 0x940c, 0x940e, 0x95fe] {
            assert_eq!(decode(op, &AVRE).words, 2, "{op:#06x}");
        }
        for op in [0x920d_u16, 0x8219, 0x9200, 0x920f, 0x8208] {
            assert!(decode(op, &AVRE).stores, "{op:#06x}");
        }
        for op in [0x900c_u16, 0x8008, 0x9000, 0x900f, 0x0f01] {
            assert!(!decode(op, &AVRE).stores, "{op:#06x}");
        }
        assert!(decode(0x9204, &AVRE).unknown); // xch: AVRxm only
    }

    #[test]
    fn branches_and_skips() {
        // breq .+2 = brbs 1 (Z); brne = brbc 1
        assert_eq!(
            decode(0xf009, &AVRE).dynamic,
            Dyn::Branch { bit: 1, set: true }
        );
        assert_eq!(
            decode(0xf409, &AVRE).dynamic,
            Dyn::Branch { bit: 1, set: false }
        );
        assert!(branch_taken(0b10, 1, true));
        assert!(!branch_taken(0b10, 1, false));
        assert_eq!(branch_extra(&AVRE), 1);
        // cpse r16, r17; sbrc r24, 3; sbrs r24, 3; sbic 0x03, 5; sbis 0x03, 5
        assert_eq!(
            decode(0x1301, &AVRE).dynamic,
            Dyn::SkipEq { rd: 16, rr: 17 }
        );
        assert_eq!(
            decode(0xfd83, &AVRE).dynamic,
            Dyn::SkipReg {
                rr: 24,
                bit: 3,
                set: false
            }
        );
        assert_eq!(
            decode(0xff83, &AVRE).dynamic,
            Dyn::SkipReg {
                rr: 24,
                bit: 3,
                set: true
            }
        );
        assert_eq!(
            decode(0x991d, &AVRE).dynamic,
            Dyn::SkipIo {
                io: 3,
                bit: 5,
                set: false
            }
        );
        assert_eq!(
            decode(0x9b1d, &AVRE).dynamic,
            Dyn::SkipIo {
                io: 3,
                bit: 5,
                set: true
            }
        );
        // Skipping a 1-word, 1-cycle instruction: +1 - 1 = 0 (2 cycles in all with the
        // skip's own 1); a 2-word LDS (2 counted): +2 - 2 = 0 (3 in all); a 2-cycle
        // 1-word RJMP: +1 - 2 = -1 (2 in all).
        assert_eq!(skip_correction(&decode(0x0f01, &AVRE)), 0);
        assert_eq!(skip_correction(&decode(0x9000, &AVRE)), 0);
        assert_eq!(skip_correction(&decode(0xc000, &AVRE)), u64::MAX);
        assert_eq!(skip_correction(&decode(0x940e, &AVRE)), u64::MAX - 1);
        assert!(bit_skips(0x08, 3, true) && bit_skips(0x00, 3, false));
    }
}
