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
//! cycles before it (less, with a dynamic cost model, the part of the block-entry charge
//! that belongs to the store or to instructions after it: `cost::Charge::from_insn`).
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

use crate::cost::CostModel;
use crate::decoded::DecodedInsn;
use crate::flow::TbShape;

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

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TbPlan {
    pub shape: TbShape,
    pub segments: Vec<Segment>,
    pub stores: Vec<StoreSite>,
    /// Instructions (loads) that need a memory callback for data wait states.
    pub data_ws_sites: Vec<usize>,
    /// The block's last instruction can send execution backwards (backward or indirect
    /// branch, exception, WFI). Every loop passes through such a block, so the
    /// instruction-limit check only needs a callback on these.
    pub may_loop: bool,
}

/// Plan the instrumentation of a non-empty block. `handlers`: exception handler entry
/// addresses, sorted (bit 0 clear).
pub fn plan_tb(insns: &[DecodedInsn], model: &dyn CostModel, handlers: &[u32]) -> TbPlan {
    assert!(!insns.is_empty(), "empty translation block");
    let costs = model.block_costs(insns);
    debug_assert_eq!(costs.cycles.len(), insns.len());
    debug_assert_eq!(costs.tail_ctx.len(), insns.len());
    let mut segments = Vec::new();
    let mut stores = Vec::new();
    let mut data_ws_sites = Vec::new();
    let mut seg_start = 0usize;
    let mut seg_cycles = 0u64;
    for (i, d) in insns.iter().enumerate() {
        let c = costs.cycles[i];
        seg_cycles += u64::from(c);
        if d.insn.mem.may_store() {
            stores.push(StoreSite { idx: i, cycles: c });
        } else if d.insn.mem.may_access() && model.data_ws_callback(d) {
            data_ws_sites.push(i);
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
    let shape = TbShape::new(
        insns,
        handlers,
        model.head_cycles(&insns[0]),
        costs.tail_ctx,
        costs.head_ctx,
    );
    TbPlan {
        shape,
        segments,
        stores,
        data_ws_sites,
        may_loop: !last.insn.only_forward(last.pc),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cost::ZeroModel;

    /// A test model: 1 cycle per instruction, 2 per memory access, 3 per store.
    struct Toy;
    impl CostModel for Toy {
        fn name(&self) -> &'static str {
            "toy"
        }
        fn models_cycles(&self) -> bool {
            true
        }
        fn block_costs(&self, insns: &[DecodedInsn]) -> crate::cost::BlockCosts {
            crate::cost::BlockCosts {
                cycles: insns
                    .iter()
                    .map(|d| match d.insn.mem {
                        crate::thumb::Mem::Store => 3,
                        crate::thumb::Mem::None => 1,
                        _ => 2,
                    })
                    .collect(),
                tail_ctx: (1..=insns.len() as u64).collect(),
                head_ctx: 7,
            }
        }
        fn data_ws_callback(&self, _insn: &DecodedInsn) -> bool {
            true
        }
    }

    fn block(start: u64, encs: &[(u16, u16)]) -> Vec<DecodedInsn> {
        let mut pc = start;
        encs.iter()
            .map(|&(a, b)| {
                let d = DecodedInsn::new(pc, a, b);
                pc += u64::from(d.insn.len);
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
        let p = plan_tb(&b, &ZeroModel, &[]);
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
        assert_eq!(p.shape.pcs[7], 0x100 + 4 + 4 + 2 + 4 + 4 + 2 + 2);
        assert_eq!(p.shape.fallthrough, u64::from(p.shape.pcs[7]) + 2);
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
        let p = plan_tb(&b, &Toy, &[]);
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
        let fwd = plan_tb(&block(0, &[(0x3001, 0), (0xe002, 0)]), &ZeroModel, &[]); // b.n +8
        assert!(!fwd.may_loop);
        let seq = plan_tb(&block(0, &[(0x3001, 0), (0x3001, 0)]), &ZeroModel, &[]);
        assert!(!seq.may_loop);
        let back = plan_tb(&block(0x20, &[(0x3001, 0), (0xd1fc, 0)]), &ZeroModel, &[]); // bne back
        assert!(back.may_loop);
        let svc = plan_tb(&block(0, &[(0xdf00, 0)]), &ZeroModel, &[]);
        assert!(svc.may_loop);
        let wfi = plan_tb(&block(0, &[(0xbf30, 0)]), &ZeroModel, &[]);
        assert!(wfi.may_loop);
    }

    #[test]
    fn shape_and_handlers() {
        let b = block(0x14, &[(0x3001, 0), (0x6800, 0), (0x3001, 0)]);
        let p = plan_tb(&b, &ZeroModel, &[0x10, 0x14, 0x20]);
        assert!(p.shape.is_handler);
        assert_eq!(&*p.shape.pcs, &[0x14, 0x16, 0x18]);
        assert_eq!(p.shape.fallthrough, 0x1a);
        assert_eq!(p.shape.resume_pc(2), 0x18, "left after the load");
        assert_eq!(p.shape.resume_pc(3), 0x1a);
        assert!(
            p.data_ws_sites.is_empty(),
            "the zero model wants no load callbacks"
        );
        let p = plan_tb(&b, &Toy, &[0x10]);
        assert_eq!(
            (p.shape.tail_ctx_after(2), p.shape.tail_ctx_after(3)),
            (2, 3)
        );
        assert_eq!(p.shape.head_ctx, 7);
        assert!(!p.shape.is_handler);
        assert_eq!(p.data_ws_sites, vec![1], "the load");
    }
}
