//! The per-vCPU state machine behind the plugin's callbacks, without QEMU: what a block
//! entry charges (the model's event charge, remembered per pair of blocks, plus the FP
//! context), the point a probe store or a masking instruction marks, the PC value an
//! exception-return-capable branch loads, and the live vector table.
//!
//! `runtime` keeps the QEMU glue: it owns the counters (QEMU's scoreboard), registers the
//! callbacks, and passes each vCPU's [`Core`] and a [`Guest`] (QEMU's register and memory
//! reads) in here; it adds the charges this module returns to the vCPU's cycle counter
//! and writes the files (trace, events, masked windows). The unit tests below drive the
//! same code with a guest in a table and counters in two integers.

use crate::cost::{Charge, CostModel};
use crate::flow::{Event, Seen, TargetSrc, TbShape, Tracker};
use crate::fpctx::{EntryState, FpContext};
use crate::timing::CycleModel;

/// Vector Table Offset Register and Interrupt Controller Type Register (ARMv7-M ARM
/// B3.2.2 and B3.4.3; the same addresses on ARMv6-M, whose VTOR is optional).
pub const VTOR: u32 = 0xE000_ED08;
pub const ICTR: u32 = 0xE000_E004;
/// Floating-point Context Control Register (ARMv7-M ARM B3.2.2, FP extension): bit 0
/// LSPACT, bit 30 LSPEN.
pub const FPCCR: u32 = 0xE000_EF34;

/// What the engine reads of the machine, only where it decides something: the core
/// registers at an exception entry (LR) or before an exception-return-capable branch, and
/// memory (the vector table, VTOR, ICTR, FPCCR, a branch's loaded PC value).
pub trait Guest {
    /// Core register `r` (0-12, 13 SP, 14 LR); None when unreadable.
    fn reg(&self, r: u8) -> Option<u32>;
    /// `n` little-endian words at `addr`; None when not readable.
    fn words(&self, addr: u32, n: usize) -> Option<Vec<u32>>;
}

/// The machine-wide part: the cost model and what it allows.
pub struct Engine {
    pub model: &'static dyn CostModel,
    /// The same model when it is a Cortex-M cycle model (the only dynamic one): the
    /// block-entry path calls it directly, so its charge is inlined there.
    pub cycle: Option<&'static CycleModel>,
    /// Block-entry charges may be remembered per pair of blocks (`Block`): the model's
    /// charge has no run-time state (not the ART cache), one vCPU (the memo lives in the
    /// shared `Block`), and no debug output is wanted.
    pub memo: bool,
    /// With a priced FPU: the FP context words of an extended frame (`fpctx`).
    pub fp_words: Option<u32>,
    /// `Fresh::prev_pc` is wanted (masked-window tracking); else it is 0.
    pub prev_pc: bool,
}

/// How many entries from different predecessors a block remembers (`Block::memo_prev`).
/// One was not enough: on perf_mix 18% of block entries came from another predecessor
/// than the remembered one (loop heads, joins), and each took the full path.
pub const MEMO_WAYS: usize = 2;

/// A translated block as its entry callback sees it: its shape, and the charges of the
/// last `MEMO_WAYS` `Next` or `Taken` entries into it from different blocks with a pure
/// exit (`memo_prev[i]` the block, null when none; `memo_charge[i]` its charge), which
/// every later entry from such a block run whole repeats (`Tracker::enter_again`). A new
/// predecessor replaces the oldest one. Kept for the block's lifetime; touched on the one
/// round-robin thread only (the memo is off with more than one vCPU: `Engine::memo`).
pub struct Block {
    pub shape: TbShape,
    /// The block executes a floating-point instruction (lazy FP stacking: `fpctx`).
    pub has_fp: bool,
    memo_prev: [std::cell::Cell<*const TbShape>; MEMO_WAYS],
    memo_charge: [std::cell::Cell<Charge>; MEMO_WAYS],
    /// `memo_charge[i].total()`, computed once.
    memo_total: [std::cell::Cell<u64>; MEMO_WAYS],
    /// The slot the next new predecessor takes (oldest first).
    memo_next: std::cell::Cell<u8>,
}

// SAFETY: the cells are only touched from callbacks on the one round-robin thread.
unsafe impl Sync for Block {}
unsafe impl Send for Block {}

impl Block {
    pub fn new(shape: TbShape, has_fp: bool) -> Block {
        use std::cell::Cell;
        Block {
            shape,
            has_fp,
            memo_prev: std::array::from_fn(|_| Cell::new(std::ptr::null())),
            memo_charge: std::array::from_fn(|_| Cell::new(Charge::default())),
            memo_total: std::array::from_fn(|_| Cell::new(0)),
            memo_next: Cell::new(0),
        }
    }

