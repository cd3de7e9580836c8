//! QEMU-facing part: registration, translation-time instrumentation, callbacks.
//!
//! Threading: `mps2-an385` has one vCPU and the plugin refuses to load with more, so
//! all execution-time callbacks run on the one vCPU thread. The two counters live in a
//! per-vCPU scoreboard (plugin API v2 and later): TCG-generated inline adds update the
//! vCPU's entry, and the callbacks read and write the same entry through a pointer taken
//! once (see `Counters`). The trace writer sits behind a `Mutex` because the exit
//! callback may run on another thread (QEMU's main thread on a normal shutdown); the
//! mutex is only taken on a probe hit, never on the per-store fast path.

use std::cell::{Cell, UnsafeCell};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufWriter;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

use qemu_plugin::install::{Args, Info};
use qemu_plugin::plugin::{HasCallbacks, Register};
use qemu_plugin::sys::{
    GByteArray, qemu_plugin_read_memory_vaddr, qemu_plugin_scoreboard, qemu_plugin_scoreboard_find,
    qemu_plugin_scoreboard_new,
};
use qemu_plugin::{
    CallbackFlags, MemRW, MemoryInfo, PluginCondition, PluginId, PluginOp, PluginU64,
    RegisterDescriptor, TranslationBlock, VCPUIndex, qemu_plugin_get_registers,
    qemu_plugin_register_atexit_cb, qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu, register,
};

use rtoslab_plugin_config::args::{Config, parse_args};

use crate::cost::{Charge, CostModel, ZeroModel};
use crate::decoded::DecodedInsn;
use crate::events::{self, EventWriter};
use crate::flow::{Event, Exit, Seen, TargetSrc, TbShape, Tracker, exc_ret_source};
use crate::fpctx::{EntryState, FpContext};
use crate::fpu::fp_op;
use crate::instrument::plan_tb;
use crate::irqwin::{self, At, MaskOp, Windows};
use crate::itcond::{ItGroup, ItTail, it_groups};
use crate::thumb::{self, Class, Flow, Insn, Mem};
use crate::timing::CycleModel;
use crate::trace::{FLAG_CYCLES_MODELLED, STATUS_INSN_LIMIT, STATUS_UNALIGNED, TraceWriter};

/// Exit code when the instruction limit stops the guest (like timeout(1)).
const EXIT_INSN_LIMIT: i32 = 124;

/// One vCPU's scoreboard entry: the two counters the inline adds advance, and the flag
/// that enables the PC-value reads (`on_exc_ret_branch`, a conditional callback).
#[repr(C)]
struct Entry {
    insns: u64,
    cycles: u64,
    /// 1 while the tracker has an exception active (set at every block entry).
    in_handler: u64,
}

/// The counters: a QEMU scoreboard with one `Entry` per vCPU, and the address of vCPU
/// 0's entry for the callbacks, taken when the vCPU starts (`on_vcpu_init`: QEMU hands
/// out entries only for vCPUs that exist). QEMU moves a scoreboard's storage only when it
/// grows it for another vCPU; the plugin refuses machines with more than one vCPU (at
/// install and again in `on_vcpu_init`), so the address never changes after that.
struct Counters {
    score: *mut qemu_plugin_scoreboard,
}

// SAFETY: the entry is written only by TCG code and by callbacks on the single vCPU
// thread (or read after the vCPU stopped, at exit); the pointers never change.
unsafe impl Sync for Counters {}
unsafe impl Send for Counters {}

static COUNTERS: OnceLock<Counters> = OnceLock::new();

/// vCPU 0's scoreboard entry (null until `on_vcpu_init`), in a plain static so the
/// per-block and per-store paths read it with one load (no `OnceLock` state check).
static ENTRY: AtomicPtr<Entry> = AtomicPtr::new(std::ptr::null_mut());

fn counters() -> &'static Counters {
    // Set in `install`, before any callback is registered.
    COUNTERS.get().expect("counters set at install")
}

impl Counters {
    fn new() -> Counters {
        // SAFETY: plain QEMU API calls; the scoreboard lives as long as the plugin.
        let score = unsafe { qemu_plugin_scoreboard_new(std::mem::size_of::<Entry>()) };
        Counters { score }
    }

    /// The scoreboard field at `offset` bytes of `Entry`, for an inline add.
    fn field(&self, offset: usize) -> PluginU64 {
        PluginU64 {
            score: self.score,
            offset,
        }
    }
}

/// vCPU 0's entry (set before the vCPU runs any code).
#[inline(always)]
fn entry() -> *mut Entry {
    ENTRY.load(Ordering::Relaxed)
}

#[inline(always)]
fn insns_now() -> u64 {
    // SAFETY: aligned u64 in the scoreboard; see `Counters`.
    unsafe { std::ptr::read_volatile(&raw const (*entry()).insns) }
}

