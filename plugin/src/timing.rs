//! Cycle-approximate Cortex-M timing model: the rules engine (docs/timing-model.md is
//! the user-facing description; keep the two in step). The numbers are the core tables
//! (`rtoslab_plugin_config::cores`, one file per core); this module combines them.
//!
//! Everything that can be decided from the instruction bytes is decided at translation
//! time, per block, in [`CycleModel::block_costs`]: the instruction's class cost from its
//! core's table, the ARMv7-M pipeline effects between neighbouring instructions of the
//! block (load pipelining, address-generation stall, store data phase), the wait states of
//! a literal load (its address is PC-relative, so known), and instruction-fetch stalls
//! when code runs from a region with wait states. These static costs ride on the inline
//! adds that count instructions.
//!
//! What depends on execution is charged per event: a taken branch's pipeline refill, and
//! exception entry, return and tail-chaining (`flow.rs` infers these at block entry), and
//! the wait states of a data access whose address is only known at run time (a memory
//! callback, registered only when some region has wait states).
//!
//! The rules' sources: Cortex-M3 TRM r2p1 (ARM DDI 0337I) section 3.3.2 "Load/store
//! timings" (neighbour rules), the M3/M4 TRMs on exception entry, return and
//! "Tail-chaining"; each core file names the table its counts come from.

use std::sync::Mutex;

use rtoslab_plugin_config::cores::CoreTable;
use rtoslab_plugin_config::model::{Accel, ModelConfig};

use crate::cost::{BlockCosts, Charge, CostModel};
use crate::decoded::{DecodedInsn, Ops, Sys, ops};
use crate::flow::{Event, Refill, TbShape};
use crate::fpu::{FpOp, fp_op};
use crate::thumb::{Class, Flow};

fn is_data_processing(class: Class, o: &Ops) -> bool {
    matches!(class, Class::Alu | Class::Mul | Class::MulLong | Class::Div) || o.sys == Sys::Mrs
}

fn is_mem(class: Class) -> bool {
    matches!(
        class,
        Class::Load
            | Class::Store
            | Class::LoadDual
            | Class::StoreDual
            | Class::LoadMulti
            | Class::StoreMulti
            | Class::TableBranch
    )
}

/// Does an instruction of `len` bytes at `pc` need a `unit`-byte fetch unit (a bus word
/// or a flash line) that the bytes before it did not? True when it starts a unit or
/// straddles into the next one; a 16-bit instruction in the middle of a unit shares it with
/// the instruction before.
fn starts_unit(pc: u64, len: u8, unit: u64) -> bool {
    (pc + u64::from(len) - 1) / unit != pc.wrapping_sub(1) / unit
}

/// How instruction fetch from one address behaves: `ws` wait states per read, `line`
/// bytes delivered per read, `window` the bytes whose execution can overlap the next
/// read (the overlap the stall is computed against).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fetch {
    ws: u32,
    line: u64,
    window: u64,
}

/// Bytes per Cortex-M3/M4 instruction fetch (the ICode/System bus is 32 bits wide: TRM
/// "Bus interfaces").
const BUS_WORD: u64 = 4;
/// STM32F1 embedded flash: read 64 bits at a time (RM0008 section 3.3.3 "Embedded Flash
/// memory": "read accesses ... 64 bits", prefetch buffer "two 64-bit" blocks).
const F1_LINE: u64 = 8;
/// STM32F4 flash behind the ART accelerator: read 128 bits at a time (RM0090 section
/// 3.4.2 "Adaptive real-time memory accelerator": 128-bit flash lines, an instruction
/// cache of 64 lines of 128 bits).
const ART_LINE: u64 = 16;
const ART_LINES: usize = 64;

/// The ART instruction cache (`accel=art`): 64 lines of 16 bytes. RM0090 does not say
/// how a line is chosen for replacement; the least recently used one is (our assumption).
#[derive(Debug)]
struct ICache {
    /// Line address (byte address / 16) of each entry; `u64::MAX` when empty.
    tags: [u64; ART_LINES],
    /// When each entry was last used (`clock`); 0 when empty, so empty entries go first.
    used: [u64; ART_LINES],
    clock: u64,
}

impl ICache {
    fn new() -> ICache {
        ICache {
            tags: [u64::MAX; ART_LINES],
            used: [0; ART_LINES],
            clock: 0,
        }
    }

    /// Look up the line holding byte `addr`, filling it on a miss. True on a hit.
    fn access(&mut self, addr: u64) -> bool {
        let line = addr / ART_LINE;
        self.clock += 1;
        if let Some(i) = self.tags.iter().position(|&t| t == line) {
            self.used[i] = self.clock;
            return true;
        }
        let victim = (0..ART_LINES)
            .min_by_key(|&i| self.used[i])
            .expect("the cache has lines");
        self.tags[victim] = line;
        self.used[victim] = self.clock;
        false
    }
}

// Boundary contexts (`BlockCosts`), so a block that goes on straight from the previous
// one is costed as if QEMU had not cut there (`CycleModel::next_charge`).
// As a predecessor: registers written (bits 15:0), flags, and the cycles executed since
// the current overlap window began (bits 47:32; see `Fetch`).
const CTX_PIPE_LOAD: u64 = 1 << 16; // single load that pipelines into a next LDR/STR
const CTX_STORE_IMM: u64 = 1 << 17; // one-cycle STR: the next memory access waits
const CTX_DATA_PROC: u64 = 1 << 18; // data processing (address-generation stall)
// As a successor: address registers (bits 15:0), flags, the fetch wait states of the
// block's code (bits 47:32) and, when the first later instruction of the block that starts
// an overlap window is also a stall point, its index (bits 28:21) and the cycles executed
// before it since the window began (bits 63:48): its stall depends on where that began.
const CTX_MEM: u64 = 1 << 16; // a memory instruction
const CTX_CAN_PIPE: u64 = 1 << 17; // single LDR/STR that would take a cycle less
const CTX_NEW_LINE: u64 = 1 << 18; // needs a new fetch read (a stall point)
const CTX_LATER_LINE: u64 = 1 << 19; // a later instruction is a stall point
const CTX_NEW_WINDOW: u64 = 1 << 20; // starts a new overlap window
const LATER_IDX_SHIFT: u32 = 21; // bits 28:21: the index of that later instruction

fn field(ctx: u64, shift: u32) -> u32 {
    ((ctx >> shift) & 0xFFFF) as u32
}

/// The cycle model for one core.
#[derive(Debug)]
pub struct CycleModel {
    cfg: ModelConfig,
    t: &'static CoreTable,
    /// The ART instruction cache, with `accel=art` (its state is the one thing the model
    /// changes as the guest runs: one vCPU, blocks entered in execution order).
    icache: Option<Box<Mutex<ICache>>>,
}

impl CycleModel {
    /// `None` for `core=none`.
    pub fn new(cfg: ModelConfig) -> Option<CycleModel> {
        let t = cfg.core?;
        let icache = (cfg.accel == Accel::Art && cfg.flash.is_some())
            .then(|| Box::new(Mutex::new(ICache::new())));
        Some(CycleModel { cfg, t, icache })
    }

    fn in_flash(&self, addr: u64) -> bool {
        self.cfg.flash.is_some_and(|r| r.contains(addr))
    }

    /// Code at `pc` is fetched through the ART cache: its fetch wait states are charged
    /// at block entry by the cache (`art_fetch`), not statically.
    fn art_code(&self, pc: u64) -> bool {
        self.icache.is_some() && self.in_flash(pc)
    }

    /// Wait states of one data access at `addr`. With `accel=art`, flash data reads are
    /// taken as ART data-cache hits (0): an assumption that holds for literal pools and
    /// small constant tables read in loops, not for streaming through large tables.
    fn data_region_ws(&self, addr: u64) -> u32 {
        if self.icache.is_some() && self.in_flash(addr) {
            0
        } else {
            self.region_ws(addr)
        }
    }