    /// The remembered charge of an entry from `key` (a pure previous block), if any.
    #[inline(always)]
    fn memo_find(&self, key: *const TbShape) -> Option<Charge> {
        (0..MEMO_WAYS)
            .find(|&i| std::ptr::eq(self.memo_prev[i].get(), key))
            .map(|i| self.memo_charge[i].get())
    }

    /// Remember `charge` for entries from `key`, in place of the oldest entry.
    fn memo_put(&self, key: *const TbShape, charge: Charge) {
        let i = usize::from(self.memo_next.get());
        self.memo_prev[i].set(key);
        self.memo_charge[i].set(charge);
        self.memo_total[i].set(charge.total());
        self.memo_next.set(((i + 1) % MEMO_WAYS) as u8);
    }
}

/// The exception vectors' targets as the guest's memory holds them now, re-read after a
/// store into the table or into VTOR (`note_store` bumps `generation`).
#[derive(Debug)]
pub struct LiveVectors {
    generation: u64,
    /// `generation` when `targets` were read; `u64::MAX`: never.
    read_at: u64,
    /// Handler entry addresses (Thumb bit clear), sorted.
    targets: Vec<u32>,
    /// The table's address range, [lo, lo + len).
    lo: u64,
    len: u64,
}

impl Default for LiveVectors {
    fn default() -> LiveVectors {
        LiveVectors {
            generation: 0,
            read_at: u64::MAX,
            targets: Vec::new(),
            lo: 0,
            len: 0,
        }
    }
}

impl LiveVectors {
    /// A store at `vaddr`: into the table it may change it; into VTOR (`own`: by this
    /// core, whose System Control Space holds its VTOR) it moves it. Re-read at the next
    /// lookup.
    #[inline(always)]
    pub fn note_store(&mut self, vaddr: u64, own: bool) {
        if vaddr.wrapping_sub(self.lo) < self.len || (own && vaddr == u64::from(VTOR)) {
            self.generation += 1;
        }
    }

    /// Is `addr` the target of an entry of the live vector table? Re-reads the table (at
    /// VTOR, 16 + the implemented external interrupts from ICTR, at most 256 entries)
    /// when a store may have changed it.
    pub fn is_target(&mut self, guest: &impl Guest, addr: u64) -> bool {
        if self.read_at != self.generation {
            let vtor = guest.words(VTOR, 1).map_or(0, |w| w[0] & !0x7F);
            let irqs = guest
                .words(ICTR, 1)
                .map_or(32, |w| 32 * ((w[0] as usize & 0xF) + 1));
            let n = (16 + irqs).min(256);
            let mut targets: Vec<u32> = guest
                .words(vtor, n)
                .unwrap_or_default()
                .iter()
                .skip(1) // the initial stack pointer
                .filter(|&&w| w != 0)
                .map(|&w| w & !1)
                .collect();
            targets.sort_unstable();
            targets.dedup();
            self.targets = targets;
            self.lo = u64::from(vtor);
            self.len = 4 * n as u64;
            self.read_at = self.generation;
        }
        u32::try_from(addr).is_ok_and(|a| self.targets.binary_search(&a).is_ok())
    }
}

/// One vCPU's state: the previous block and active exceptions, what the current block's
/// entry charged, the PC value the last exception-return-capable branch loaded, the live
/// vector table (each core has its own VTOR) and the FP context.
///
/// Laid out for the block-entry path: the fields every entry touches (the tracker, the
/// entry charge, the seen target) first, in one cache line.
#[derive(Debug, Default)]
#[repr(C, align(64))]
pub struct Core {
    pub tracker: Tracker<'static>,
    /// What the current block's entry charged: a probe store in the block must not count
    /// the part that belongs to it or to later instructions.
    pub entry_charge: Charge,
    /// Read just before the last exception-return-capable branch ran (taken by the next
    /// block entry).
    pub seen_target: Option<u32>,
    pub vectors: LiveVectors,
    /// Used only with a priced FPU (`Engine::fp_words`).
    pub fp: FpContext,
}

/// A block entry whose event was worked out (not a remembered one): what the glue needs
/// for its files (timeline, masked windows, debug output).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fresh {
    pub ev: Event,
    /// The model's charge for the event, before the FP context's part.
    pub charge: Charge,
    /// The previous block's last instruction (0 before the first block, or when not
    /// wanted: `Engine::prev_pc`).
    pub prev_pc: u32,
}