#[inline(always)]
fn cycles_now() -> u64 {
    // SAFETY: as above.
    unsafe { std::ptr::read_volatile(&raw const (*entry()).cycles) }
}

type Writer = TraceWriter<BufWriter<File>>;
type Events = Mutex<EventWriter<BufWriter<File>>>;

struct Runtime {
    base: u64,
    size: u64,
    insn_limit: u64,
    model: &'static dyn CostModel,
    /// The same model when it is a Cortex-M cycle model (the only dynamic one): the
    /// block-entry path calls it directly, so its charge is inlined there.
    cycle: Option<&'static CycleModel>,
    /// The model charges block-entry events (taken branches, exceptions).
    dynamic: bool,
    /// Block-entry charges may be remembered per pair of blocks (`Block`): the model's
    /// charge has no run-time state (not the ART cache) and no debug output is wanted.
    memo: bool,
    /// The model charges data wait states by address (memory callbacks).
    data_ws: bool,
    /// Exception handler entry addresses, sorted (`handlers=`).
    handlers: Vec<u32>,
    writer: Mutex<Writer>,
    /// Exception event file (`events=`, the timeline); None: off.
    events: Option<Events>,
    /// Previous block and active exceptions, for the dynamic part (vCPU thread only).
    tracker: UnsafeCell<Tracker<'static>>,
    /// What the current block's entry charged (vCPU thread only): a probe store in the
    /// block must not count the part that belongs to it or to later instructions.
    entry_charge: UnsafeCell<Charge>,
    /// The PC value the last exception-return-capable branch loaded, read just before it
    /// ran (vCPU thread only; taken by the next block entry).
    seen_target: UnsafeCell<Option<u32>>,
    /// The live vector table (vCPU thread only; see `live_vector`).
    vectors: UnsafeCell<LiveVectors>,
    /// With a priced FPU: the FP context words of an extended frame, and the FP-context
    /// state (vCPU thread only; `fpctx`, `fp_charge`).
    fp: Option<(u32, UnsafeCell<FpContext>)>,
    /// Masked-window tracking (`irq_windows=`; vCPU thread only, read at exit) and its
    /// report file.
    irqwin: Option<(UnsafeCell<Windows>, String)>,
}

/// The exception vectors' targets as the guest's memory holds them now, re-read after a
/// store into the table or into VTOR (`on_store` bumps `generation`).
struct LiveVectors {
    generation: u64,
    /// `generation` when `targets` were read; `u64::MAX`: never.
    read_at: u64,
    /// Handler entry addresses (Thumb bit clear), sorted.
    targets: Vec<u32>,
    /// The table's address range, [lo, lo + len).
    lo: u64,
    len: u64,
}

// SAFETY: `tracker` and `entry_charge` are only touched from callbacks on the single
// vCPU thread; everything else is immutable or behind the mutex.
unsafe impl Sync for Runtime {}

static RUNTIME: OnceLock<Runtime> = OnceLock::new();

fn fatal(msg: &str) -> ! {
    eprintln!("rtoslab-plugin: {msg}");
    std::process::exit(1);
}

fn lock(rt: &Runtime) -> MutexGuard<'_, Writer> {
    rt.writer.lock().unwrap_or_else(|e| e.into_inner())
}

#[inline(always)]
fn add_cycles(n: u64) {
    // SAFETY: as for the inline adds; callbacks run on the vCPU thread. Wrapping: a
    // negative correction is added as two's complement.
    unsafe {
        let c = &raw mut (*entry()).cycles;
        *c = (*c).wrapping_add(n);
    }
}

/// Store callback, registered on every instruction that may store. The fast path is a
/// subtraction and a compare (plus, with data wait states, a region lookup).
#[inline(always)]
fn on_store(rt: &'static Runtime, vaddr: u64, cost: u32, idx: usize) {
    let off = vaddr.wrapping_sub(rt.base);
    if off < rt.size {
        probe_hit(rt, off, cost, idx);
    }
    if rt.data_ws {
        // After the probe check: a probe's value excludes its own store's cost.
        add_cycles(rt.model.data_ws(vaddr));
    }
    if rt.dynamic {
        // SAFETY: vCPU thread only (see `Runtime`).
        let v = unsafe { &mut *rt.vectors.get() };
        if vaddr.wrapping_sub(v.lo) < v.len || vaddr == u64::from(VTOR) {
            v.generation += 1;
        }
    }
}

/// Load callback (only with data wait states): charge the access's region.
#[inline(always)]
fn on_load(rt: &'static Runtime, vaddr: u64) {
    add_cycles(rt.model.data_ws(vaddr));
}

