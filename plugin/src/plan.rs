//! What to instrument in one translation block, decided at translation time.
//!
//! # Counting scheme (why the count is exact)
//!
//! Two global counters, `insns` and `cycles`, are advanced by QEMU *inline* adds that
//! TCG emits into the translated code (no helper call). The block is cut into
//! **segments**: a segment ends at every instruction that may access memory (and at the
//! block's end). An inline add placed on a segment's first instruction adds the whole
//! segment (its instruction count and its static cycles). So when the last instruction
//! of a segment runs, the counters include that instruction; a store is always the last
//! instruction of its segment, so its memory callback (which QEMU runs after the access)
//! reads `insns - 1` = instructions completed before the store, and `cycles - cost` =
//! cycles before it.
//!
//! Why segments end at memory accesses rather than the whole block being added once at
//! block entry: QEMU leaves a block in the middle only at a memory access. Faults are
//! one case; the one that happens in normal runs is `-icount`'s I/O rule. Under icount
//! an access to an MMIO device (UART, SysTick, NVIC/SCB registers such as ICSR when an
//! RTOS pends PendSV) is only allowed as the last instruction of a block. When one
//! occurs mid-block QEMU abandons the block at that instruction (`cpu_io_recompile`),
//! re-executes the access alone in a block instrumented for memory callbacks only
//! (`CF_MEMI_ONLY`: no block or instruction callbacks, no inline adds), then continues
//! with a fresh block at the next instruction. A per-block "add N at entry" would count
//! the abandoned tail twice. With segments, the abandoned block has counted exactly up
//! to and including the I/O instruction, the memory-only block counts nothing, and the
//! fresh block counts the rest.
//!
//! Other exits: synchronous exceptions (SVC, BKPT incl. semihosting, UDF) always end a
//! block, so the instruction that raises them is the block's last and is counted once.
//! Interrupts are taken only between blocks (QEMU checks for them in the block prologue,
//! before any plugin code runs), so a block that was entered has run to its end or to a
//! memory access as above. A store into a page holding translated code (self-modifying
//! code) also restarts mid-block; the firmware keeps code and data apart, so this does
//! not occur.

use crate::cost::{CostModel, TbExit};
use crate::thumb::Insn;

/// One decoded instruction of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodedInsn {
    pub pc: u64,
    pub insn: Insn,
}

/// An inline add to place on instruction `first`: `insns` instructions and `cycles`
/// static cycles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub first: usize,
    pub insns: u32,
    pub cycles: u64,
}

/// A store to watch: instruction index in the block and its static cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoreSite {
    pub idx: usize,
    pub cycles: u32,
}

/// How a block is shaped, kept for the runtime when a per-block callback is registered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TbShape {
    pub start: u64,
    pub n_insns: u32,
    pub last_pc: u64,
    pub last: Insn,
    pub fallthrough: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TbPlan {
    pub shape: TbShape,
    pub segments: Vec<Segment>,
    pub stores: Vec<StoreSite>,
    /// The block's last instruction can send execution backwards (backward or indirect
    /// branch, exception, WFI). Every loop passes through such a block, so the
    /// instruction-limit check only needs a callback on these.
    pub may_loop: bool,
}

/// Plan the instrumentation of a non-empty block.
pub fn plan_tb(insns: &[DecodedInsn], model: &dyn CostModel) -> TbPlan {
    assert!(!insns.is_empty(), "empty translation block");
    let mut segments = Vec::new();
    let mut stores = Vec::new();
    let mut seg_start = 0usize;
    let mut seg_cycles = 0u64;
    for (i, d) in insns.iter().enumerate() {
        let c = model.insn_cycles(&d.insn, d.pc);
        seg_cycles += u64::from(c);
        if d.insn.mem.may_store() {
            stores.push(StoreSite { idx: i, cycles: c });
        }
        if d.insn.mem.may_access() || i == insns.len() - 1 {
            segments.push(Segment {
                first: seg_start,
                insns: (i + 1 - seg_start) as u32,
                cycles: seg_cycles,
            });
            seg_start = i + 1;
            seg_cycles = 0;
        }
    }
    let last = insns[insns.len() - 1];
    let shape = TbShape {
        start: insns[0].pc,
        n_insns: insns.len() as u32,
        last_pc: last.pc,
        last: last.insn,
        fallthrough: (last.pc + u64::from(last.insn.len)) & 0xFFFF_FFFF,
    };
    TbPlan {
        shape,
        segments,
        stores,
        may_loop: !last.insn.only_forward(last.pc),
    }
}

/// Tracks block-to-block transitions for a dynamic cost model. Runs on the vCPU thread
/// in the per-block callback, which fires at block entry, before the block's own inline
/// adds.
#[derive(Debug, Default)]
pub struct Transitions {
    prev: Option<(TbShape, u64)>,
}

impl Transitions {
    /// Enter block `tb` with the instruction counter at `insns_now`. Returns the exit of
    /// the previous block, if any, with `completed` set from how many of its
    /// instructions were counted since it was entered.
    pub fn enter(&mut self, tb: TbShape, insns_now: u64) -> Option<TbExit> {
        let exit = self.prev.map(|(p, entered_at)| TbExit {
            last_pc: p.last_pc,
            last: p.last,
            fallthrough: p.fallthrough,
            completed: insns_now.wrapping_sub(entered_at) == u64::from(p.n_insns),
        });
        self.prev = Some((tb, insns_now));
        exit
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cost::ZeroModel;
    use crate::thumb::decode;

    /// A test model: 1 cycle per instruction, 2 per memory access, 3 per store.
    struct Toy;
    impl CostModel for Toy {
        fn name(&self) -> &'static str {
            "toy"
        }
        fn models_cycles(&self) -> bool {
            true
        }
        fn insn_cycles(&self, insn: &Insn, _pc: u64) -> u32 {
            match insn.mem {
                crate::thumb::Mem::Store => 3,
                crate::thumb::Mem::None => 1,
                _ => 2,
            }
        }
    }