impl Core {
    /// The counts at a probe store, instruction `idx` of the current block with static
    /// cost `cost`, given the counters (`insns`, `cycles`) with the store's segment added
    /// (the store is the segment's last instruction): everything before the store, nothing
    /// of it or of later instructions (the block entry's charge may include theirs).
    #[inline(always)]
    pub fn probe_point(&self, insns: u64, cycles: u64, cost: u32, idx: usize) -> (u64, u64) {
        (
            insns.wrapping_sub(1),
            cycles
                .wrapping_sub(u64::from(cost))
                .wrapping_sub(self.entry_charge.from_insn(idx)),
        )
    }

    /// The counts at the completion of instruction `idx` of the current block, given the
    /// counters with its segment added and the instructions after it in that segment
    /// (`suffix_insns`, their static cycles `suffix_cycles`).
    pub fn point_after(
        &self,
        insns: u64,
        cycles: u64,
        idx: usize,
        suffix_insns: u64,
        suffix_cycles: u64,
    ) -> (u64, u64) {
        (
            insns.wrapping_sub(suffix_insns),
            cycles
                .wrapping_sub(suffix_cycles)
                .wrapping_sub(self.entry_charge.from_insn(idx + 1)),
        )
    }

    /// Just before an exception-return-capable branch runs (only while an exception is
    /// active): read the value it is about to load into the PC, for the next block entry.
    pub fn see_exc_ret_branch(&mut self, src: TargetSrc, guest: &impl Guest) {
        self.seen_target = match src {
            TargetSrc::Reg(r) => guest.reg(r),
            TargetSrc::Mem {
                base,
                offset,
                index,
            } => (|| {
                let mut addr = guest.reg(base)?.wrapping_add(offset as u32);
                if let Some((rm, shift)) = index {
                    addr = addr.wrapping_add(guest.reg(rm)? << shift);
                }
                guest.words(addr, 1).map(|w| w[0])
            })(),
        };
    }
}

impl Engine {
    /// The common block entry on a single-vCPU machine: a remembered one into a block
    /// without floating point (its event is `Next` or `Taken`: no exception state
    /// changes, no file has an event due). Records it and returns the cycles to add;
    /// None, having changed nothing, when the entry is not such a one. The caller checks
    /// `memo` and `has_fp`.
    #[inline(always)]
    pub fn enter_remembered(&self, core: &mut Core, blk: &'static Block, now: u64) -> Option<u64> {
        // `enter_again` checks the key first, then that the block has a pure exit and ran
        // whole; it changes nothing when it returns false.
        let i = (0..MEMO_WAYS).find(|&i| {
            core.tracker
                .enter_again(&blk.shape, now, blk.memo_prev[i].get())
        })?;
        core.seen_target = None;
        core.entry_charge = blk.memo_charge[i].get();
        Some(blk.memo_total[i].get())
    }

    /// Block `blk` is entered with the vCPU's instruction counter at `now` (the block's
    /// own counting has not happened yet): its event and charge, recorded in `core`
    /// (`entry_charge`). The caller adds `entry_charge.total()` to the cycle counter.
    /// Returns the event when it was worked out rather than remembered.
    #[inline(always)]
    pub fn enter(
        &self,
        core: &mut Core,
        blk: &'static Block,
        now: u64,
        guest: &impl Guest,
    ) -> Option<Fresh> {
        let shape = &blk.shape;
        let Core {
            tracker: tr,
            entry_charge,
            seen_target,
            vectors,
            fp,
        } = core;
        let seen = Seen {
            target: seen_target.take(),
        };
        // A remembered entry from the previous block, if it has a pure exit and ran whole.
        let memo = if self.memo {
            tr.pure_prev(now)
                .and_then(|k| blk.memo_find(k).map(|c| (k, c)))
        } else {
            None
        };
        let (charge, fresh) = if let Some((k, c)) = memo
            && tr.enter_again(shape, now, k)
        {
            // The same event as the remembered entry: a pure function of the two blocks
            // and a model without run-time state (`Engine::memo`).
            (c, None)
        } else {
            let key = tr.pure_prev(now);
            let prev_pc = if self.prev_pc { tr.prev_last_pc() } else { 0 };
            let ev = tr.enter_seen(shape, now, seen, |addr| vectors.is_target(guest, addr));
            let charge = match (ev, self.cycle) {
                (Event::None, _) => Charge::default(),
                (_, Some(m)) => m.event_charge(ev, shape),
                (_, None) => self.model.event_charge(ev, shape),
            };
            if let (Some(k), Event::Next(_) | Event::Taken(_)) = (key, ev) {
                blk.memo_put(k, charge);
            }
            (
                charge,
                Some(Fresh {
                    ev,
                    charge,
                    prev_pc,
                }),
            )
        };
        let ev = fresh.map_or(Event::None, |f| f.ev);
        *entry_charge = match self.fp_words {
            Some(words) if blk.has_fp || matches!(ev, Event::Entry | Event::Return) => {
                fp_charge(fp, words, ev, blk.has_fp, charge, guest)
            }
            _ => charge,
        };
        fresh
    }
}