#[cold]
#[inline(never)]
fn probe_hit(rt: &'static Runtime, off: u64, cost: u32, idx: usize) {
    // The store's segment (it is the segment's last instruction) has been added: the
    // counters include the store itself, and the block entry's charge may include cycles
    // of the store or of instructions after it.
    let insns = insns_now().wrapping_sub(1);
    // SAFETY: vCPU thread only (see `Runtime`).
    let entry = unsafe { *rt.entry_charge.get() };
    let cycles = cycles_now()
        .wrapping_sub(u64::from(cost))
        .wrapping_sub(entry.from_insn(idx));
    let mut w = lock(rt);
    if off & 3 != 0 {
        w.set_status(STATUS_UNALIGNED);
        return;
    }
    if let Err(e) = w.hit((off / 4) as u32, insns, cycles) {
        // Nothing more can be trusted: stop without an end record (reads as truncated).
        w.finish(0, 0, 0).ok();
        drop(w);
        fatal(&format!("writing the trace failed: {e}"));
    }
}

/// Per-block callback without a dynamic model: the instruction limit only (registered on
/// blocks that can loop).
#[inline(always)]
fn on_tb_limit(rt: &'static Runtime) {
    let now = insns_now();
    if now >= rt.insn_limit {
        stop_on_limit(rt, now);
    }
}

/// A translated block as its entry callback sees it: its shape, and the charge of the
/// last `Next` or `Taken` entry into it from a block with a pure exit (`memo_prev`, null
/// when none), which every later entry from that block run whole repeats
/// (`Tracker::enter_again`). Kept for the block's lifetime; touched on the vCPU thread
/// only.
struct Block {
    shape: TbShape,
    /// The block executes a floating-point instruction (lazy FP stacking: `fpctx`).
    has_fp: bool,
    memo_prev: Cell<*const TbShape>,
    memo_charge: Cell<Charge>,
}

// SAFETY: the cells are only touched from callbacks on the single vCPU thread.
unsafe impl Sync for Block {}
unsafe impl Send for Block {}

/// Per-block callback with a dynamic model (every block): its block-entry charge, and the
/// instruction limit.
#[inline(always)]
fn on_tb_enter(rt: &'static Runtime, blk: &'static Block) {
    let now = insns_now();
    let shape = &blk.shape;
    {
        // SAFETY: vCPU thread only (see `Runtime`).
        let tr = unsafe { &mut *rt.tracker.get() };
        // SAFETY: vCPU thread only (see `Runtime`).
        let seen = Seen {
            target: unsafe { (*rt.seen_target.get()).take() },
        };
        // The event, when not a remembered one (those are `Next` or `Taken`).
        let mut fresh = Event::None;
        let charge = if rt.memo && tr.enter_again(shape, now, blk.memo_prev.get()) {
            // The same event as the remembered entry: a pure function of the two blocks
            // and a model without run-time state (`Runtime::memo`).
            blk.memo_charge.get()
        } else {
            let key = tr.pure_prev(now);
            let prev_pc = if rt.irqwin.is_some() {
                tr.prev_last_pc()
            } else {
                0
            };
            let ev = tr.enter_seen(shape, now, seen, |addr| live_vector(rt, addr));
            let charge = match (ev, rt.cycle) {
                (Event::None, _) => Charge::default(),
                (_, Some(m)) => m.event_charge(ev, shape),
                (_, None) => rt.model.event_charge(ev, shape),
            };
            if let Some((w, _)) = &rt.irqwin
                && matches!(ev, Event::Entry | Event::Return | Event::TailChain)
            {
                irqwin_event(w, ev, now, prev_pc, shape.start as u32, charge.before());
            }
            if let (Some(k), Event::Next(_) | Event::Taken(_)) = (key, ev) {
                blk.memo_prev.set(k);
                blk.memo_charge.set(charge);
            }
            if let Some(evw) = &rt.events {
                exc_event(evw, ev, shape.start, now);
            }
            #[cfg(feature = "debug-events")]
            debug_event(now, shape, ev, charge.total(), tr.frames());
            fresh = ev;
            charge
        };
        let charge = match &rt.fp {
            Some((words, fp)) if blk.has_fp || matches!(fresh, Event::Entry | Event::Return) => {
                fp_charge(fp, *words, fresh, blk.has_fp, charge)
            }
            _ => charge,
        };
        // SAFETY: the vCPU's own entry (see `Counters`).
        unsafe { (*entry()).in_handler = u64::from(tr.in_handler()) };
        add_cycles(charge.total());
        // SAFETY: vCPU thread only (see `Runtime`).
        unsafe { *rt.entry_charge.get() = charge };
    }
    if rt.insn_limit != 0 && now >= rt.insn_limit {
        stop_on_limit(rt, now);
    }
}