    /// With `accel=art`, the fetch wait states of block `next` entered as `ev`: every
    /// flash line its instructions need is looked up in the instruction cache (and filled);
    /// a miss costs what `block_costs` would charge without the cache: the first
    /// instruction's lines `ws` each after a branch or an exception (the refill), and a
    /// line needed on the way what its read (1 + ws) exceeds the execution overlapping it.
    /// All is charged at the block's start (a probe inside the block counts the misses of
    /// the instructions after it too: only the first, cold pass through a line is concerned).
    #[cold]
    #[inline(never)]
    fn art_fetch(
        &self,
        cache: &Mutex<ICache>,
        ev: Event,
        next: &TbShape,
        head_neighbour: i32,
    ) -> u32 {
        let ws = self.cfg.flash_ws;
        let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
        let n = next.pcs.len();
        let end = |i: usize| {
            let after = if i + 1 < n {
                u64::from(next.pcs[i + 1])
            } else {
                next.fallthrough
            };
            after.wrapping_sub(1)
        };
        let first = u64::from(next.pcs[0]);
        let mut extra = 0;
        match ev {
            Event::None => {
                cache.access(first);
                cache.access(end(0));
            }
            Event::Next(prev) => {
                let hit = cache.access(end(0));
                if next.head_ctx & CTX_NEW_LINE != 0 && !hit {
                    extra += (1 + ws).saturating_sub(field(prev, 32));
                }
            }
            Event::Taken(_) | Event::Entry | Event::Return | Event::TailChain => {
                if !cache.access(first) {
                    extra += ws;
                }
                if end(0) / ART_LINE != first / ART_LINE && !cache.access(end(0)) {
                    extra += ws;
                }
            }
        }
        // After a cut (`Event::Next`) the block's first overlap window may have begun in the
        // block before: the first later window start, when it needs a new line, then
        // overlaps `carried` more cycles (and the head's neighbour correction), as
        // `next_charge` corrects a static stall.
        let mut carried = 0i64;
        if let Event::Next(prev) = ev
            && next.head_ctx & CTX_NEW_WINDOW == 0
        {
            carried = i64::from(field(prev, 32)) + i64::from(head_neighbour);
        }
        let later_idx = if next.head_ctx & CTX_LATER_LINE != 0 {
            ((next.head_ctx >> LATER_IDX_SHIFT) & 0xFF) as usize
        } else {
            usize::MAX
        };
        for i in 1..n {
            if end(i) / ART_LINE != end(i - 1) / ART_LINE && !cache.access(end(i)) {
                let mut overlap =
                    i64::from(field(next.tail_ctx.get(i - 1).copied().unwrap_or(0), 32));
                if i == later_idx {
                    overlap = (overlap + carried).max(0);
                }
                extra += (i64::from(1 + ws) - overlap).max(0) as u32;
            }
        }
        extra
    }

    /// The block-entry charge is a function of the event and the block alone (no ART
    /// instruction cache, whose state changes as the guest runs).
    pub fn stateless(&self) -> bool {
        self.icache.is_none()
    }

    pub fn config(&self) -> &ModelConfig {
        &self.cfg
    }

    /// Words of FP state an extended exception frame stores and restores, each one cycle
    /// (`fpctx`); `None` when the core's FPU is not priced.
    pub fn fp_context_words(&self) -> Option<u32> {
        self.t.fpu.map(|f| f.context_words)
    }

    /// Wait states of one access (fetch or data) at `addr`: the flash region first, then
    /// the SRAM regions, else 0.
    pub fn region_ws(&self, addr: u64) -> u32 {
        if self.cfg.flash.is_some_and(|r| r.contains(addr)) {
            self.cfg.flash_ws
        } else if self.cfg.sram.iter().any(|r| r.contains(addr)) {
            self.cfg.sram_ws
        } else {
            0
        }
    }

    /// Extra cycles of an instruction fetch at `pc` over the core's System bus: the
    /// core's `sysbus_fetch` for code in the System region (0x20000000 to 0xDFFFFFFF,
    /// and from 0xE0100000), else 0. Any code there pays it (SRAM, external RAM, whatever
    /// `flash=`/`sram=` say), as fetch wait states: M3 TRM r1p1 (ARM DDI 0337E) 14.5.6,
    /// a registered fetch takes two cycles and none follows another back to back, so a
    /// taken branch's target word costs one cycle more and a word of sequential code needs
    /// two cycles of execution to hide its fetch.
    fn sysbus_ws(&self, pc: u64) -> u32 {
        let system = (0x2000_0000..0xE000_0000).contains(&pc) || pc >= 0xE010_0000;
        if system { self.t.sysbus_fetch } else { 0 }
    }

    /// Static cycles of `d` alone, from the core's table.
    fn class_cycles(&self, d: &DecodedInsn, o: &Ops) -> u32 {
        let t = self.t;
        let div = self.cfg.div;
        match d.insn.class {
            Class::Alu | Class::It => 1,
            Class::Mul => {
                if o.acc {
                    t.mla
                } else {
                    t.mul
                }
            }
            Class::MulLong => div.pick(if o.acc { t.mlal } else { t.mull }),
            Class::Div => div.pick(t.div),
            Class::Load => t.load,
            Class::Store => {
                if o.store_imm {
                    t.store_imm
                } else {
                    t.store_reg
                }
            }
            Class::LoadDual | Class::StoreDual => t.dual,
            Class::LoadMulti | Class::StoreMulti => 1 + u32::from(d.insn.regs),
            Class::TableBranch => t.tbb,
            Class::Branch => match d.insn.flow {
                Flow::Direct { link: true, .. } => t.bl,
                _ => 1,
            },
            Class::Hint => {
                if d.insn.flow == Flow::Wait {
                    t.wait
                } else {
                    1
                }
            }
            Class::System => match o.sys {
                Sys::Msr => t.msr,
                Sys::Mrs => t.mrs,
                Sys::Cps => t.cps,
                Sys::Dmb => t.dmb,
                Sys::Dsb => t.dsb,
                Sys::Isb => t.isb,
                Sys::Other => 1,
            },
            // SVC: its execute cycle is the first of its exception entry (`event_charge`)
            Class::Exception if d.raw & 0xFF00 == 0xDF00 && d.insn.len == 2 => 0,
            Class::Coprocessor => match (t.fpu, fp_op(d)) {
                (Some(f), Some(op)) => match op {
                    FpOp::Alu => f.alu,
                    FpOp::Mac => f.mac,
                    FpOp::Div => f.div,
                    FpOp::Sqrt => f.sqrt,
                    FpOp::Mov32 => f.mov32,
                    FpOp::Mov64 => f.mov64,
                    FpOp::LoadStore { double: false } => f.ldst_single,
                    FpOp::LoadStore { double: true } => f.ldst_double,
                    FpOp::Multi { words } => f.multi + u32::from(words),
                },
                _ => 1,
            },
            Class::Exception | Class::Undefined => 1,
        }
    }

