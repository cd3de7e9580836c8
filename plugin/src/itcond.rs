//! Instructions skipped by their IT condition (ARMv7-M conditional execution).
//!
//! Inside an IT block each instruction carries a condition; when it fails, the processor
//! does not perform the instruction. The static costs (`CostModel::block_costs`) price
//! every instruction as executed, which over-charges a skipped load, store, LDM/STM or
//! VSTM/VLDM. The ARMv7-M ARM (DDI 0403, A7.3 "Conditional execution" and every
//! instruction's pseudocode, `if ConditionPassed() then ...`) performs nothing of an
//! instruction whose condition fails: no memory access, no register write, no FP check.
//! The Cortex-M3/M4 TRMs' instruction timing tables (M3 r2p1, DDI 0337I, 3.3.1 Table 3-1;
//! M4 r0p1, DDI 0439B, 3.3.1) give counts for executed instructions only; the one
//! statement on failing conditions is for branches ("B<cc>: 1 or 1 + P", not taken in
//! one cycle). We found no TRM sentence pricing a skipped non-branch instruction and
//! take it as one cycle, an IT-block slot passing through execute like a NOP
//! (an assumption, documented in docs/timing-model.md). So a skipped instruction is
//! priced as a NOP of its own length, in its own block context (its neighbours' rules
//! see a NOP, e.g. no load pipelining with it).
//!
//! What happens at run time, per IT block whose outcome can change the block's cycles
//! (decided here, at translation time, by pricing every pass/fail combination of its
//! instructions): one callback with register access on the block's first conditional
//! instruction, before it runs, reads xPSR (the APSR flags N, Z, C, V), evaluates each
//! slot's condition (ARMv7-M ARM A7.3, "Conditional execution", table A7-1) and adds the
//! precomputed difference for that outcome to the running vCPU's cycle counter. The
//! segment's add holding that instruction (inline, or a callback with several vCPUs) has
//! already run (it is registered first, on the segment's first instruction), and every
//! later probe store reads the counter after the correction. IT blocks whose every outcome costs the same (e.g. `ite eq; moveq; movne`)
//! get no callback.
//!
//! Limits: the flags are read once, at the first conditional instruction. When an
//! instruction of the IT block other than the last may set the flags (CMP/CMN/TST, a
//! 32-bit data-processing instruction with S, MSR, VMRS APSR_nzcv), only the slots up to
//! and including it are corrected; later slots keep the executed price. An IT block that
//! QEMU splits across two translation blocks (it ends a block before an instruction that
//! crosses a page, so this happens in real images) continues in the block translated at
//! the next address: the slots cut off are handed on (`ItTail`, kept by the runtime per
//! address) and priced there; a block QEMU starts inside an IT block for another reason
//! (re-executing an I/O access alone, an exception return into the block) is priced as
//! executed. A probe store inside an IT block counts the correction of the slots
//! after it. Conditional branches (B<cc>, and branches in an IT block) keep their
//! taken/not-taken pricing (`flow.rs`); only their static part is corrected here.

use crate::cost::CostModel;
use crate::decoded::DecodedInsn;
use crate::thumb::Class;

/// One IT block's correction: the callback goes on instruction `at` (the first
/// conditional one); slot `k` is instruction `at + k` with condition `conds[k]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ItGroup {
    pub at: usize,
    pub conds: [u8; 4],
    pub n: u8,
    /// Cycles to add for each outcome, indexed by the mask of failing slots (bit k: slot
    /// k failed). Index 0 (all pass) is 0. Negative: fewer cycles.
    pub deltas: [i32; 16],
}

impl ItGroup {
    /// The correction for the flags in `xpsr` (two's complement when negative).
    #[inline]
    pub fn delta(&self, xpsr: u32) -> u64 {
        let mut fail = 0usize;
        for k in 0..usize::from(self.n) {
            if !cond_passed(self.conds[k], xpsr) {
                fail |= 1 << k;
            }
        }
        i64::from(self.deltas[fail]) as u64
    }
}

/// ARMv7-M ARM A7.3.1, table A7-1: does condition `cond` (4 bits) pass with the APSR
/// flags in `xpsr` (N bit 31, Z 30, C 29, V 28)? 0b1110 and 0b1111: always.
pub fn cond_passed(cond: u8, xpsr: u32) -> bool {
    let n = xpsr >> 31 & 1 != 0;
    let z = xpsr >> 30 & 1 != 0;
    let c = xpsr >> 29 & 1 != 0;
    let v = xpsr >> 28 & 1 != 0;
    let base = match cond >> 1 {
        0 => z,
        1 => c,
        2 => n,
        3 => v,
        4 => c && !z,
        5 => n == v,
        6 => !z && n == v,
        _ => return true,
    };
    if cond & 1 != 0 { !base } else { base }
}