/// The timeline's exception events (only with `events=`): entry, return and tail-chain,
/// at the block entry that the model charges for them, before that charge is added.
#[cold]
#[inline(never)]
fn exc_event(evw: &Events, ev: Event, pc: u64, now: u64) {
    let kind = match ev {
        Event::Entry => events::KIND_ENTRY,
        Event::Return => events::KIND_RETURN,
        Event::TailChain => events::KIND_TAIL_CHAIN,
        _ => return,
    };
    let mut w = evw.lock().unwrap_or_else(|e| e.into_inner());
    if let Err(e) = w.event(kind, pc as u32, now, cycles_now()) {
        fatal(&format!("writing the event file failed: {e}"));
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
    fp: &UnsafeCell<FpContext>,
    words: u32,
    ev: Event,
    has_fp: bool,
    charge: Charge,
) -> Charge {
    // SAFETY: vCPU thread only (see `Runtime`).
    let ctx = unsafe { &mut *fp.get() };
    let mut extra = match ev {
        Event::Entry => {
            let exc_return = read_reg(14).unwrap_or(u32::MAX);
            let st = EntryState {
                exc_return,
                // LSPACT unreadable: the reset value of LSPEN (1) makes the save lazy
                lspact: exc_return & 0x10 != 0
                    || read_words(FPCCR, 1).is_none_or(|w| w[0] & 1 != 0),
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

/// Developer aid (`cargo build --release --features debug-events`): with
/// `RTOSLAB_DEBUG_EVENTS=FROM:TO` (instruction counts) print every block-entry event in
/// that window on stderr.
#[cfg(feature = "debug-events")]
fn debug_event(now: u64, shape: &TbShape, ev: Event, c: u64, frames: &[u32]) {
    static WINDOW: OnceLock<(u64, u64)> = OnceLock::new();
    let (from, to) = *WINDOW.get_or_init(|| {
        std::env::var("RTOSLAB_DEBUG_EVENTS")
            .ok()
            .and_then(|v| {
                let (a, b) = v.split_once(':')?;
                Some((a.parse().ok()?, b.parse().ok()?))
            })
            .unwrap_or((0, 0))
    });
    if (from..to).contains(&now) {
        eprintln!(
            "insns {now} cycles {} pc {:#x} n {} {ev:?} +{} frames {frames:?}",
            cycles_now(),
            shape.start,
            shape.n_insns,
            c as i64
        );
    }
}

// Reading the machine (plugin API v4), only where it decides an event: the PC value of an
// exception-return-capable branch while an exception is active, and the vector table
// after an indirect branch (docs/timing-model.md, "Exceptions").

/// Vector Table Offset Register and Interrupt Controller Type Register (ARMv7-M ARM
/// B3.2.2 and B3.4.3; the same addresses on ARMv6-M, whose VTOR is optional).
const VTOR: u32 = 0xE000_ED08;
const ICTR: u32 = 0xE000_E004;
/// Floating-point Context Control Register (ARMv7-M ARM B3.2.2, FP extension): bit 0
/// LSPACT, bit 30 LSPEN.
const FPCCR: u32 = 0xE000_EF34;

unsafe extern "C" {
    // glib, provided by the QEMU process the plugin is loaded into.
    fn g_byte_array_new() -> *mut GByteArray;
    fn g_byte_array_free(array: *mut GByteArray, free_segment: bool) -> *mut u8;
}

/// `n` little-endian words of guest memory at `addr` (None when not readable).
fn read_words(addr: u32, n: usize) -> Option<Vec<u32>> {
    // SAFETY: a glib byte array owned here, filled by QEMU, freed before returning.
    unsafe {
        let buf = g_byte_array_new();
        let ok = qemu_plugin_read_memory_vaddr(u64::from(addr), buf, 4 * n)
            && (*buf).len as usize >= 4 * n;
        let out = ok.then(|| {
            std::slice::from_raw_parts((*buf).data, 4 * n)
                .chunks_exact(4)
                .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                .collect()
        });
        g_byte_array_free(buf, true);
        out
    }
}

/// Is `addr` the target of an entry of the live vector table? Re-reads the table (at
/// VTOR, 16 + the implemented external interrupts from ICTR, at most 256 entries) when
/// a store may have changed it.
fn live_vector(rt: &'static Runtime, addr: u64) -> bool {
    // SAFETY: vCPU thread only (see `Runtime`).
    let v = unsafe { &mut *rt.vectors.get() };
    if v.read_at != v.generation {
        let vtor = read_words(VTOR, 1).map_or(0, |w| w[0] & !0x7F);
        let irqs = read_words(ICTR, 1).map_or(32, |w| 32 * ((w[0] as usize & 0xF) + 1));
        let n = (16 + irqs).min(256);
        let mut targets: Vec<u32> = read_words(vtor, n)
            .unwrap_or_default()
            .iter()
            .skip(1) // the initial stack pointer
            .filter(|&&w| w != 0)
            .map(|&w| w & !1)
            .collect();
        targets.sort_unstable();
        targets.dedup();
        v.targets = targets;
        v.lo = u64::from(vtor);
        v.len = 4 * n as u64;
        v.read_at = v.generation;
    }
    u32::try_from(addr).is_ok_and(|a| v.targets.binary_search(&a).is_ok())
}

/// The core registers r0-r12, SP, LR (index = register number), from `on_vcpu_init`.
static REGS: OnceLock<Vec<Option<RegisterDescriptor<'static>>>> = OnceLock::new();

/// The xPSR register (its IPSR field: `QemuMachine`), from `on_vcpu_init`.
static XPSR: OnceLock<Option<RegisterDescriptor<'static>>> = OnceLock::new();

fn read_reg(r: u8) -> Option<u32> {
    let d = REGS.get()?.get(usize::from(r))?.as_ref()?;
    let b = d.read().ok()?;
    Some(u32::from_le_bytes(b.get(..4)?.try_into().ok()?))
}

/// QEMU's NVIC/SCB and IPSR, read for masked-window tracking (`irqwin::Machine`).
struct QemuMachine;

impl irqwin::Machine for QemuMachine {
    fn word(&self, addr: u32) -> Option<u32> {
        read_words(addr, 1).map(|w| w[0])
    }
    fn ipsr(&self) -> u32 {
        let read = || {
            let b = XPSR.get()?.as_ref()?.read().ok()?;
            Some(u32::from_le_bytes(b.get(..4)?.try_into().ok()?))
        };
        // IPSR lives in the CPU state QEMU keeps up to date (not a TCG-cached flag).
        read().map_or(0, |v| v & 0x1FF)
    }
}

/// An exception entry, return or tail-chain for masked-window tracking: the new block
/// (at `start`) begins after `before` cycles of entry/return charge; `prev_pc` is the
/// exception-return instruction (the previous block's last).
#[cold]
#[inline(never)]
fn irqwin_event(
    w: &UnsafeCell<Windows>,
    ev: Event,
    now: u64,
    prev_pc: u32,
    start: u32,
    before: u32,
) {
    let c = cycles_now();
    let close = At {
        insns: now,
        cycles: c,
        pc: prev_pc,
        lr: 0,
    };
    let open = At {
        insns: now,
        cycles: c + u64::from(before),
        pc: start,
        lr: 0,
    };
    // SAFETY: vCPU thread only (see `Runtime`).
    let w = unsafe { &mut *w.get() };
    w.exception_event(&QemuMachine, !matches!(ev, Event::Entry), close, open);
}

/// Callback on an instruction that changes masking (`irqwin::mask_op`), just before it
/// runs: its effect counts from its completion. `suffix_insns`/`suffix_cycles`: the
/// instructions after it in its counting segment and their static cycles (already in
/// the counters: the segment's inline add ran first).
fn on_mask_insn(
    rt: &'static Runtime,
    op: MaskOp,
    idx: usize,
    pc: u32,
    suffix_insns: u64,
    suffix_cycles: u64,
) {
    let Some((w, _)) = &rt.irqwin else { return };
    let rn = match op {
        MaskOp::Msr { rn, .. } => read_reg(rn).unwrap_or(0),
        MaskOp::Cps { .. } => 0,
    };
    // SAFETY: vCPU thread only (see `Runtime`).
    let entry = unsafe { *rt.entry_charge.get() };
    let at = At {
        insns: insns_now().wrapping_sub(suffix_insns),
        cycles: cycles_now()
            .wrapping_sub(suffix_cycles)
            .wrapping_sub(entry.from_insn(idx + 1)),
        pc,
        lr: read_reg(14).unwrap_or(0),
    };
    // SAFETY: vCPU thread only (see `Runtime`).
    unsafe { &mut *w.get() }.mask_changed(op, rn, at);
}

/// IT slots cut off by the end of a translated block, by the address they continue at
/// (translation time only; `itcond::ItTail`).
static IT_TAILS: Mutex<BTreeMap<u64, ItTail>> = Mutex::new(BTreeMap::new());

/// Callback with register access on an IT block's first conditional instruction, just
/// before it runs (`itcond`): read the flags and correct the cycles for the slots whose
/// condition fails. The segment's inline add has run (registered first).
fn on_it_block(g: &ItGroup) {
    let xpsr = XPSR
        .get()
        .and_then(|d| d.as_ref())
        .and_then(|d| d.read().ok())
        .and_then(|b| Some(u32::from_le_bytes(b.get(..4)?.try_into().ok()?)));
    // Unreadable flags (never seen): keep the executed price.
    if let Some(x) = xpsr {
        add_cycles(g.delta(x));
    }
}

/// Conditional callback (only while an exception is active) on an exception-return-capable
/// branch, just before it runs: the value it is about to load into the PC.
fn on_exc_ret_branch(rt: &'static Runtime, src: TargetSrc) {
    let v = match src {
        TargetSrc::Reg(r) => read_reg(r),
        TargetSrc::Mem {
            base,
            offset,
            index,
        } => (|| {
            let mut addr = read_reg(base)?.wrapping_add(offset as u32);
            if let Some((rm, shift)) = index {
                addr = addr.wrapping_add(read_reg(rm)? << shift);
            }
            read_words(addr, 1).map(|w| w[0])
        })(),
    };
    // SAFETY: vCPU thread only (see `Runtime`).
    unsafe { *rt.seen_target.get() = v };
}

#[cold]
#[inline(never)]
fn stop_on_limit(rt: &'static Runtime, insns: u64) -> ! {
    let res = {
        let mut w = lock(rt);
        w.finish(STATUS_INSN_LIMIT, insns, cycles_now())
    };
    if let Err(e) = res {
        eprintln!("rtoslab-plugin: writing the trace end record failed: {e}");
    }
    eprintln!(
        "rtoslab-plugin: instruction limit {} reached ({insns} instructions): guest stopped",
        rt.insn_limit
    );
    // exit() runs QEMU's atexit handlers, including ours, which sees the trace finished.
    std::process::exit(EXIT_INSN_LIMIT);
}

fn on_exit(rt: &'static Runtime) {
    let mut w = lock(rt);
    // QEMU may stop before the vCPU started (no counters yet): nothing ran.
    let (insns, cycles) = if entry().is_null() {
        (0, 0)
    } else {
        (insns_now(), cycles_now())
    };
    if let Err(e) = w.finish(0, insns, cycles) {
        eprintln!("rtoslab-plugin: writing the trace end record failed: {e}");
    }
    if let Some(evw) = &rt.events {
        let mut ew = evw.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = ew.finish(insns, cycles) {
            eprintln!("rtoslab-plugin: writing the event file end record failed: {e}");
        }
    }
    if let Some((win, path)) = &rt.irqwin {
        // SAFETY: the vCPU has stopped (exit), or this is its own thread (limit stop).
        let win = unsafe { &*win.get() };
        let end = At {
            insns,
            cycles,
            pc: 0,
            lr: 0,
        };
        if let Err(e) = std::fs::write(path, win.to_json(rt.cycle.is_some(), end)) {
            eprintln!("rtoslab-plugin: writing the irq-windows report {path} failed: {e}");
        }
    }
}

fn install(id: PluginId, args: &Args, info: &Info) -> Result<(), String> {
    let cfg: Config = parse_args(&args.raw).map_err(|e| e.0)?;
    if let Some(sys) = &info.system
        && sys.smp_vcpus > 1
    {
        return Err(format!(
            "{} vCPUs: only single-vCPU machines are supported (exact counts)",
            sys.smp_vcpus
        ));
    }
    if !info.target_name.starts_with("arm") {
        return Err(format!(
            "target {}: only 32-bit Arm (Thumb) guests are supported",
            info.target_name
        ));
    }
    let handlers = cfg.model.handlers.clone();
    // Leaked: the model lives as long as the plugin (as `RUNTIME` does).
    let cycle: Option<&'static CycleModel> =
        CycleModel::new(cfg.model.clone()).map(|m| &*Box::leak(Box::new(m)));
    let model: &'static dyn CostModel = match cycle {
        Some(m) => m,
        None => &ZeroModel,
    };
    let file = File::create(&cfg.trace)
        .map_err(|e| format!("cannot create trace file {}: {e}", cfg.trace))?;
    let flags = if model.models_cycles() {
        FLAG_CYCLES_MODELLED
    } else {
        0
    };
    let writer = TraceWriter::new(
        BufWriter::with_capacity(1 << 20, file),
        cfg.base,
        cfg.size,
        flags,
        cfg.max_records,
    )
    .map_err(|e| format!("cannot write trace file {}: {e}", cfg.trace))?;
    let dynamic = model.is_dynamic();
    let events = match &cfg.events {
        None => None,
        Some(_) if !dynamic => {
            return Err(
                "events= needs a timing model (core=...): exceptions are its events".into(),
            );
        }
        Some(path) => {
            let f =
                File::create(path).map_err(|e| format!("cannot create event file {path}: {e}"))?;
            let w = EventWriter::new(
                BufWriter::with_capacity(1 << 16, f),
                flags,
                events::MAX_EVENTS,
            )
            .map_err(|e| format!("cannot write event file {path}: {e}"))?;
            Some(Mutex::new(w))
        }
    };
    let memo = cycle.is_some_and(CycleModel::stateless) && !cfg!(feature = "debug-events");
    let data_ws = model.has_data_ws();
    let irqwin = cfg.irq_windows.clone().map(|path| {
        let entry = cfg.model.core.map_or(0, |t| t.entry);
        (UnsafeCell::new(Windows::new(cfg.prio_bits, entry)), path)
    });
    let rt = Runtime {
        base: u64::from(cfg.base),
        size: u64::from(cfg.size),
        insn_limit: cfg.insn_limit,
        model,
        cycle,
        dynamic,
        memo,
        data_ws,
        handlers,
        writer: Mutex::new(writer),
        events,
        tracker: UnsafeCell::new(Tracker::default()),
        entry_charge: UnsafeCell::new(Charge::default()),
        seen_target: UnsafeCell::new(None),
        vectors: UnsafeCell::new(LiveVectors {
            generation: 0,
            read_at: u64::MAX,
            targets: Vec::new(),
            lo: 0,
            len: 0,
        }),
        fp: cycle
            .and_then(CycleModel::fp_context_words)
            .map(|w| (w, UnsafeCell::new(FpContext::new()))),
        irqwin,
    };
    if COUNTERS.set(Counters::new()).is_err() || RUNTIME.set(rt).is_err() {
        return Err("plugin installed twice".to_string());
    }
    let rt: &'static Runtime = RUNTIME.get().expect("just set");
    qemu_plugin_register_atexit_cb(id, move |_| on_exit(rt)).map_err(|e| e.to_string())?;
    // SAFETY: registering a plain C callback.
    unsafe { qemu_plugin::sys::qemu_plugin_register_vcpu_init_cb(id, Some(on_vcpu_init)) };
    Ok(())
}

/// A vCPU starts: take the address of its scoreboard entry for the callbacks.
extern "C" fn on_vcpu_init(_id: PluginId, vcpu: VCPUIndex) {
    let c = counters();
    // SAFETY: plain QEMU API call on a live scoreboard.
    if vcpu != 0 || !entry().is_null() {
        fatal(&format!(
            "vCPU {vcpu}: only single-vCPU machines are supported (exact counts)"
        ));
    }
    let entry = unsafe { qemu_plugin_scoreboard_find(c.score, vcpu) } as *mut Entry;
    ENTRY.store(entry, Ordering::Relaxed);
    // The register handles (only valid from here on, QEMU's plugin API documentation).
    let all = qemu_plugin_get_registers().unwrap_or_default();
    let names = [
        "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "sp", "lr",
    ];
    let regs = names
        .iter()
        .map(|n| all.iter().find(|d| d.name == *n).cloned())
        .collect();
    let _ = REGS.set(regs);
    let _ = XPSR.set(all.iter().find(|d| d.name == "xpsr").cloned());
}

/// Classify an instruction from its bytes; also returns its halfwords as
/// `DecodedInsn::raw` (first in bits 15:0).
fn decode_insn(data: &[u8]) -> (Insn, u32) {
    let hw = |i: usize| {
        data.get(i..i + 2)
            .map_or(0, |b| u32::from(u16::from_le_bytes([b[0], b[1]])))
    };
    match thumb::decode_bytes(data) {
        Some(i) if usize::from(i.len) == data.len() => {
            let raw = if i.len == 4 {
                hw(0) | (hw(2) << 16)
            } else {
                hw(0)
            };
            (i, raw)
        }
        // QEMU's length is authoritative; a disagreement means an encoding we do not
        // know: treat it as a possible store and possible branch (conservative).
        _ => (
            Insn {
                len: data.len() as u8,
                class: Class::Undefined,
                mem: Mem::Unknown,
                flow: Flow::Exception,
                regs: 0,
            },
            hw(0),
        ),
    }
}

struct RtosLab;

impl Register for RtosLab {
    fn register(&mut self, id: PluginId, args: &Args, info: &Info) -> qemu_plugin::Result<()> {
        // The crate's qemu_plugin_install turns an Err into a panic (an abort with a
        // multi-line message). Print one line and exit like QEMU does when a plugin
        // fails to install.
        if let Err(msg) = install(id, args, info) {
            fatal(&msg);
        }
        Ok(())
    }
}

impl HasCallbacks for RtosLab {
    fn on_translation_block_translate(
        &mut self,
        _id: PluginId,
        tb: TranslationBlock,
    ) -> qemu_plugin::Result<()> {
        let Some(rt) = RUNTIME.get() else {
            return Ok(());
        };
        let n = tb.size();
        if n == 0 {
            return Ok(());
        }
        let mut decoded = Vec::with_capacity(n);
        for insn in tb.instructions() {
            let data = insn.data();
            let (insn_class, raw) = decode_insn(&data);
            decoded.push(DecodedInsn {
                pc: insn.vaddr(),
                insn: insn_class,
                raw,
            });
        }
        let plan = plan_tb(&decoded, rt.model, &rt.handlers);
        let masking: Vec<(usize, MaskOp)> = if rt.irqwin.is_some() {
            decoded
                .iter()
                .enumerate()
                .filter_map(|(i, d)| irqwin::mask_op(d).map(|op| (i, op)))
                .collect()
        } else {
            Vec::new()
        };

        let c = counters();
        let insns_field = c.field(std::mem::offset_of!(Entry, insns));
        let cycles_field = c.field(std::mem::offset_of!(Entry, cycles));
        for seg in &plan.segments {
            qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(
                tb.instruction(seg.first)?,
                PluginOp::QEMU_PLUGIN_INLINE_ADD_U64,
                insns_field,
                u64::from(seg.insns),
            );
            if seg.cycles != 0 {
                qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(
                    tb.instruction(seg.first)?,
                    PluginOp::QEMU_PLUGIN_INLINE_ADD_U64,
                    cycles_field,
                    seg.cycles,
                );
            }
        }
        if !masking.is_empty() {
            // After the inline adds, so they run first (QEMU runs an instruction's
            // callbacks in the order registered).
            let costs = rt.model.block_costs(&decoded).cycles;
            for &(i, op) in &masking {
                let seg_end = plan
                    .segments
                    .iter()
                    .find(|s| s.first <= i && i < s.first + s.insns as usize)
                    .map_or(i, |s| s.first + s.insns as usize - 1);
                let suffix_insns = (seg_end - i) as u64;
                let suffix_cycles: u64 = costs[i + 1..=seg_end].iter().map(|&c| u64::from(c)).sum();
                let pc = decoded[i].pc as u32;
                // Registers: the MSR source and LR (who masks: `At::lr`).
                let flags = CallbackFlags::QEMU_PLUGIN_CB_R_REGS;
                tb.instruction(i)?.register_execute_callback_flags(
                    move |_vcpu: VCPUIndex| {
                        on_mask_insn(rt, op, i, pc, suffix_insns, suffix_cycles)
                    },
                    flags,
                );
            }
        }
        if rt.model.models_cycles() {
            // After the inline adds, so they run first (registration order).
            // IT slots cut off by the end of an earlier block continue here (`ItTail`).
            let mut tails = IT_TAILS.lock().unwrap_or_else(|e| e.into_inner());
            let lead = tails.get(&decoded[0].pc).copied();
            let it = it_groups(&decoded, rt.model, lead);
            if let Some((pc, tail)) = it.tail {
                tails.insert(pc, tail);
            }
            drop(tails);
            for g in it.groups {
                tb.instruction(g.at)?.register_execute_callback_flags(
                    move |_vcpu: VCPUIndex| on_it_block(&g),
                    CallbackFlags::QEMU_PLUGIN_CB_R_REGS,
                );
            }
        }
        for st in &plan.stores {
            let (cost, idx) = (st.cycles, st.idx);
            tb.instruction(st.idx)?
                .register_memory_access_callback_flags(
                    move |_vcpu: VCPUIndex, _info: MemoryInfo, vaddr: u64| {
                        on_store(rt, vaddr, cost, idx)
                    },
                    MemRW::QEMU_PLUGIN_MEM_W,
                    CallbackFlags::QEMU_PLUGIN_CB_NO_REGS,
                );
        }
        for &idx in &plan.data_ws_sites {
            // QEMU 7.2 never called a callback registered for QEMU_PLUGIN_MEM_R alone
            // (measured: loads do reach one registered for MEM_RW). These instructions
            // only load, so MEM_RW sees exactly their loads.
            tb.instruction(idx)?.register_memory_access_callback_flags(
                move |_vcpu: VCPUIndex, _info: MemoryInfo, vaddr: u64| on_load(rt, vaddr),
                MemRW::QEMU_PLUGIN_MEM_RW,
                CallbackFlags::QEMU_PLUGIN_CB_NO_REGS,
            );
        }
        if rt.dynamic
            && let Exit::Indirect(ind) = plan.shape.exit
            && ind.exc_ret
            && let Some(src) = exc_ret_source(&decoded[n - 1])
        {
            // Read only while an exception is active: the Entry flag is the condition.
            let flag = counters().field(std::mem::offset_of!(Entry, in_handler));
            tb.instruction(n - 1)?
                .register_conditional_execute_callback_flags(
                    move |_vcpu: VCPUIndex| on_exc_ret_branch(rt, src),
                    CallbackFlags::QEMU_PLUGIN_CB_R_REGS,
                    PluginCondition::QEMU_PLUGIN_COND_NE,
                    flag,
                    0,
                );
        }
        if rt.dynamic {
            // One per translation, kept for the block's lifetime (QEMU never tells us
            // when a block dies; the crate leaks its callback boxes the same way).
            let blk: &'static Block = Box::leak(Box::new(Block {
                shape: plan.shape,
                has_fp: rt.fp.is_some() && decoded.iter().any(|d| fp_op(d).is_some()),
                memo_prev: Cell::new(std::ptr::null()),
                memo_charge: Cell::new(Charge::default()),
            }));
            tb.register_execute_callback_flags(
                move |_vcpu: VCPUIndex| on_tb_enter(rt, blk),
                CallbackFlags::QEMU_PLUGIN_CB_NO_REGS,
            );
        } else if rt.insn_limit != 0 && plan.may_loop {
            tb.register_execute_callback_flags(
                move |_vcpu: VCPUIndex| on_tb_limit(rt),
                CallbackFlags::QEMU_PLUGIN_CB_NO_REGS,
            );
        }
        Ok(())
    }
}

register!(RtosLab);