    fn block(start: u64, encs: &[(u16, u16)]) -> Vec<DecodedInsn> {
        let mut pc = start;
        encs.iter()
            .map(|&(a, b)| {
                let insn = decode(a, b);
                let d = DecodedInsn { pc, insn };
                pc += u64::from(insn.len);
                d
            })
            .collect()
    }

    #[test]
    fn probe_pair_segments() {
        // movw r0,#0; movt r0,#0x2100; str r0,[r0]; movw r0,#4; movt r0,#0x2100;
        // str r0,[r0]; nop; b .
        let b = block(
            0x100,
            &[
                (0xf240, 0x0000),
                (0xf2c2, 0x1000),
                (0x6000, 0),
                (0xf240, 0x0004),
                (0xf2c2, 0x1000),
                (0x6000, 0),
                (0xbf00, 0),
                (0xe7fe, 0),
            ],
        );
        let p = plan_tb(&b, &ZeroModel);
        assert_eq!(
            p.segments,
            vec![
                Segment {
                    first: 0,
                    insns: 3,
                    cycles: 0
                },
                Segment {
                    first: 3,
                    insns: 3,
                    cycles: 0
                },
                Segment {
                    first: 6,
                    insns: 2,
                    cycles: 0
                },
            ]
        );
        assert_eq!(
            p.stores,
            vec![
                StoreSite { idx: 2, cycles: 0 },
                StoreSite { idx: 5, cycles: 0 }
            ]
        );
        assert_eq!(p.shape.n_insns, 8);
        assert_eq!(p.shape.start, 0x100);
        assert_eq!(p.shape.last_pc, 0x100 + 4 + 4 + 2 + 4 + 4 + 2 + 2);
        assert_eq!(p.shape.fallthrough, p.shape.last_pc + 2);
        assert!(p.may_loop, "ends in b .");
        // Simulate: counter after each segment; the store callback sees counter-1.
        let mut counter = 0u64;
        let mut seen = Vec::new();
        for s in &p.segments {
            counter += u64::from(s.insns);
            let last = s.first + s.insns as usize - 1;
            if p.stores.iter().any(|st| st.idx == last) {
                seen.push(counter - 1);
            }
        }
        assert_eq!(seen, vec![2, 5], "insns before each store: 2 and 2+3");
    }

    #[test]
    fn loads_end_segments_and_costs_sum() {
        // adds; ldr r0,[r0]; adds; adds; str r0,[r1]; bx lr
        let b = block(
            0,
            &[
                (0x3001, 0),
                (0x6800, 0),
                (0x3001, 0),
                (0x3001, 0),
                (0x6008, 0),
                (0x4770, 0),
            ],
        );
        let p = plan_tb(&b, &Toy);
        assert_eq!(
            p.segments,
            vec![
                Segment {
                    first: 0,
                    insns: 2,
                    cycles: 1 + 2
                },
                Segment {
                    first: 2,
                    insns: 3,
                    cycles: 1 + 1 + 3
                },
                Segment {
                    first: 5,
                    insns: 1,
                    cycles: 1
                },
            ]
        );
        assert_eq!(p.stores, vec![StoreSite { idx: 4, cycles: 3 }]);
        let total: u32 = p.segments.iter().map(|s| s.insns).sum();
        assert_eq!(total, 6);
        assert!(p.may_loop, "bx lr is indirect");
    }

    #[test]
    fn forward_blocks_need_no_limit_check() {
        let fwd = plan_tb(&block(0, &[(0x3001, 0), (0xe002, 0)]), &ZeroModel); // b.n +8
        assert!(!fwd.may_loop);
        let seq = plan_tb(&block(0, &[(0x3001, 0), (0x3001, 0)]), &ZeroModel);
        assert!(!seq.may_loop);
        let back = plan_tb(&block(0x20, &[(0x3001, 0), (0xd1fc, 0)]), &ZeroModel); // bne back
        assert!(back.may_loop);
        let svc = plan_tb(&block(0, &[(0xdf00, 0)]), &ZeroModel);
        assert!(svc.may_loop);
        let wfi = plan_tb(&block(0, &[(0xbf30, 0)]), &ZeroModel);
        assert!(wfi.may_loop);
    }

    #[test]
    fn transitions_detect_taken_and_partial() {
        let a = plan_tb(&block(0x10, &[(0x3001, 0), (0xd1fc, 0)]), &ZeroModel).shape; // 2 insns
        let b = plan_tb(
            &block(0x14, &[(0x3001, 0), (0x6800, 0), (0x3001, 0)]),
            &ZeroModel,
        )
        .shape;
        let mut t = Transitions::default();
        assert_eq!(t.enter(a, 100), None);
        // a ran both instructions and control went to 0x0c (branch taken)
        let e = t.enter(a, 102).unwrap();
        assert!(e.completed);
        assert!(e.redirected(0x10));
        // a ran fully and fell through into b at 0x14
        let e = t.enter(b, 104).unwrap();
        assert!(e.completed && !e.redirected(0x14));
        // b stopped after its load (2 of 3 counted): next block at the following insn
        let e = t.enter(a, 106).unwrap();
        assert!(!e.completed);
        assert!(!e.redirected(0x10));
    }
}