/// The conditions of the instructions an IT instruction (16-bit encoding `h`) covers:
/// slot 0 takes firstcond, slot k > 0 takes firstcond[3:1] with mask bit 4 - k (the
/// ITSTATE advance of ARMv7-M ARM A7.3.3). Returns the conditions and their number.
pub fn it_conds(h: u16) -> ([u8; 4], u8) {
    let first = ((h >> 4) & 0xF) as u8;
    let mask = (h & 0xF) as u8;
    let n = 4 - mask.trailing_zeros().min(3) as u8;
    let mut conds = [first; 4];
    for (k, c) in conds.iter_mut().enumerate().skip(1) {
        *c = (first & 0xE) | ((mask >> (4 - k)) & 1);
    }
    (conds, n)
}

/// May `d` write the APSR flags when it executes inside an IT block? Conservative: in an
/// IT block the 16-bit data-processing instructions do not set flags except CMP, CMN and
/// TST (ARMv7-M ARM A6.2); 32-bit data processing sets them with S; MSR and VMRS to
/// APSR_nzcv write them; an unknown encoding may.
pub fn may_set_flags(d: &DecodedInsn) -> bool {
    let (h1, h2) = (d.hw1(), d.hw2());
    if d.insn.class == Class::Undefined {
        return true;
    }
    if d.insn.len == 2 {
        return h1 & 0xF800 == 0x2800 // CMP imm
            || matches!(h1 & 0xFFC0, 0x4200 | 0x4280 | 0x42C0) // TST, CMP, CMN reg
            || h1 & 0xFF00 == 0x4500; // CMP high registers
    }
    let s = h1 & 0x10 != 0;
    (h1 & 0xFA00 == 0xF000 && h2 & 0x8000 == 0 && s) // modified immediate
        || (h1 & 0xFE00 == 0xEA00 && s) // shifted register
        || (h1 & 0xFF80 == 0xFA00 && h2 & 0xF0F0 == 0xF000 && s) // register-controlled shift
        || (h1 & 0xFFE0 == 0xF380 && h2 & 0xD000 == 0x8000) // MSR
        || (h1 == 0xEEF1 && h2 == 0xFA10) // VMRS APSR_nzcv, FPSCR
}

/// `d` replaced by a NOP of the same length at the same address: how a skipped
/// instruction is priced.
fn as_nop(d: &DecodedInsn) -> DecodedInsn {
    if d.insn.len == 4 {
        DecodedInsn::new(d.pc, 0xF3AF, 0x8000) // nop.w
    } else {
        DecodedInsn::new(d.pc, 0xBF00, 0) // nop
    }
}

/// The slots of an IT block that continue past the end of a translation block: their
/// conditions, in order (QEMU ends a block before an instruction that crosses a page,
/// so an IT block can be cut anywhere). The block that starts at the next address is
/// translated with them as its leading slots (`it_groups`'s `lead`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ItTail {
    pub conds: [u8; 4],
    pub n: u8,
}

/// What `it_groups` finds in a block: the corrections, and the IT slots cut off by the
/// block's end with the address they continue at.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ItPlan {
    pub groups: Vec<ItGroup>,
    pub tail: Option<(u64, ItTail)>,
}

/// The IT blocks of a translation block whose outcome changes its cycles under `model`.
/// `lead`: the block starts inside an IT block whose IT instruction ended an earlier
/// block (its remaining slots).
pub fn it_groups(insns: &[DecodedInsn], model: &dyn CostModel, lead: Option<ItTail>) -> ItPlan {
    let mut out = ItPlan::default();
    let mut base: Option<u64> = None;
    // (index of the first slot, the slots' conditions, their number)
    let mut blocks: Vec<(usize, [u8; 4], usize)> = Vec::new();
    if let Some(t) = lead {
        blocks.push((0, t.conds, usize::from(t.n)));
    }
    for (i, d) in insns.iter().enumerate() {
        if d.insn.class == Class::It && d.insn.len == 2 {
            let (conds, len) = it_conds(d.hw1());
            blocks.push((i + 1, conds, usize::from(len)));
        }
    }
    for (at, conds, len) in blocks {
        let mut n = len.min(insns.len() - at);
        // Flags read once: stop after a slot that may change them (not needed after the
        // last slot).
        let setter = (0..n).find(|&k| k + 1 < len && may_set_flags(&insns[at + k]));
        if let Some(k) = setter {
            n = k + 1;
        } else if n < len {
            let last = &insns[insns.len() - 1];
            let mut rest = [0u8; 4];
            rest[..len - n].copy_from_slice(&conds[n..len]);
            out.tail = Some((
                last.pc + u64::from(last.insn.len),
                ItTail {
                    conds: rest,
                    n: (len - n) as u8,
                },
            ));
        }
        if n == 0 {
            continue;
        }
        let total = *base.get_or_insert_with(|| sum(model, insns));
        let mut deltas = [0i32; 16];
        let mut varied = false;
        let mut variant = insns.to_vec();
        for (fail, delta) in deltas.iter_mut().enumerate().take(1 << n).skip(1) {
            for k in 0..n {
                variant[at + k] = if fail & 1 << k != 0 {
                    as_nop(&insns[at + k])
                } else {
                    insns[at + k]
                };
            }
            *delta = (sum(model, &variant) as i64 - total as i64) as i32;
            varied |= *delta != 0;
        }
        if varied {
            out.groups.push(ItGroup {
                at,
                conds,
                n: n as u8,
                deltas,
            });
        }
    }
    out
}