/// Floating-point context (`fpctx`): the extended frame's FP words stored on entry or
/// restored on return, and the deferred (lazy) save, added to the cycles before the block
/// (a probe earlier in the block than its first FP instruction counts that save too).
/// Reads the machine at exception entry only: LR (EXC_RETURN) and, for an extended
/// frame, FPCCR.LSPACT.
#[cold]
#[inline(never)]
fn fp_charge(
    ctx: &mut FpContext,
    words: u32,
    ev: Event,
    has_fp: bool,
    charge: Charge,
    guest: &impl Guest,
) -> Charge {
    let mut extra = match ev {
        Event::Entry => {
            let exc_return = guest.reg(14).unwrap_or(u32::MAX);
            let st = EntryState {
                exc_return,
                // LSPACT unreadable: the reset value of LSPEN (1) makes the save lazy
                lspact: exc_return & 0x10 != 0
                    || guest.words(FPCCR, 1).is_none_or(|w| w[0] & 1 != 0),
            };
            ctx.entry(st, words)
        }
        Event::Return => ctx.ret(words),
        _ => 0,
    };
    extra += ctx.block(has_fp, words);
    if extra == 0 {
        return charge;
    }
    Charge::new(
        charge.before() + extra,
        charge.head(),
        charge.later(),
        charge.later_idx(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decoded::DecodedInsn;
    use crate::instrument::{TbPlan, plan_tb};
    use rtoslab_plugin_config::cores;
    use rtoslab_plugin_config::model::ModelConfig;
    use std::cell::Cell;
    use std::collections::BTreeMap;

    // Thumb encodings used below.
    const MOVS_R0_1: u16 = 0x2001;
    const MOVS_R1_0: u16 = 0x2100;
    const NOP: u16 = 0xBF00;
    const STR_R0_R1: u16 = 0x6008; // str r0, [r1]
    const BX_LR: u16 = 0x4770;
    const BL_HI: u16 = 0xF000; // bl (first halfword, offset high part 0)
    const POP_PC: u16 = 0xBD00; // pop {pc}
    const VADD_F32: (u16, u16) = (0xEE30, 0x0A20); // vadd.f32 s0, s0, s1

    /// B.N from `pc` to `to` (within +-2 KiB).
    fn b_to(pc: u64, to: u64) -> u16 {
        0xE000 | (((to as i64 - pc as i64 - 4) / 2) as u16 & 0x7FF)
    }

    /// A guest in a table: registers, memory words, and how often VTOR was read (each
    /// read of the vector table starts with one).
    #[derive(Default)]
    struct TableGuest {
        regs: BTreeMap<u8, u32>,
        mem: BTreeMap<u32, u32>,
        vtor_reads: Cell<u32>,
    }

    impl Guest for TableGuest {
        fn reg(&self, r: u8) -> Option<u32> {
            self.regs.get(&r).copied()
        }
        fn words(&self, addr: u32, n: usize) -> Option<Vec<u32>> {
            if addr == VTOR {
                self.vtor_reads.set(self.vtor_reads.get() + 1);
            }
            (0..n as u32)
                .map(|i| self.mem.get(&(addr + 4 * i)).copied())
                .collect()
        }
    }

    fn model(core: &str) -> &'static CycleModel {
        let cfg = ModelConfig {
            core: Some(cores::by_name(core).expect("core table")),
            ..ModelConfig::default()
        };
        Box::leak(Box::new(CycleModel::new(cfg).expect("a cycle model")))
    }

    fn engine(m: &'static CycleModel, memo: bool) -> Engine {
        Engine {
            model: m,
            cycle: Some(m),
            memo,
            fp_words: m.fp_context_words(),
            prev_pc: true,
        }
    }

    /// A translated block at `pc` (instructions as (hw1, hw2), hw2 ignored for 16-bit
    /// ones), its plan, and the `Block` the runtime would leak for it.
    fn block(m: &CycleModel, pc: u64, encs: &[(u16, u16)]) -> (&'static Block, TbPlan) {
        let mut at = pc;
        let insns: Vec<DecodedInsn> = encs
            .iter()
            .map(|&(a, b)| {
                let d = DecodedInsn::new(at, a, b);
                at += u64::from(d.insn.len);
                d
            })
            .collect();
        let plan = plan_tb(&insns, m, &[]);
        let has_fp =
            m.fp_context_words().is_some() && insns.iter().any(|d| crate::fpu::fp_op(d).is_some());
        let blk = Box::leak(Box::new(Block::new(plan.shape.clone(), has_fp)));
        (blk, plan)
    }

    fn short(encs: &[u16]) -> Vec<(u16, u16)> {
        encs.iter().map(|&h| (h, 0)).collect()
    }

    /// One vCPU as the runtime drives it: the engine, its core, and its two counters.
    struct Vcpu {
        engine: Engine,
        core: Core,
        insns: u64,
        cycles: u64,
    }

    impl Vcpu {
        fn new(engine: Engine) -> Vcpu {
            Vcpu {
                engine,
                core: Core::default(),
                insns: 0,
                cycles: 0,
            }
        }

        /// The block-entry callback (`runtime::on_tb_enter`): the charge is added.
        fn enter(&mut self, blk: &'static Block, guest: &TableGuest) -> Option<Fresh> {
            let f = self.engine.enter(&mut self.core, blk, self.insns, guest);
            self.cycles = self.cycles.wrapping_add(self.core.entry_charge.total());
            f
        }

        /// The block's counting segments (the inline adds) `range`.
        fn count(&mut self, plan: &TbPlan, range: std::ops::Range<usize>) {
            for s in &plan.segments[range] {
                self.insns += u64::from(s.insns);
                self.cycles += s.cycles;
            }
        }

        /// Enter and run a block whole.
        fn run(&mut self, blk: &'static Block, plan: &TbPlan, guest: &TableGuest) -> Option<Fresh> {
            let f = self.enter(blk, guest);
            self.count(plan, 0..plan.segments.len());
            f
        }
    }

    #[test]
    fn probe_store_after_a_taken_branch_counts_exactly_what_ran_before_it() {
        let m = model("cortex-m3");
        let g = TableGuest::default();
        // A: movs; nop; b B   B: movs r1,#0; str r0,[r1] (the probe store); b A
        let (a, pa) = block(m, 0x1000, &short(&[MOVS_R0_1, NOP, b_to(0x1004, 0x1010)]));
        let (b, pb) = block(
            m,
            0x1010,
            &short(&[MOVS_R1_0, STR_R0_R1, b_to(0x1014, 0x1000)]),
        );
        let mut v = Vcpu::new(engine(m, true));
        assert_eq!(v.run(a, &pa, &g).map(|f| f.ev), Some(Event::None));
        let f = v.enter(b, &g).expect("first entry: worked out");
        assert!(matches!(f.ev, Event::Taken(_)), "{:?}", f.ev);
        let st = pb.stores[0];
        assert_eq!(st.idx, 1);
        // The store's segment ends at the store: counted up to and including it.
        let seg = pb
            .segments
            .iter()
            .position(|s| s.first + s.insns as usize > st.idx)
            .unwrap();
        v.count(&pb, 0..seg + 1);
        let (insns, cycles) = v.core.probe_point(v.insns, v.cycles, st.cycles, st.idx);
        // Cortex-M3 (`cortex_m3` table): MOVS, NOP 1 each; B 1 + P, P = 1 for a branch
        // issued at decode (the refill, charged at B's entry); MOVS 1. The store itself
        // is not counted.
        assert_eq!((insns, cycles), (4, 1 + 1 + 1 + 1 + 1));
        // The same probe at the next entry along the same path, now remembered.
        v.count(&pb, seg + 1..pb.segments.len());
        let (i0, c0) = (v.insns, v.cycles);
        assert!(matches!(
            v.run(a, &pa, &g).map(|f| f.ev),
            Some(Event::Taken(_))
        ));
        assert_eq!(v.enter(b, &g), None, "remembered entry");
        v.count(&pb, 0..seg + 1);
        let again = v.core.probe_point(v.insns, v.cycles, st.cycles, st.idx);
        // This time A was entered by B's branch too: its refill (P = 1) comes first.
        assert_eq!((again.0 - i0, again.1 - c0), (insns, 1 + cycles));
    }

    #[test]
    fn probe_store_excludes_the_entry_charge_of_its_own_and_later_instructions() {
        // 5 cycles before the block, 2 of the first instruction, 3 of instruction 2.
        let core = Core {
            entry_charge: Charge::new(5, 2, 3, 2),
            ..Core::default()
        };
        let (insns, cycles) = (100, 1000 + 5 + 2 + 3);
        // A store at 0: only the before part is its predecessors'.
        assert_eq!(core.probe_point(insns, cycles, 4, 0), (99, 1000 + 5 - 4));
        // At 1: the first instruction's part too; instruction 2's is later.
        assert_eq!(
            core.probe_point(insns, cycles, 4, 1),
            (99, 1000 + 5 + 2 - 4)
        );
        // At 3: everything.
        assert_eq!(core.probe_point(insns, cycles, 4, 3), (99, 1000 + 10 - 4));
        // A masking instruction at 1 counts from its completion: instruction 2's part not.
        assert_eq!(core.point_after(insns, cycles, 1, 2, 7), (98, 1000 + 7 - 7));
        assert_eq!(core.point_after(insns, cycles, 2, 0, 0), (100, 1010));
    }

    #[test]
    fn memo_repeats_a_pure_entry_and_is_dropped_when_it_must_be() {
        let m = model("cortex-m3");
        let g = TableGuest::default();
        let (a, pa) = block(m, 0x1000, &short(&[MOVS_R0_1, NOP, b_to(0x1004, 0x1100)]));
        let (c, pc) = block(m, 0x1040, &short(&[NOP, b_to(0x1042, 0x1100)]));
        let (d, pd) = block(m, 0x1080, &short(&[NOP, NOP, b_to(0x1084, 0x1100)]));
        let (t, pt) = block(m, 0x1100, &short(&[NOP, NOP]));
        let mut v = Vcpu::new(engine(m, true));
        v.run(a, &pa, &g);
        let first = v.run(t, &pt, &g).expect("worked out");
        let taken = first.charge;
        // A -> T again: remembered, same charge, on both paths.
        v.run(a, &pa, &g);
        assert_eq!(v.run(t, &pt, &g), None);
        assert_eq!(v.core.entry_charge, taken);
        v.run(a, &pa, &g);
        let now = v.insns;
        assert_eq!(
            v.engine.enter_remembered(&mut v.core, t, now),
            Some(taken.total())
        );
        v.count(&pt, 0..pt.segments.len());
        // A left early (one instruction ran, an interrupt was taken): not the
        // remembered event, worked out afresh: an exception entry.
        v.enter(a, &g);
        v.insns += 1;
        let now = v.insns;
        assert_eq!(v.engine.enter_remembered(&mut v.core, t, now), None);
        let f = v.enter(t, &g).expect("not remembered: A did not run whole");
        assert_eq!(f.ev, Event::Entry);
        assert_ne!(f.charge, taken);
        // Two more predecessors: C is remembered beside A, D then replaces the oldest (A).
        for (blk, plan) in [(c, &pc), (d, &pd)] {
            v.run(blk, plan, &g);
            assert!(v.run(t, &pt, &g).is_some(), "new predecessor");
            v.run(blk, plan, &g);
            assert_eq!(v.run(t, &pt, &g), None, "now remembered");
        }
        v.run(a, &pa, &g);
        assert!(v.run(t, &pt, &g).is_some(), "A was replaced by D");
        v.run(d, &pd, &g);
        assert_eq!(v.run(t, &pt, &g), None, "D is still remembered");
        // Without the memo every entry is worked out.
        let mut w = Vcpu::new(engine(m, false));
        for _ in 0..3 {
            w.run(a, &pa, &g);
            assert!(w.run(t, &pt, &g).is_some());
            assert_eq!(w.core.entry_charge, taken);
        }
    }

    #[test]
    fn memo_never_keeps_an_entry_after_a_call_or_an_indirect_branch() {
        let m = model("cortex-m3");
        let g = TableGuest::default();
        // bl from 0x1000 to 0x1100 (offset 0xFC: hw2 = 0xF800 | 0x7E).
        let (a, pa) = block(m, 0x1000, &[(BL_HI, 0xF87E)]);
        let (f, pf) = block(m, 0x1100, &short(&[NOP, BX_LR]));
        let (r, pr) = block(m, 0x1004, &short(&[NOP, NOP]));
        let mut v = Vcpu::new(engine(m, true));
        for _ in 0..3 {
            assert!(v.run(a, &pa, &g).is_some());
            assert!(
                v.run(f, &pf, &g).is_some(),
                "entry after a call: worked out"
            );
            assert!(v.run(r, &pr, &g).is_some(), "entry after bx lr: worked out");
        }
    }

    /// A thread block, two handlers from the live vector table, and the returns.
    struct Exc {
        thread: (&'static Block, TbPlan),
        h1: (&'static Block, TbPlan),
        h1_rest: (&'static Block, TbPlan),
        h2: (&'static Block, TbPlan),
        resume: (&'static Block, TbPlan),
    }

    const H1: u64 = 0x3000;
    const H2: u64 = 0x3100;

    fn exc_blocks(m: &CycleModel, h1_fp: bool) -> Exc {
        let mut h1 = short(&[NOP, NOP]);
        if h1_fp {
            h1.insert(0, VADD_F32);
        }
        Exc {
            thread: block(m, 0x1000, &short(&[MOVS_R0_1, NOP])),
            h1: block(m, H1, &h1),
            h1_rest: block(m, H1 + 0x40, &short(&[NOP, BX_LR])),
            h2: block(m, H2, &short(&[NOP, BX_LR])),
            resume: block(m, 0x1004, &short(&[NOP, NOP])),
        }
    }

    /// A guest whose vector table (VTOR 0, ICTR 0: 48 entries) has H1 at SysTick (15)
    /// and H2 at IRQ 0 (16).
    fn vector_guest() -> TableGuest {
        let mut g = TableGuest::default();
        g.mem.insert(VTOR, 0);
        g.mem.insert(ICTR, 0);
        for i in 0..48 {
            g.mem.insert(4 * i, 0);
        }
        g.mem.insert(0, 0x2000_1000);
        g.mem.insert(4, 0x1001);
        g.mem.insert(4 * 15, H1 as u32 | 1);
        g.mem.insert(4 * 16, H2 as u32 | 1);
        g
    }

    #[test]
    fn nested_exceptions_enter_and_return_through_the_live_vector_table() {
        let m = model("cortex-m3");
        let x = exc_blocks(m, false);
        let mut g = vector_guest();
        let mut v = Vcpu::new(engine(m, true));
        let ev = |f: Option<Fresh>| f.expect("worked out").ev;
        v.run(x.thread.0, &x.thread.1, &g);
        // Interrupted after the thread block: H1 entered (not its fall-through).
        assert_eq!(ev(v.run(x.h1.0, &x.h1.1, &g)), Event::Entry);
        assert_eq!(v.core.tracker.frames(), &[0]);
        // H1 interrupted in turn: H2 nests.
        assert_eq!(ev(v.run(x.h2.0, &x.h2.1, &g)), Event::Entry);
        assert_eq!(v.core.tracker.frames(), &[0, 0]);
        // H2 returns (bx lr loads a handler-mode EXC_RETURN) to H1, not a vector: Return.
        g.regs.insert(14, 0xFFFF_FFF1);
        v.core.see_exc_ret_branch(TargetSrc::Reg(14), &g);
        assert_eq!(v.core.seen_target, Some(0xFFFF_FFF1));
        assert_eq!(ev(v.run(x.h1_rest.0, &x.h1_rest.1, &g)), Event::Return);
        assert_eq!(v.core.tracker.frames(), &[0]);
        assert_eq!(v.core.seen_target, None, "taken by the entry");
        // H1 returns straight into H2 (pending): a vector target, so a tail-chain.
        g.regs.insert(14, 0xFFFF_FFF9);
        v.core.see_exc_ret_branch(TargetSrc::Reg(14), &g);
        assert_eq!(ev(v.run(x.h2.0, &x.h2.1, &g)), Event::TailChain);
        assert_eq!(v.core.tracker.frames(), &[0]);
        // H2 returns to the thread: nothing active.
        v.core.see_exc_ret_branch(TargetSrc::Reg(14), &g);
        assert_eq!(ev(v.run(x.resume.0, &x.resume.1, &g)), Event::Return);
        assert!(v.core.tracker.frames().is_empty());
        assert!(!v.core.tracker.in_handler());
        assert_eq!(g.vtor_reads.get(), 1, "the table was read once");
    }

    #[test]
    fn a_store_into_the_vector_table_or_vtor_makes_it_read_again() {
        let mut g = vector_guest();
        let mut vt = LiveVectors::default();
        assert!(vt.is_target(&g, H2));
        assert!(!vt.is_target(&g, H2 + 2));
        assert_eq!(g.vtor_reads.get(), 1);
        // Stores elsewhere, and another core's store to its own VTOR: nothing re-read.
        vt.note_store(0x2000_0000, true);
        vt.note_store(u64::from(VTOR), false);
        assert!(vt.is_target(&g, H2));
        assert_eq!(g.vtor_reads.get(), 1);
        // IRQ 0's vector rewritten: H2 is no longer a handler.
        g.mem.insert(4 * 16, 0x3201);
        vt.note_store(4 * 16, true);
        assert!(!vt.is_target(&g, H2));
        assert!(vt.is_target(&g, 0x3200));
        assert_eq!(g.vtor_reads.get(), 2);
        // This core moves its table (VTOR) to 0x400, where H2 is IRQ 1's vector.
        for i in 0..48 {
            g.mem.insert(0x400 + 4 * i, 0);
        }
        g.mem.insert(0x400 + 4 * 17, H2 as u32 | 1);
        g.mem.insert(VTOR, 0x400);
        vt.note_store(u64::from(VTOR), true);
        assert!(vt.is_target(&g, H2));
        assert!(!vt.is_target(&g, 0x3200));
        // The old table is no longer watched; the new one is.
        vt.note_store(4 * 16, true);
        assert!(vt.is_target(&g, H2));
        assert_eq!(g.vtor_reads.get(), 3);
        vt.note_store(0x400 + 4 * 17, true);
        assert!(vt.is_target(&g, H2));
        assert_eq!(g.vtor_reads.get(), 4);
    }

    #[test]
    fn return_target_read_from_the_stack() {
        let mut g = TableGuest::default();
        g.regs.insert(13, 0x2000_0FF0);
        g.mem.insert(0x2000_0FF0, 0xFFFF_FFFD);
        let d = DecodedInsn::new(0x1000, POP_PC, 0);
        let src = crate::flow::exc_ret_source(&d).expect("pop {pc} can return");
        let mut core = Core::default();
        core.see_exc_ret_branch(src, &g);
        assert_eq!(core.seen_target, Some(0xFFFF_FFFD));
        g.regs.clear();
        core.see_exc_ret_branch(src, &g);
        assert_eq!(core.seen_target, None, "SP unreadable: nothing seen");
    }

    /// Runs thread -> H1 (an interrupt: entry with EXC_RETURN `lr`, FPCCR.LSPACT
    /// `lspact`; `h1_fp`: H1's first block executes an FP instruction) -> with `fp_blocks`
    /// two more FP blocks -> H1's return block -> thread (return), each block reached by
    /// a branch, and returns the FP context's part of each entry's `before` charge (the
    /// charge minus the model's own for the event).
    fn fp_run(h1_fp: bool, lr: u32, lspact: bool, fp_blocks: bool) -> Vec<u32> {
        let m = model("cortex-m4");
        let x = exc_blocks(m, false);
        let (ret_at, f1_at, f2_at) = (H1 + 0x40, H1 + 0x80, H1 + 0xC0);
        let mut h1 = Vec::new();
        if h1_fp {
            h1.push(VADD_F32);
        }
        h1.push((NOP, 0));
        let b_pc = H1 + 2 * h1.len() as u64 + if h1_fp { 2 } else { 0 };
        h1.push((b_to(b_pc, if fp_blocks { f1_at } else { ret_at }), 0));
        let h1 = block(m, H1, &h1);
        let f1 = block(m, f1_at, &[VADD_F32, (b_to(f1_at + 4, f2_at), 0)]);
        let f2 = block(m, f2_at, &[VADD_F32, (b_to(f2_at + 4, ret_at), 0)]);
        let mut g = vector_guest();
        g.regs.insert(14, lr);
        g.mem.insert(FPCCR, u32::from(lspact) | 1 << 30);
        let mut v = Vcpu::new(engine(m, true));
        let mut extra = Vec::new();
        let mut step = |v: &mut Vcpu, b: &(&'static Block, TbPlan), g: &TableGuest| {
            let f = v.run(b.0, &b.1, g);
            let model_before = f.map_or(0, |f| f.charge.before());
            extra.push(v.core.entry_charge.before() - model_before);
            f.map(|f| f.ev)
        };
        step(&mut v, &x.thread, &g);
        assert_eq!(step(&mut v, &h1, &g), Some(Event::Entry));
        if fp_blocks {
            assert!(matches!(step(&mut v, &f1, &g), Some(Event::Taken(_))));
            assert!(matches!(step(&mut v, &f2, &g), Some(Event::Taken(_))));
        }
        assert!(matches!(
            step(&mut v, &x.h1_rest, &g),
            Some(Event::Taken(_))
        ));
        v.core.see_exc_ret_branch(TargetSrc::Reg(14), &g);
        assert_eq!(step(&mut v, &x.resume, &g), Some(Event::Return));
        extra
    }

    #[test]
    fn lazy_fp_save_is_charged_once_at_the_first_fp_block() {
        let ext = 0xFFFF_FFED; // thread mode, PSP, extended frame
        // Lazy (LSPACT set): nothing at entry; 17 words at the handler's first FP
        // instruction, only once (the second FP block pays nothing); restored on return.
        assert_eq!(fp_run(false, ext, true, true), vec![0, 0, 17, 0, 0, 17]);
        // The first FP instruction in the entry block itself: charged with the entry.
        assert_eq!(fp_run(true, ext, true, false), vec![0, 17, 0, 17]);
        // Lazy and never used: nothing saved, nothing restored.
        assert_eq!(fp_run(false, ext, true, false), vec![0, 0, 0, 0]);
        // Not lazy (LSPACT clear): saved at entry, restored on return.
        assert_eq!(fp_run(false, ext, false, true), vec![0, 17, 0, 0, 0, 17]);
        // A basic frame: no FP context at all.
        assert_eq!(
            fp_run(true, 0xFFFF_FFFD, true, true),
            vec![0, 0, 0, 0, 0, 0]
        );
    }

    #[test]
    fn no_fp_charge_without_a_priced_fpu() {
        let m = model("cortex-m3");
        assert_eq!(engine(m, true).fp_words, None);
    }
}