    /// Correction for a block's first instructions (context `head`) when they run
    /// straight after an instruction with context `prev`: the neighbour rules and fetch
    /// stalls `block_costs` applies inside a block. May be negative (load pipelining).
    /// Exact for one cut; after a block too short to reach its second fetch word, the
    /// next block's correction can be off by the wait states of one word.
    fn next_charge(&self, prev: u64, head: u64) -> Charge {
        let mut neighbour = 0i64;
        let writes = prev & 0xFFFF;
        let addr = head & 0xFFFF;
        if self.t.v7m && head & CTX_MEM != 0 {
            if prev & CTX_STORE_IMM != 0 {
                neighbour += 1;
            }
            if prev & CTX_DATA_PROC != 0 && writes & addr != 0 {
                neighbour += 1;
            }
            if prev & CTX_PIPE_LOAD != 0 && head & CTX_CAN_PIPE != 0 && writes & addr == 0 {
                neighbour -= 1;
            }
        }
        let mut head_part = neighbour;
        let mut later = 0i64;
        let w = field(head, 32);
        let before = field(prev, 32); // cycles into the current overlap window
        if w > 0 {
            let head_new_window = head & CTX_NEW_WINDOW != 0;
            if head & CTX_NEW_LINE != 0 {
                // the first instruction's own fetch stall (charged 0 at a block start)
                head_part += i64::from((1 + w).saturating_sub(before));
            }
            if head & CTX_LATER_LINE != 0 {
                // the later stall was computed from the cycles since the block began; the
                // window began `before` cycles earlier unless the first instruction started
                // it, and the neighbour rules changed them
                let exec = field(head, 48);
                let carried = if head_new_window {
                    0
                } else {
                    i64::from(before)
                };
                let real_exec = (i64::from(exec) + neighbour + carried).max(0);
                let charged = (1 + w).saturating_sub(exec);
                let real = (i64::from(1 + w) - real_exec).max(0);
                later = real - i64::from(charged);
            }
        }
        Charge::new(
            0,
            head_part as i32,
            later as i32,
            ((head >> LATER_IDX_SHIFT) & 0xFF) as u32,
        )
    }

    /// How code at `pc` is fetched. Flash (`flash=`): the STM32F1 interface reads a
    /// 64-bit line per 1 + ws cycles. With its prefetch buffer (`prefetch=on`) the next
    /// line is read while the current one executes, so a line's stall is what its fetch
    /// (1 + ws) exceeds the execution of the line before it (window = line). Without it,
    /// the line is read when the core asks for its first word, and the core asks one bus
    /// word ahead of execution (window = bus word). Elsewhere (SRAM with `sram_ws`): one
    /// bus word per 1 + ws cycles, fetched one word ahead; over the System bus `ws` also
    /// counts the registered fetch (`sysbus_ws`). With `accel=art` the flash line
    /// is 128 bits and the stalls are the cache's (`art_fetch`).
    fn fetch(&self, pc: u64) -> Fetch {
        let ws = self.region_ws(pc) + self.sysbus_ws(pc);
        if self.in_flash(pc) {
            let line = if self.cfg.accel == Accel::Art {
                ART_LINE
            } else {
                F1_LINE
            };
            let window = if self.cfg.prefetch { line } else { BUS_WORD };
            Fetch { ws, line, window }
        } else {
            Fetch {
                ws,
                line: BUS_WORD,
                window: BUS_WORD,
            }
        }
    }

    /// The block-entry charge without the ART cache (see `event_charge`).
    #[inline(always)]
    fn core_event_charge(&self, ev: Event, next: &TbShape) -> Charge {
        let stack_ws = 8 * self.cfg.sram_ws; // eight words stacked or unstacked, in SRAM
        let before = match ev {
            Event::None => 0,
            Event::Next(prev) => return self.next_charge(prev, next.head_ctx),
            Event::Taken(r) => self.refill(r) + next.head_refill,
            Event::Entry => self.t.entry + stack_ws + next.head_ws,
            Event::Return => self.t.ret - u32::from(self.t.v7m) + stack_ws + next.head_ws,
            Event::TailChain => self.t.tail - 1 + next.head_ws,
        };
        Charge::before_block(before)
    }

    /// With `accel=art`: the charge above plus the instruction cache's fetch wait states
    /// for a block in flash.
    #[cold]
    #[inline(never)]
    fn art_event_charge(&self, cache: &Mutex<ICache>, ev: Event, next: &TbShape) -> Charge {
        let c = self.core_event_charge(ev, next);
        if !self.in_flash(next.start) {
            return c;
        }
        // with w = 0 in an ART block's context, `head` is the neighbour correction
        let extra = self.art_fetch(cache, ev, next, c.head());
        Charge::new(c.before() + extra, c.head(), c.later(), c.later_idx())
    }

    #[cfg(test)]
    fn next_cycles(&self, prev: u64, head: u64) -> u64 {
        self.next_charge(prev, head).total()
    }

    fn refill(&self, r: Refill) -> u32 {
        match r {
            Refill::Direct => self.t.p_direct,
            Refill::Register => self.t.p_register,
            Refill::Load => self.t.p_load,
        }
    }
}