fn sum(model: &dyn CostModel, insns: &[DecodedInsn]) -> u64 {
    model
        .block_costs(insns)
        .cycles
        .iter()
        .map(|&c| u64::from(c))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cost::ZeroModel;
    use crate::timing::CycleModel;
    use rtoslab_plugin_config::cores;
    use rtoslab_plugin_config::model::ModelConfig;

    const Z: u32 = 1 << 30;
    const C: u32 = 1 << 29;
    const N: u32 = 1 << 31;
    const V: u32 = 1 << 28;

    fn model(core: &str) -> CycleModel {
        let t = cores::by_name(core).unwrap();
        CycleModel::new(ModelConfig {
            core: Some(t),
            ..ModelConfig::default()
        })
        .unwrap()
    }

    fn block(pc: u64, encs: &[(u16, u16)]) -> Vec<DecodedInsn> {
        let mut pc = pc;
        encs.iter()
            .map(|&(a, b)| {
                let d = DecodedInsn::new(pc, a, b);
                pc += u64::from(d.insn.len);
                d
            })
            .collect()
    }

    #[test]
    fn conditions_follow_table_a7_1() {
        let all = [0, Z, C, N, V, Z | C, N | V, C | V, N | Z];
        for x in all {
            let (n, z, c, v) = (x & N != 0, x & Z != 0, x & C != 0, x & V != 0);
            let want = [
                z,
                !z,
                c,
                !c,
                n,
                !n,
                v,
                !v,
                c && !z,
                !c || z,
                n == v,
                n != v,
                !z && n == v,
                z || n != v,
                true,
                true,
            ];
            for (cond, w) in want.iter().enumerate() {
                assert_eq!(cond_passed(cond as u8, x), *w, "cond {cond} flags {x:#x}");
            }
        }
    }

    #[test]
    fn it_slots_and_conditions() {
        // it eq (bf08): one slot, EQ
        assert_eq!(it_conds(0xbf08).1, 1);
        assert_eq!(it_conds(0xbf08).0[0], 0);
        // ite eq (bf0c): EQ, NE
        let (c, n) = it_conds(0xbf0c);
        assert_eq!((n, c[0], c[1]), (2, 0, 1));
        // itet ne (bf16, as GNU as encodes it): NE, EQ, NE
        let (c, n) = it_conds(0xbf16);
        assert_eq!((n, c[0], c[1], c[2]), (3, 1, 0, 1));
        // itte ne (bf1a): NE, NE, EQ
        let (c, n) = it_conds(0xbf1a);
        assert_eq!((n, c[0], c[1], c[2]), (3, 1, 1, 0));
        // itttt gt (bfc1): four slots, all GT
        let (c, n) = it_conds(0xbfc1);
        assert_eq!((n, c), (4, [0xc; 4]));
    }

    #[test]
    fn flag_setters() {
        let one = |a: u16, b: u16| may_set_flags(&DecodedInsn::new(0, a, b));
        assert!(one(0x2800, 0), "cmp r0, #0");
        assert!(one(0x4288, 0), "cmp r0, r1");
        assert!(one(0x4208, 0), "tst r0, r1");
        assert!(one(0xf110, 0x0001), "adds.w r0, r0, #1");
        assert!(one(0xea50, 0x0001), "orrs.w r0, r0, r1");
        assert!(one(0xeef1, 0xfa10), "vmrs APSR_nzcv, fpscr");
        assert!(!one(0x3001, 0), "adds r0, #1 (no flags inside IT)");
        assert!(!one(0xf100, 0x0001), "add.w r0, r0, #1");
        assert!(!one(0x6800, 0), "ldr r0, [r0]");
        assert!(!one(0xed20, 0x8a10), "vstmdb r0!, {{s16-s31}}");
    }

    #[test]
    fn skipped_instructions_cost_one_cycle() {
        let m3 = model("cortex-m3");
        // it eq; ldreq r0, [r1]; bx lr: a failed LDR (2) costs 1
        let b = block(0x100, &[(0xbf08, 0), (0x6808, 0), (0x4770, 0)]);
        let g = it_groups(&b, &m3, None).groups;
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].at, 1);
        assert_eq!(g[0].n, 1);
        assert_eq!(g[0].delta(Z), 0, "EQ passes: executed");
        assert_eq!(g[0].delta(0) as i64, -1, "EQ fails: 2 -> 1");
        // itt ne; ldrne r0,[r1]; ldrne r2,[r3]: pipelined pair 2 + 1
        let b = block(0x100, &[(0xbf1c, 0), (0x6808, 0), (0x681a, 0), (0x4770, 0)]);
        let g = it_groups(&b, &m3, None).groups;
        assert_eq!(g[0].n, 2);
        assert_eq!(g[0].deltas[0b01], 0, "first skipped: nop 1 + ldr 2");
        assert_eq!(g[0].deltas[0b10], 0, "second skipped: ldr 2 + nop 1");
        assert_eq!(g[0].deltas[0b11], -1, "both skipped: 1 + 1");
        assert_eq!(g[0].delta(0), 0, "NE passes");
        assert_eq!(g[0].delta(Z) as i64, -1);
        // stmdb r0!, {r4-r11, lr} in an IT block: 1 + 9 -> 1
        let b = block(0x100, &[(0xbf08, 0), (0xe920, 0x4ff0), (0x4770, 0)]);
        assert_eq!(it_groups(&b, &m3, None).groups[0].deltas[1], -9);
        // ite eq; moveq; movne: every outcome costs the same: no callback
        let b = block(0x100, &[(0xbf0c, 0), (0x2001, 0), (0x2000, 0), (0x4770, 0)]);
        assert!(it_groups(&b, &m3, None).groups.is_empty());
        assert!(it_groups(&b, &ZeroModel, None).groups.is_empty());
    }

    #[test]
    fn skipped_fp_multiple_on_m4() {
        let m4 = model("cortex-m4");
        // tst lr, #16; it eq; vstmdbeq r0!, {s16-s31}; bx lr (FreeRTOS ARM_CM4F PendSV)
        let b = block(
            0x100,
            &[(0xf01e, 0x0f10), (0xbf08, 0), (0xed20, 0x8a10), (0x4770, 0)],
        );
        let costs = m4.block_costs(&b).cycles;
        let g = it_groups(&b, &m4, None).groups;
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].at, 2);
        assert_eq!(
            g[0].delta(0) as i64,
            1 - i64::from(costs[2]),
            "skipped: 1 cycle"
        );
        assert_eq!(g[0].delta(Z), 0);
    }

    #[test]
    fn flags_written_inside_the_block_stop_the_correction() {
        let m3 = model("cortex-m3");
        // itt ne; cmpne r0, #0; ldrne r0, [r1]: only the CMP slot is followed (costs the same)
        let b = block(0x100, &[(0xbf1c, 0), (0x2800, 0), (0x6808, 0), (0x4770, 0)]);
        assert!(it_groups(&b, &m3, None).groups.is_empty());
    }

    #[test]
    fn an_it_block_cut_by_the_block_end_continues_in_the_next() {
        let m3 = model("cortex-m3");
        // itte ne | ldrne r0,[r1]; stmne.w r7,{r0-r3}; ldreq r2,[r3]; bx lr: the IT
        // instruction ends a block
        let first = block(0xfc, &[(0xbf1a, 0)]);
        let p = it_groups(&first, &m3, None);
        assert!(p.groups.is_empty());
        let tail = ItTail {
            conds: [1, 1, 0, 0],
            n: 3,
        };
        assert_eq!(p.tail, Some((0xfe, tail)), "all three slots go on at 0xfe");
        let next = block(
            0xfe,
            &[(0x6808, 0), (0xe887, 0x000f), (0x681a, 0), (0x4770, 0)],
        );
        let p = it_groups(&next, &m3, Some(tail));
        assert_eq!(p.tail, None);
        assert_eq!((p.groups[0].at, p.groups[0].n), (0, 3));
        assert_eq!(
            p.groups[0].delta(Z) as i64,
            -1 - 4,
            "EQ: LDRNE 2 -> 1, STMNE 1+4 -> 1"
        );
        assert_eq!(p.groups[0].delta(0) as i64, -1, "NE: LDREQ 2 -> 1");
        // cut after the first slot: one slot here, two handed on
        let b = block(0x100, &[(0xbf1a, 0), (0x6808, 0)]);
        let p = it_groups(&b, &m3, None);
        assert_eq!(p.groups[0].n, 1);
        assert_eq!(
            p.tail,
            Some((
                0x104,
                ItTail {
                    conds: [1, 0, 0, 0],
                    n: 2
                }
            ))
        );
        // no tail after a slot that may set the flags
        let b = block(0x100, &[(0xbf1c, 0), (0x2800, 0)]);
        assert_eq!(it_groups(&b, &m3, None).tail, None);
    }
}