impl CostModel for CycleModel {
    fn name(&self) -> &'static str {
        self.t.name
    }

    fn models_cycles(&self) -> bool {
        true
    }

    fn block_costs(&self, insns: &[DecodedInsn]) -> BlockCosts {
        let mut out = BlockCosts {
            cycles: Vec::with_capacity(insns.len()),
            tail_ctx: Vec::with_capacity(insns.len()),
            head_ctx: 0,
        };
        let mut prev: Option<(&DecodedInsn, Ops)> = None;
        // Cycles executed since the current overlap window began (fetch stall model), and
        // whether a later instruction already started a window (see the contexts).
        let mut window_exec = 0u32;
        let mut later_seen = false;
        for (i, d) in insns.iter().enumerate() {
            let o = ops(d);
            let class = d.insn.class;
            let mut c = self.class_cycles(d, &o);
            let pipelinable =
                matches!(class, Class::Load | Class::Store) && d.insn.flow == Flow::Seq && c > 1;
            if self.t.v7m
                && let Some((p, po)) = prev
                && is_mem(class)
            {
                let pclass = p.insn.class;
                // M3 TRM 3.3.2: "nothing can be pipelined after the store": a memory
                // instruction right after a one-cycle STR waits for its data phase.
                if pclass == Class::Store && po.store_imm {
                    c += 1;
                }
                // "Any load or store that generates an address dependent on the result of
                // a preceding data processing operation stalls the pipeline for an
                // additional cycle".
                if is_data_processing(pclass, &po) && po.writes & o.addr != 0 {
                    c += 1;
                }
                // "LDR [any] are pipelined when possible ... if the next instruction is an
                // LDR or STR, and the destination of the first LDR is not used to compute
                // the address for the next instruction, then one cycle is removed from the
                // cost of the next instruction" (not after LDR PC, which blocks).
                if pclass == Class::Load
                    && p.insn.flow == Flow::Seq
                    && pipelinable
                    && po.writes & o.addr == 0
                {
                    c -= 1;
                }
            }
            if let Some(addr) = o.literal {
                let words = if class == Class::LoadDual { 2 } else { 1 };
                c += words * self.data_region_ws(addr);
            }
            let f = self.fetch(d.pc);
            // with the ART cache, fetch stalls are charged at block entry (art_fetch)
            let w = if self.art_code(d.pc) { 0 } else { f.ws };
            let new_line = starts_unit(d.pc, d.insn.len, f.line);
            let new_window = new_line || starts_unit(d.pc, d.insn.len, f.window);
            let mut stall = 0;
            if i > 0 && w > 0 && new_line {
                // The next read overlaps the execution of the current window's
                // instructions; the instruction that needs it waits for the rest.
                stall = (1 + w).saturating_sub(window_exec);
            }
            if i > 0 && new_window && !later_seen {
                later_seen = true;
                if new_line {
                    out.head_ctx |= CTX_LATER_LINE
                        | ((i as u64 & 0xFF) << LATER_IDX_SHIFT)
                        | (u64::from(window_exec.min(0xFFFF)) << 48);
                }
            }
            if new_window {
                window_exec = 0;
            }
            window_exec += c;
            if i == 0 {
                out.head_ctx = u64::from(o.addr)
                    | if is_mem(class) { CTX_MEM } else { 0 }
                    | if pipelinable { CTX_CAN_PIPE } else { 0 }
                    | if new_line { CTX_NEW_LINE } else { 0 }
                    | if new_window { CTX_NEW_WINDOW } else { 0 }
                    | (u64::from(w.min(0xFFFF)) << 32);
            }
            out.cycles.push(c + stall);
            let mut tail = u64::from(o.writes) | (u64::from(window_exec.min(0xFFFF)) << 32);
            if class == Class::Load && d.insn.flow == Flow::Seq {
                tail |= CTX_PIPE_LOAD;
            }
            if class == Class::Store && o.store_imm {
                tail |= CTX_STORE_IMM;
            }
            if is_data_processing(class, &o) {
                tail |= CTX_DATA_PROC;
            }
            out.tail_ctx.push(tail);
            prev = Some((d, o));
        }
        out
    }

    fn head_cycles(&self, first: &DecodedInsn) -> (u32, u32) {
        let f = self.fetch(first.pc);
        let end = first.pc + u64::from(first.insn.len) - 1;
        // reads of the flash line / bus word the first instruction needs (2 if it straddles)
        let reads = if end / f.line != first.pc / f.line {
            2
        } else {
            1
        };
        let ws = if self.art_code(first.pc) {
            0 // charged by the cache at block entry (art_fetch)
        } else {
            reads * f.ws
        };
        // the core's own extra fetch for a 32-bit target at a halfword offset
        let align = u32::from(self.t.align_penalty && first.insn.len == 4 && first.pc & 3 == 2);
        (align + ws, ws)
    }

    fn is_dynamic(&self) -> bool {
        true
    }

    /// Exception latencies overlap the instruction that causes them. ARM counts the exit
    /// latency (10 on the M3/M4) from the execution of the return instruction to the
    /// first instruction of the interrupted code, and the entry latency from the exception
    /// signal to the handler's first instruction (ARM knowledge article 103489845, "What
    /// is the true interrupt latency of Cortex-M3 and Cortex-M4"): the return instruction's
    /// execute cycle, already charged as its class cost, is the first cycle of the exit
    /// (and of a tail-chain, 6 cycles from the return); an SVC is the signal of its own
    /// exception, so it costs nothing of its own (`class_cycles`): its cycle is the first
    /// of the entry. An interrupt taken between two instructions, or pended by a store,
    /// overlaps nothing. The M0/M0+ return counts are ours, counted after the return
    /// instruction (see the core tables): no overlap there.
    #[inline]
    fn event_charge(&self, ev: Event, next: &TbShape) -> Charge {
        match &self.icache {
            None => self.core_event_charge(ev, next),
            Some(cache) => self.art_event_charge(cache, ev, next),
        }
    }

    fn has_data_ws(&self) -> bool {
        (self.cfg.flash.is_some() && self.cfg.flash_ws > 0 && self.icache.is_none())
            || (!self.cfg.sram.is_empty() && self.cfg.sram_ws > 0)
    }

    fn data_ws_callback(&self, insn: &DecodedInsn) -> bool {
        self.has_data_ws() && insn.insn.mem.may_access() && ops(insn).literal.is_none()
    }

    fn data_ws(&self, vaddr: u64) -> u64 {
        u64::from(self.data_region_ws(vaddr))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instrument::plan_tb;
    use rtoslab_plugin_config::cores;
    use rtoslab_plugin_config::model::{Accel, DivPolicy, Region};

    /// The registered table named `name`.
    fn table(name: &str) -> Option<&'static CoreTable> {
        Some(cores::by_name(name).unwrap_or_else(|| panic!("no core table {name}")))
    }

    fn model(core: Option<&'static CoreTable>) -> CycleModel {
        CycleModel::new(ModelConfig {
            core,
            ..ModelConfig::default()
        })
        .unwrap()
    }

    fn with(cfg: ModelConfig) -> CycleModel {
        CycleModel::new(cfg).unwrap()
    }

    /// Decode "hw1 [hw2]; hw1 [hw2]; ..." (objdump halfwords) as a block at `pc`.
    fn block(pc: u64, s: &str) -> Vec<DecodedInsn> {
        let mut pc = pc;
        s.split(';')
            .map(|i| {
                let h: Vec<u16> = i
                    .split_whitespace()
                    .map(|p| u16::from_str_radix(p, 16).unwrap())
                    .collect();
                let d = DecodedInsn::new(pc, h[0], *h.get(1).unwrap_or(&0));
                assert_eq!(usize::from(d.insn.len), h.len() * 2, "{i}");
                pc += u64::from(d.insn.len);
                d
            })
            .collect()
    }

    fn costs(m: &CycleModel, s: &str) -> Vec<u32> {
        m.block_costs(&block(0x100, s)).cycles
    }

    fn one(m: &CycleModel, s: &str) -> u32 {
        // after a nop, so no neighbour rule applies
        costs(m, &format!("bf00; {s}"))[1]
    }

    // Encodings: arm-none-eabi-as -mthumb -mcpu=cortex-m4, read back with objdump.
    const NOP: &str = "bf00";
    const ADDS: &str = "3001"; // adds r0, #1
    const MOV_W: &str = "f240 0004"; // movw r0, #4
    const MULS: &str = "4348"; // muls r0, r1
    const MUL_W: &str = "fb01 f002"; // mul.w r0, r1, r2
    const MLA: &str = "fb01 3002"; // mla r0, r1, r2, r3
    const MLS: &str = "fb01 3012"; // mls r0, r1, r2, r3
    const UMULL: &str = "fba1 0102"; // umull r0, r1, r1, r2
    const UMLAL: &str = "fbe2 0103"; // umlal r0, r1, r2, r3
    const SDIV: &str = "fb91 f0f2"; // sdiv r0, r1, r2
    const UDIV: &str = "fbb1 f0f2"; // udiv r0, r1, r2
    const LDR: &str = "6808"; // ldr r0, [r1]
    const LDR_R2_R3: &str = "681a"; // ldr r2, [r3]
    const LDR_R1_R0: &str = "6801"; // ldr r1, [r0]
    const LDR_LIT: &str = "4801"; // ldr r0, [pc, #4]
    const LDR_REG: &str = "5888"; // ldr r0, [r1, r2]
    const STR: &str = "6008"; // str r0, [r1]
    const STR_REG: &str = "5088"; // str r0, [r1, r2]
    const STR_W: &str = "f8c1 0004"; // str.w r0, [r1, #4]
    const LDRD: &str = "e9d1 2302"; // ldrd r2, r3, [r1, #8]
    const STRD: &str = "e9c1 2302"; // strd r2, r3, [r1, #8]
    const PUSH3: &str = "b570"; // push {r4, r5, r6, lr}
    const POP_PC: &str = "bd10"; // pop {r4, pc}
    const LDM: &str = "c90c"; // ldmia r1!, {r2, r3}
    const STMW: &str = "e92d 4ff0"; // push.w {r4-r11, lr}
    const ADD_SP: &str = "b082"; // sub sp, #8
    const STR_SP: &str = "9001"; // str r0, [sp, #4]
    const ADD_R1: &str = "3101"; // adds r1, #1
    const B: &str = "e7fe"; // b .
    const BL: &str = "f000 f802"; // bl
    const BX_LR: &str = "4770";
    const IT: &str = "bf08"; // it eq
    const MSR: &str = "f380 8809"; // msr PSP, r0
    const MRS: &str = "f3ef 8009"; // mrs r0, PSP
    const CPSID: &str = "b672";
    const DMB: &str = "f3bf 8f5f";
    const DSB: &str = "f3bf 8f4f";
    const ISB: &str = "f3bf 8f6f";
    const WFI: &str = "bf30";
    const SVC: &str = "df00";
    const BKPT: &str = "beab"; // bkpt 0xab (semihosting: no exception entry here)
    const TBB: &str = "e8d1 f002";
    const LDREX: &str = "e851 2f00"; // ldrex r2, [r1]

    #[test]
    fn every_registered_core_makes_a_model() {
        assert!(
            CycleModel::new(ModelConfig::default()).is_none(),
            "core=none: no model"
        );
        for t in cores::CORES {
            assert_eq!(model(Some(t)).name(), t.name);
        }
    }

    /// Cortex-M3 TRM r2p1 Table 3-1, one row per class (zero wait states, no neighbours).
    #[test]
    fn m3_table() {
        let m = model(table("cortex-m3"));
        let rows: &[(&str, u32, &str)] = &[
            (ADDS, 1, "ADD 1"),
            (MOV_W, 1, "MOVW 1"),
            (MULS, 1, "MUL 1"),
            (MUL_W, 1, "MUL 1"),
            (MLA, 2, "MLA 2"),
            (MLS, 2, "MLS 2"),
            (UMULL, 4, "UMULL 3 to 5: typ 4"),
            (UMLAL, 6, "UMLAL 4 to 7: typ 6"),
            (SDIV, 7, "SDIV 2 to 12: typ 7"),
            (UDIV, 7, "UDIV 2 to 12: typ 7"),
            (LDR, 2, "LDR 2"),
            (LDR_LIT, 2, "LDR 2"),
            (LDR_REG, 2, "LDR 2"),
            (LDREX, 2, "LDREX 2"),
            (STR, 1, "3.3.2: STR Rx,[Ry,#imm] is always one cycle"),
            (STR_W, 1, "STR imm 1"),
            (STR_REG, 2, "STR 2"),
            (LDRD, 3, "LDRD 1+N (3.3.2: 3 cycles)"),
            (STRD, 3, "STRD 1+N"),
            (PUSH3, 5, "PUSH 1+N, N=4"),
            (POP_PC, 3, "POP 1+N (+P when it loads the PC: dynamic)"),
            (LDM, 3, "LDM 1+N"),
            (STMW, 10, "STM 1+N, N=9"),
            (B, 1, "B 1 (+P taken: dynamic)"),
            (BL, 1, "BL 1 (+P: dynamic)"),
            (BX_LR, 1, "BX 1 (+P: dynamic)"),
            (TBB, 3, "TBB 2+P (3.3.2: load 2, add 1, refill 3 = 6)"),
            (IT, 1, "IT 1"),
            (MSR, 2, "MSR 1 or 2: 2"),
            (MRS, 1, "MRS 1 or 2: 1"),
            (CPSID, 1, "CPSID 1 or 2: 1"),
            (DMB, 1, "DMB 1+B, B=0"),
            (DSB, 1, "DSB 1+B, B=0"),
            (ISB, 3, "ISB 1+B, B = a refill (2)"),
            (WFI, 1, "WFI 1+W, W not modelled"),
            (
                SVC,
                0,
                "SVC: its cycle is the first of the exception entry (dynamic)",
            ),
            (NOP, 1, "NOP 1"),
        ];
        for &(enc, want, row) in rows {
            assert_eq!(one(&m, enc), want, "{enc}: {row}");
        }
    }

    /// Cortex-M4 TRM Table 3-1: multiplies are single-cycle, the rest as the M3.
    #[test]
    fn m4_table() {
        let m = model(table("cortex-m4"));
        for enc in [MULS, MUL_W, MLA, MLS, UMULL, UMLAL] {
            assert_eq!(one(&m, enc), 1, "{enc}");
        }
        assert_eq!(one(&m, SDIV), 7);
        assert_eq!(one(&m, LDR), 2);
        assert_eq!(one(&m, STR), 1);
        assert_eq!(
            costs(&m, &format!("{LDR}; {LDR_R2_R3}")),
            vec![2, 1],
            "pipelined"
        );
        // DSP: smlabb r0, r1, r2, r3; smuad r0, r1, r2; qadd8 r0, r1, r2
        assert_eq!(one(&m, "fb11 3002"), 1);
        assert_eq!(one(&m, "fb21 f002"), 1);
        assert_eq!(one(&m, "fa81 f012"), 1);
    }

    /// Cortex-M4 TRM r0p1 Table 7-1 (FPv4-SP), on the cores with an FPU table; 1 (any
    /// coprocessor encoding) on those without.
    #[test]
    fn fpu_table() {
        let rows: &[(&str, u32, &str)] = &[
            ("ee30 0a20", 1, "vadd.f32"),
            ("ee20 0a20", 1, "vmul.f32"),
            ("eeb4 0a60", 1, "vcmp.f32"),
            ("eebd 0ac0", 1, "vcvt.s32.f32"),
            ("ee00 0a20", 3, "vmla.f32"),
            ("eea0 0a20", 3, "vfma.f32"),
            ("ee80 0a20", 14, "vdiv.f32"),
            ("eeb1 0ac0", 14, "vsqrt.f32"),
            ("ee00 0a10", 1, "vmov s0, r0"),
            ("ec41 0a10", 2, "vmov s0, s1, r0, r1"),
            ("ee01 2a90", 1, "vmov s3, r2"),
            ("ec51 0b10", 2, "vmov r0, r1, d0"),
            ("eef1 0a10", 1, "vmrs r0, fpscr"),
            ("ed90 0a00", 2, "vldr s0, [r0]"),
            ("ed80 0a00", 2, "vstr s0, [r0]"),
            ("ed90 0b00", 3, "vldr d0, [r0]"),
            ("ed2d 8a10", 17, "vpush {s16-s31}: 1 + 16"),
            ("ecbd 8a10", 17, "vpop {s16-s31}"),
            ("ed2d 8b10", 17, "vpush {d8-d15}: 1 + 2 x 8"),
        ];
        for core in ["cortex-m4", "cortex-m33"] {
            let m = model(table(core));
            assert_eq!(m.fp_context_words(), Some(17), "{core}");
            for &(enc, want, what) in rows {
                assert_eq!(one(&m, enc), want, "{core}: {what}");
            }
        }
        for core in ["cortex-m3", "cortex-m0", "cortex-m0plus"] {
            let m = model(table(core));
            assert_eq!(m.fp_context_words(), None, "{core}");
            for &(enc, _, what) in rows {
                assert_eq!(one(&m, enc), 1, "{core}: {what}");
            }
        }
    }

    /// Cortex-M0 / M0+ TRM Table 3-1 (static parts; refills are dynamic).
    #[test]
    fn v6m_tables() {
        let m0 = model(table("cortex-m0"));
        let mp = model(table("cortex-m0plus"));
        for (enc, c0, cp, row) in [
            (ADDS, 1, 1, "ADDS 1"),
            (MULS, 1, 1, "MULS 1 (fast multiplier)"),
            (LDR, 2, 2, "LDR 2"),
            (STR, 2, 2, "STR 2"),
            (PUSH3, 5, 5, "PUSH 1+N"),
            (POP_PC, 3, 3, "POP 1+N (+3 / +2 refill with PC)"),
            (BL, 2, 2, "BL 4 / 3 = 2 + P"),
            (B, 1, 1, "B 3 / 2 = 1 + P"),
            (MSR, 4, 3, "MSR 4 / 3"),
            (MRS, 4, 3, "MRS 4 / 3"),
            (DMB, 4, 3, "DMB 4 / 3"),
            (DSB, 4, 3, "DSB 4 / 3"),
            (ISB, 4, 3, "ISB 4 / 3"),
            (WFI, 2, 2, "WFI 2"),
            (CPSID, 1, 1, "CPSID 1"),
        ] {
            assert_eq!(one(&m0, enc), c0, "M0 {enc}: {row}");
            assert_eq!(one(&mp, enc), cp, "M0+ {enc}: {row}");
        }
        // no load pipelining on ARMv6-M
        assert_eq!(costs(&m0, &format!("{LDR}; {LDR_R2_R3}")), vec![2, 2]);
        assert_eq!(costs(&m0, &format!("{STR}; {STR}")), vec![2, 2]);
    }

    #[test]
    fn div_policy() {
        for (div, d, mull, mlal) in [
            (DivPolicy::Min, 2, 3, 4),
            (DivPolicy::Typ, 7, 4, 6),
            (DivPolicy::Max, 12, 5, 7),
        ] {
            let m = with(ModelConfig {
                core: table("cortex-m3"),
                div,
                ..ModelConfig::default()
            });
            assert_eq!(one(&m, UDIV), d);
            assert_eq!(one(&m, UMULL), mull);
            assert_eq!(one(&m, UMLAL), mlal);
        }
    }

    /// M3 TRM 3.3.2 neighbour rules.
    #[test]
    fn m3_neighbours() {
        let m = model(table("cortex-m3"));
        // "LDR R0,[R1]; LDR R1,[R2] - normally three cycles total"
        assert_eq!(costs(&m, &format!("{LDR}; {LDR_R2_R3}")), vec![2, 1]);
        // three independent loads: 2 + 1 + 1 ("four cycles total")
        assert_eq!(
            costs(&m, &format!("{LDR}; {LDR_R2_R3}; 6a64")), // ldr r4, [r4, #36]
            vec![2, 1, 1]
        );
        // the second address uses the first's result: not pipelined
        assert_eq!(costs(&m, &format!("{LDR}; {LDR_R1_R0}")), vec![2, 2]);
        // "LDR R0,[R1,R2]; STR R0,[R3,#20] - normally three cycles total"
        assert_eq!(costs(&m, &format!("{LDR_REG}; 6158")), vec![2, 1]); // str r0, [r3, #20]
        // "LDR R0,[R1,R2]; STR R1,[R3,R2] - normally three cycles total"
        assert_eq!(costs(&m, &format!("{LDR_REG}; 5099")), vec![2, 1]); // str r1, [r3, r2]
        // nothing pipelines after a store: a load after STR waits a cycle
        assert_eq!(costs(&m, &format!("{STR}; {LDR_R2_R3}")), vec![1, 3]);
        assert_eq!(costs(&m, &format!("{STR}; {STR}")), vec![1, 2]);
        assert_eq!(
            costs(&m, &format!("{STR}; {NOP}; {LDR_R2_R3}")),
            vec![1, 1, 2]
        );
        // address depends on the preceding data-processing result: +1
        assert_eq!(costs(&m, &format!("{ADD_R1}; {LDR}")), vec![1, 3]);
        assert_eq!(
            costs(&m, &format!("{ADDS}; {LDR}")),
            vec![1, 2],
            "r0 not in the address"
        );
        assert_eq!(
            costs(&m, &format!("{ADD_SP}; {STR_SP}")),
            vec![1, 2],
            "sub sp then [sp]"
        );
        assert_eq!(costs(&m, &format!("{ADD_SP}; {PUSH3}")), vec![1, 6]);
        // the probe: movw r12; movt r12; str.w r12, [r12] -> the store waits for movt
        assert_eq!(costs(&m, "f240 0c08; f2c2 1c00; f8cc c000"), vec![1, 1, 2]);
        // LDRD does not pipeline with its neighbours
        assert_eq!(
            costs(&m, &format!("{LDR}; {LDRD}; {LDR_R2_R3}")),
            vec![2, 3, 2]
        );
        // LDR PC blocks: nothing after it is pipelined (it ends the block anyway), and it
        // is not pipelined after a load
        assert_eq!(costs(&m, &format!("{LDR_R2_R3}; f8d1 f004")), vec![2, 2]);
    }

    /// Cortex-M3, 4 KiB flash at 0 with 2 wait states and prefetch, 4 KiB SRAM with 1.
    fn flash2_sram1_prefetch() -> ModelConfig {
        ModelConfig {
            core: table("cortex-m3"),
            flash: Some(Region {
                base: 0,
                size: 0x1000,
            }),
            sram: vec![Region {
                base: 0x2000_0000,
                size: 0x1000,
            }],
            flash_ws: 2,
            sram_ws: 1,
            prefetch: true,
            ..ModelConfig::default()
        }
    }

    #[test]
    fn literal_loads_pay_their_region() {
        let cfg = flash2_sram1_prefetch();
        let m = with(cfg.clone());
        // ldr r0, [pc, #4] at 0x102 in flash: 2 + 2 wait states
        assert_eq!(costs(&m, &format!("{NOP}; {LDR_LIT}")), vec![1, 4]);
        // ldrd r2, r3, [pc, #8]: two words
        assert_eq!(costs(&m, &format!("{NOP}; e9df 2302")), vec![1, 3 + 4]);
        // register loads: charged by a memory callback, not statically
        assert_eq!(costs(&m, &format!("{NOP}; {LDR}")), vec![1, 2]);
        let b = block(0x100, &format!("{LDR_LIT}; {LDR}; {STR}"));
        assert!(!m.data_ws_callback(&b[0]));
        assert!(m.data_ws_callback(&b[1]));
        assert!(m.has_data_ws());
        assert_eq!(m.data_ws(0x10), 2);
        assert_eq!(m.data_ws(0x2000_0004), 1);
        assert_eq!(m.data_ws(0x2100_0000), 0, "outside every region");
        assert_eq!(m.data_ws(0x1000), 0);
        // the same code in SRAM: its literal is in SRAM
        let b = m
            .block_costs(&block(0x2000_0100, &format!("{NOP}; {LDR_LIT}")))
            .cycles;
        assert_eq!(b, vec![1, 3]);
        let none = model(table("cortex-m3"));
        assert!(!none.has_data_ws());
        assert!(!none.data_ws_callback(&block(0, LDR)[0]));
    }

    #[test]
    fn fetch_stalls_without_prefetch() {
        let cfg = |ws, prefetch| ModelConfig {
            core: table("cortex-m3"),
            flash: Some(Region {
                base: 0,
                size: 0x1000,
            }),
            flash_ws: ws,
            prefetch,
            ..ModelConfig::default()
        };
        let nops = "bf00; bf00; bf00; bf00; bf00; bf00";
        // STM32F1 flash without prefetch: a 64-bit line (four 16-bit nops) per read of
        // 1 + ws cycles, asked for one bus word ahead of execution, so the read of the
        // next line overlaps the last word's two nops.
        // 1 wait state: a 2-cycle read, hidden.
        assert_eq!(costs(&with(cfg(1, false)), nops), vec![1; 6]);
        // 2 wait states: 3-cycle read, 2 cycles overlapped: 1 stall per line (charged to
        // the instruction that needs the new line; the block's first line comes with the
        // branch refill), not 1 per word.
        assert_eq!(costs(&with(cfg(2, false)), nops), vec![1, 1, 1, 1, 2, 1]);
        // 32-bit instructions: two per line; the second is in the line already read, the
        // third waits for a read overlapped by one 1-cycle instruction
        let movs = "f240 0004; f240 0004; f240 0004";
        assert_eq!(costs(&with(cfg(2, false)), movs), vec![1, 1, 3]);
        // a 2-cycle load hides a 1-wait-state fetch
        assert_eq!(
            costs(&with(cfg(1, false)), "f8d1 0004; f240 0004"),
            vec![2, 1]
        );
        // prefetch on: the next line is read while the current one executes: four 16-bit
        // instructions (4 cycles) hide a 3-cycle read ...
        assert_eq!(costs(&with(cfg(2, true)), nops), vec![1; 6]);
        // ... two 32-bit ones (2 cycles) do not: 1 stall per line, not "free"
        assert_eq!(costs(&with(cfg(2, true)), movs), vec![1, 1, 2]);
        // a 32-bit instruction straddling two lines needs the second one
        assert_eq!(
            with(cfg(2, true))
                .block_costs(&block(0x102, "bf00; bf00; f240 0004; bf00"))
                .cycles,
            vec![1, 1, 2, 1],
            "0x106 straddles into 0x108: a 3-cycle read after 2 cycles of line 0x100"
        );
        // code outside the flash region: no stalls
        let m = with(cfg(2, false));
        assert_eq!(m.block_costs(&block(0x2000, movs)).cycles, vec![1; 3]);
    }

    /// M3 TRM r1p1 (ARM DDI 0337E) 14.5.6: fetches over the System bus (0x20000000 and
    /// up) are registered: two cycles each, never back to back. Any code there pays it,
    /// whatever the regions say; the Code region (below 0x20000000) does not; single-bus
    /// cores (M0, M0+) do not.
    #[test]
    fn system_bus_fetch() {
        let m3 = model(table("cortex-m3"));
        let movs = "f240 0004; f240 0004; f240 0004";
        let nops = "bf00; bf00; bf00; bf00";
        for base in [0x2000_0000u64, 0x6000_0000, 0xDFFF_FF00, 0xE010_0000] {
            // 32-bit 1-cycle instructions: a word per instruction, a fetch per 2 cycles
            assert_eq!(
                m3.block_costs(&block(base, movs)).cycles,
                vec![1, 2, 2],
                "{base:#x}"
            );
            // 16-bit sequential code: two per word, the 2-cycle fetch is hidden
            assert_eq!(m3.block_costs(&block(base, nops)).cycles, vec![1; 4]);
            // a branch target's word: one cycle more than from ICode (P 1 -> 2 for a
            // PC-relative branch); a 32-bit target at a halfword offset needs two words
            let shape = |pc, s: &str| plan_tb(&block(pc, s), &m3, &[]).shape;
            assert_eq!(
                m3.event_cycles(Event::Taken(Refill::Direct), &shape(base, NOP)),
                1 + 1
            );
            assert_eq!(m3.head_cycles(&block(base + 2, MOV_W)[0]), (1 + 2, 2));
            // exception entry to a handler there: its first fetch
            assert_eq!(m3.event_cycles(Event::Entry, &shape(base, NOP)), 12 + 1);
        }
        // the Code region and the Private Peripheral Bus range: no difference
        for base in [0x0u64, 0x1FFF_FF00, 0xE000_0000] {
            assert_eq!(m3.block_costs(&block(base, movs)).cycles, vec![1; 3]);
            assert_eq!(m3.head_cycles(&block(base, NOP)[0]), (0, 0));
        }
        // SRAM wait states add to the registered cycle
        let sram1 = with(ModelConfig {
            core: table("cortex-m3"),
            sram: vec![Region {
                base: 0x2000_0000,
                size: 0x1000,
            }],
            sram_ws: 1,
            ..ModelConfig::default()
        });
        assert_eq!(sram1.head_cycles(&block(0x2000_0000, NOP)[0]), (2, 2));
        assert_eq!(
            sram1.block_costs(&block(0x2000_0000, movs)).cycles,
            vec![1, 3, 3]
        );
        // single-bus cores
        for core in ["cortex-m0", "cortex-m0plus"] {
            let m = model(table(core));
            assert_eq!(m.block_costs(&block(0x2000_0000, nops)).cycles, vec![1; 4]);
            assert_eq!(m.head_cycles(&block(0x2000_0000, NOP)[0]), (0, 0));
        }
    }

    #[test]
    fn heads_and_events() {
        let cfg = flash2_sram1_prefetch();
        let m = with(cfg);
        // aligned 16-bit / 32-bit first instruction: one fetch word
        assert_eq!(m.head_cycles(&block(0x100, NOP)[0]), (2, 2));
        assert_eq!(m.head_cycles(&block(0x100, MOV_W)[0]), (2, 2));
        // 32-bit at a halfword offset inside a 64-bit flash line: one read, and the core's
        // alignment cycle; straddling two lines: two reads
        assert_eq!(m.head_cycles(&block(0x102, MOV_W)[0]), (1 + 2, 2));
        assert_eq!(m.head_cycles(&block(0x106, MOV_W)[0]), (1 + 4, 4));
        let shape = |pc, s: &str| plan_tb(&block(pc, s), &m, &[]).shape;
        let t = shape(0x100, NOP);
        assert_eq!(m.event_cycles(Event::None, &t), 0);
        assert_eq!(m.event_cycles(Event::Taken(Refill::Direct), &t), 1 + 2);
        assert_eq!(m.event_cycles(Event::Taken(Refill::Register), &t), 2 + 2);
        assert_eq!(m.event_cycles(Event::Taken(Refill::Load), &t), 3 + 2);
        assert_eq!(m.event_cycles(Event::Entry, &t), 12 + 8 + 2);
        // the return instruction's execute cycle is the first of the 10 (and of the 6)
        assert_eq!(m.event_cycles(Event::Return, &t), 10 - 1 + 8 + 2);
        assert_eq!(m.event_cycles(Event::TailChain, &t), 6 - 1 + 2);
        let z = model(table("cortex-m3"));
        let t = plan_tb(&block(0x102, MOV_W), &z, &[]).shape;
        assert_eq!(
            z.event_cycles(Event::Taken(Refill::Direct), &t),
            2,
            "P 1 + alignment"
        );
        assert_eq!(z.event_cycles(Event::Entry, &t), 12);
        assert_eq!(z.event_cycles(Event::Return, &t), 10 - 1);
        assert_eq!(z.event_cycles(Event::TailChain, &t), 6 - 1);
        // an SVC costs nothing of its own: its cycle is the first of its entry's 12
        assert_eq!(costs(&z, &format!("{NOP}; {SVC}; {BKPT}")), vec![1, 0, 1]);
        for (core, p, entry, ret) in [
            (table("cortex-m0"), [2, 2, 3], 16, 12),
            (table("cortex-m0plus"), [1, 1, 2], 15, 11),
            (table("cortex-m4"), [1, 2, 3], 12, 10 - 1),
        ] {
            let mm = model(core);
            let t = plan_tb(&block(0x102, MOV_W), &mm, &[]).shape;
            let align = u64::from(core == table("cortex-m4"));
            assert_eq!(
                mm.event_cycles(Event::Taken(Refill::Direct), &t),
                p[0] + align
            );
            assert_eq!(
                mm.event_cycles(Event::Taken(Refill::Register), &t),
                p[1] + align
            );
            assert_eq!(
                mm.event_cycles(Event::Taken(Refill::Load), &t),
                p[2] + align
            );
            assert_eq!(mm.event_cycles(Event::Entry, &t), entry);
            assert_eq!(mm.event_cycles(Event::Return, &t), ret);
        }
    }

    /// A Cortex-M4 with 64 KiB of flash at 5 wait states behind the ART accelerator.
    fn art_config(prefetch: bool) -> ModelConfig {
        ModelConfig {
            core: table("cortex-m4"),
            flash: Some(Region {
                base: 0,
                size: 0x10000,
            }),
            flash_ws: 5,
            prefetch,
            accel: Accel::Art,
            ..ModelConfig::default()
        }
    }

    /// `accel=art` (STM32F4 ART, RM0090 3.4.2): 128-bit lines, the instruction cache
    /// decides fetch wait states at block entry; flash data reads are data-cache hits.
    #[test]
    fn art_accelerator() {
        let cfg = art_config;
        let m = with(cfg(true));
        let movs8 = "f240 0004; f240 0004; f240 0004; f240 0004; \
                     f240 0004; f240 0004; f240 0004; f240 0004";
        // static costs carry no fetch stalls (the cache charges them)
        assert_eq!(costs(&m, movs8), vec![1; 8]);
        assert_eq!(
            m.head_cycles(&block(0x102, MOV_W)[0]),
            (1, 0),
            "alignment only"
        );
        // literal loads and flash data: data-cache hits
        assert_eq!(costs(&m, &format!("{NOP}; {LDR_LIT}")), vec![1, 2]);
        assert_eq!(m.data_ws(0x10), 0);
        assert!(!m.has_data_ws());
        // first pass, cold: the target line 0x100 misses (5), the next line 0x110 is
        // prefetched while line 0x100's four 1-cycle instructions run: 6 - 4 = 2
        let t = plan_tb(&block(0x100, movs8), &m, &[]).shape;
        assert_eq!(m.event_cycles(Event::Taken(Refill::Direct), &t), 1 + 5 + 2);
        // second pass: both lines hit
        assert_eq!(m.event_cycles(Event::Taken(Refill::Direct), &t), 1);
        assert_eq!(m.event_cycles(Event::Entry, &t), 12);
        // without prefetch the next line is asked for one word ahead: 6 - 1 = 5
        let m = with(cfg(false));
        let t = plan_tb(&block(0x100, movs8), &m, &[]).shape;
        assert_eq!(m.event_cycles(Event::Taken(Refill::Direct), &t), 1 + 5 + 5);
        assert_eq!(m.event_cycles(Event::Taken(Refill::Direct), &t), 1);
        // code outside flash never touches the cache (in the Code region, so no
        // System-bus fetch cycle either)
        let t = plan_tb(&block(0x1000_0000, movs8), &m, &[]).shape;
        assert_eq!(m.event_cycles(Event::Taken(Refill::Direct), &t), 1);
        // accel=art without flash= is refused by the settings; with accel=none the same
        // block pays its lines statically (64-bit lines, prefetch): 5 + 3 x (6 - 2)
        let f1 = with(ModelConfig {
            accel: Accel::None,
            ..cfg(true)
        });
        let t = plan_tb(&block(0x100, movs8), &f1, &[]).shape;
        let stat: u32 = f1.block_costs(&block(0x100, movs8)).cycles.iter().sum();
        assert_eq!(stat, 8 + 3 * 4);
        assert_eq!(f1.event_cycles(Event::Taken(Refill::Direct), &t), 1 + 5);
    }

    /// With `accel=art`, cutting a cold straight run anywhere charges the same cycles.
    #[test]
    fn art_block_splits_do_not_change_cycles() {
        let cfg = art_config;
        let run = format!(
            "{NOP}; {MOV_W}; {LDR}; {NOP}; {LDR_R2_R3}; {MOV_W}; {ADDS}; {MOV_W}; {NOP}; \
             {MOV_W}; {MOV_W}; {ADDS}; {NOP}; {MOV_W}; {STR}; {MOV_W}; {NOP}; {NOP}"
        );
        let total = |m: &CycleModel, blocks: &[&[DecodedInsn]]| {
            let mut sum = 0u64;
            let mut prev: Option<u64> = None;
            for b in blocks {
                let costs = m.block_costs(b);
                let shape = plan_tb(b, m, &[]).shape;
                let ev = prev.map_or(Event::Taken(Refill::Direct), Event::Next);
                sum = sum
                    .wrapping_add(m.event_cycles(ev, &shape))
                    .wrapping_add(costs.cycles.iter().map(|&c| u64::from(c)).sum::<u64>());
                prev = Some(costs.tail_ctx[b.len() - 1]);
            }
            sum
        };
        for prefetch in [true, false] {
            for start in [0x100u64, 0x102, 0x104, 0x106, 0x10a, 0x10e] {
                let b = block(start, &run);
                let whole = total(&with(cfg(prefetch)), &[&b]);
                for k in 1..b.len() {
                    let split = total(&with(cfg(prefetch)), &[&b[..k], &b[k..]]);
                    assert_eq!(
                        split, whole,
                        "prefetch {prefetch} at {start:#x} cut before {k}"
                    );
                }
            }
        }
    }

    #[test]
    fn art_cache_replaces_the_least_recently_used_line() {
        let mut c = ICache::new();
        for line in 0..ART_LINES as u64 {
            assert!(!c.access(line * ART_LINE), "cold");
        }
        assert!(c.access(0), "64 lines fit");
        assert!(
            !c.access(ART_LINES as u64 * ART_LINE),
            "a 65th line evicts the LRU one"
        );
        assert!(c.access(0), "line 0 was used recently: kept");
        assert!(!c.access(ART_LINE), "line 1 was the least recently used");
    }

    /// Where QEMU cuts a straight run of code into blocks must not change its cycles:
    /// costing it whole equals costing the two parts plus the `Event::Next` correction.
    #[test]
    fn block_splits_do_not_change_cycles() {
        let flash = Some(Region {
            base: 0,
            size: 0x10000,
        });
        let configs = [
            ModelConfig {
                core: table("cortex-m3"),
                ..ModelConfig::default()
            },
            ModelConfig {
                core: table("cortex-m3"),
                flash,
                flash_ws: 2,
                ..ModelConfig::default()
            },
            ModelConfig {
                core: table("cortex-m3"),
                flash,
                flash_ws: 1,
                ..ModelConfig::default()
            },
            ModelConfig {
                core: table("cortex-m4"),
                flash,
                flash_ws: 3,
                prefetch: true,
                ..ModelConfig::default()
            },
            ModelConfig {
                core: table("cortex-m0"),
                flash,
                flash_ws: 1,
                ..ModelConfig::default()
            },
            ModelConfig {
                core: table("cortex-m3"),
                flash,
                flash_ws: 2,
                prefetch: true,
                ..ModelConfig::default()
            },
            ModelConfig {
                core: table("cortex-m3"),
                flash,
                flash_ws: 5,
                ..ModelConfig::default()
            },
        ];
        let runs = [
            format!("{LDR}; {LDR_R2_R3}; {STR}; {LDR_R1_R0}; {ADD_R1}; {LDR}; {STR_REG}"),
            format!("{MOV_W}; {STR}; {NOP}; {STR_W}; {LDR}; {LDRD}; {LDR_LIT}; {ADDS}"),
            format!("{ADD_SP}; {STR_SP}; {PUSH3}; {MOV_W}; {MOV_W}; {NOP}; {UDIV}; {NOP}"),
            format!("{NOP}; {MOV_W}; {LDR}; {NOP}; {LDR_R2_R3}; {MLA}; {STR}; {LDREX}"),
            "f240 0c08; f2c2 1c00; f8cc c000; 6808; bf00; f240 0004; 681a".to_string(),
            format!("{ADDS}; {LDR}; {NOP}; {ADDS}; {STR}; {NOP}; {LDR_R2_R3}; {ADDS}; {NOP}"),
        ];
        for cfg in &configs {
            let m = with(cfg.clone());
            for run in &runs {
                for start in [0x100u64, 0x102, 0x104, 0x106] {
                    let b = block(start, run);
                    let whole: u64 = m.block_costs(&b).cycles.iter().map(|&c| u64::from(c)).sum();
                    for k in 1..b.len() {
                        let (p1, p2) = (m.block_costs(&b[..k]), m.block_costs(&b[k..]));
                        let sum =
                            |c: &BlockCosts| c.cycles.iter().map(|&c| u64::from(c)).sum::<u64>();
                        let split = sum(&p1)
                            .wrapping_add(m.next_cycles(p1.tail_ctx[k - 1], p2.head_ctx))
                            .wrapping_add(sum(&p2));
                        assert_eq!(
                            split,
                            whole,
                            "{:?} ws {} prefetch {}: '{run}' at {start:#x} cut before {k}",
                            cfg.core.map(|t| t.name),
                            cfg.flash_ws,
                            cfg.prefetch
                        );
                    }
                }
            }
        }
    }
}
