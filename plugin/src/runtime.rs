//! QEMU-facing part: registration, translation-time instrumentation, callbacks. What a
//! callback decides (a block entry's event and charge, a probe's point, the FP context,
//! the live vector table) is `engine`'s, unit-tested without QEMU; this module owns the
//! counters, reads the guest for it (`QemuMachine` as `engine::Guest`) and writes files.
//!
//! Threading and cores: every vCPU has its own counters and its own timing-model state
//! (`engine::Core`: block-entry tracker, exception and FP context, live vector table),
//! indexed by the vCPU index QEMU passes to each callback, so a callback only touches its
//! own vCPU's state. The counters live in a per-vCPU scoreboard (plugin API v2 and later): on a
//! single-vCPU machine TCG-generated inline adds update the entry; with several vCPUs
//! callbacks do (QEMU's per-vCPU inline adds misbehave there: see `CURRENT`). The
//! callbacks read and write the entry through a pointer taken once per vCPU (see
//! `Counters`). rtoslab
//! always runs QEMU with `-icount`, under which QEMU runs all vCPUs round-robin in one
//! thread: callbacks never overlap, and a probe hit may read the other vCPUs' counters
//! for the machine's shared clock (docs/timing-model.md, "Two cores"). The trace writer
//! sits behind a `Mutex` because the exit callback may run on another thread (QEMU's
//! main thread on a normal shutdown); the mutex is only taken on a probe hit, never on
//! the per-store fast path.

use std::cell::UnsafeCell;
use std::collections::BTreeMap;
use std::ffi::{c_uint, c_void};
use std::fs::File;
use std::io::BufWriter;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

use qemu_plugin::install::{Args, Info};
use qemu_plugin::plugin::{HasCallbacks, Register};
use qemu_plugin::sys::{
    GByteArray, qemu_plugin_meminfo_t, qemu_plugin_read_memory_vaddr,
    qemu_plugin_register_vcpu_mem_cb, qemu_plugin_register_vcpu_tb_exec_cb, qemu_plugin_scoreboard,
    qemu_plugin_scoreboard_find, qemu_plugin_scoreboard_new, qemu_plugin_tb,
    qemu_plugin_tb_get_insn,
};
use qemu_plugin::{
    CallbackFlags, MemRW, MemoryInfo, PluginCondition, PluginId, PluginOp, PluginU64,
    RegisterDescriptor, TranslationBlock, VCPUIndex, qemu_plugin_get_registers,
    qemu_plugin_register_atexit_cb, qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu, register,
};

use rtoslab_plugin_config::args::{Config, EXIT_INSN_LIMIT, parse_args};

mod avr_guest;

use crate::clock;
use crate::cost::{CostModel, ZeroModel};
use crate::decoded::DecodedInsn;
use crate::engine::{Block, Core, Engine, Fresh, Guest};
use crate::events::{self, EventWriter};
use crate::flow::{Event, Exit, TargetSrc, exc_ret_source};
use crate::fpu::fp_op;
use crate::instrument::plan_tb;
use crate::irqwin::{self, At, MaskOp, Windows};
use crate::itcond::{ItGroup, ItTail, it_groups};
use crate::thumb::{self, Class, Flow, Insn, Mem};
use crate::timing::CycleModel;
use crate::trace::{FLAG_CYCLES_MODELLED, STATUS_INSN_LIMIT, STATUS_UNALIGNED, Stamp, TraceWriter};

/// One vCPU's scoreboard entry: the two counters the inline adds advance, and the flag
/// that enables the PC-value reads (`on_exc_ret_branch`, a conditional callback).
#[repr(C)]
struct Entry {
    insns: u64,
    cycles: u64,
    /// 1 while the tracker has an exception active (set at every block entry).
    in_handler: u64,
}

/// The counters: a QEMU scoreboard with one `Entry` per vCPU, and the address of each
/// vCPU's entry for the callbacks, taken when the vCPU starts (`on_vcpu_init`: QEMU hands
/// out entries only for vCPUs that exist). QEMU moves a scoreboard's storage only when it
/// grows it for another vCPU, which happens (if at all) while vCPUs are created, before
/// any guest code runs; `on_vcpu_init` takes every known vCPU's address again each time.
struct Counters {
    score: *mut qemu_plugin_scoreboard,
}

// SAFETY: an entry is written only by TCG code and by callbacks of its vCPU, which run
// on the one round-robin thread (or read after the vCPUs stopped, at exit); the
// pointers do not change once guest code runs.
unsafe impl Sync for Counters {}
unsafe impl Send for Counters {}

static COUNTERS: OnceLock<Counters> = OnceLock::new();

/// The most vCPUs the plugin accepts (`install` refuses more).
const MAX_VCPUS: usize = 8;

/// Each vCPU's scoreboard entry (null until its `on_vcpu_init`), in a plain static so
/// the per-block and per-store paths read it with one indexed load (no `OnceLock`
/// state check).
static ENTRY: [AtomicPtr<Entry>; MAX_VCPUS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; MAX_VCPUS];

/// vCPUs started so far (1 + the highest index `on_vcpu_init` has seen).
static STARTED: AtomicUsize = AtomicUsize::new(0);

/// The vCPU running now, on a machine with more than one (set at every block entry).
///
/// Memory and instruction callbacks do not use the vCPU index QEMU passes them: on
/// QEMU 10.0.2 with `mps2-an521` that argument was measured to be 0 on vCPU 0 but 24
/// (one inline add per segment) or 576 (two) on vCPU 1, while block callbacks and
/// `on_vcpu_init` get 1; with the per-vCPU inline adds in place the guest also ran away
/// (docs/timing-model.md, "Two cores"). The cause is QEMU's (`accel/tcg/plugin-gen.c`):
/// under `-icount` the vCPU index is a TCG constant of the translation block, and every
/// scoreboard operation (inline add, conditional callback) multiplies that constant in
/// place by the entry size, so later uses of it in the block, guest code included, read
/// 24, then 576; index 0 survives (0 x 24 = 0). So with several vCPUs the counting
/// segments are added by callbacks (`add_segment`), not inline, and no scoreboard
/// operation is emitted at all. Block callbacks are reliable, so on a
/// multi-vCPU machine every block gets one that records its vCPU here; the vCPUs run in
/// turn on one thread
/// and only switch between blocks, so a callback inside a block reads its own vCPU (a
/// memory-only block that QEMU re-executes for an I/O access runs on the same vCPU right
/// after the block it replaces). On a single-vCPU machine the index is the constant 0.
static CURRENT: AtomicU32 = AtomicU32::new(0);

/// The vCPU a memory or instruction callback runs on (see `CURRENT`); `multi`: the
/// machine has more than one vCPU (fixed at install).
#[inline(always)]
fn vcpu_now(multi: bool) -> VCPUIndex {
    if multi {
        CURRENT.load(Ordering::Relaxed)
    } else {
        0
    }
}

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

/// The entry of `vcpu` (set before that vCPU runs any code).
#[inline(always)]
fn entry(vcpu: VCPUIndex) -> *mut Entry {
    debug_assert!((vcpu as usize) < MAX_VCPUS);
    // SAFETY: QEMU passes only indices of vCPUs it created, which `install` bounded by
    // MAX_VCPUS and `on_vcpu_init` checked (the hot paths skip the bounds check).
    unsafe { ENTRY.get_unchecked(vcpu as usize) }.load(Ordering::Relaxed)
}

#[inline(always)]
fn insns_now(vcpu: VCPUIndex) -> u64 {
    // SAFETY: aligned u64 in the scoreboard; see `Counters`.
    unsafe { std::ptr::read_volatile(&raw const (*entry(vcpu)).insns) }
}

#[inline(always)]
fn cycles_now(vcpu: VCPUIndex) -> u64 {
    // SAFETY: as above.
    unsafe { std::ptr::read_volatile(&raw const (*entry(vcpu)).cycles) }
}

/// Every started vCPU's (insns, cycles) now, in vCPU order.
fn all_counts() -> Vec<(u64, u64)> {
    (0..STARTED.load(Ordering::Relaxed) as VCPUIndex)
        .map(|v| {
            if entry(v).is_null() {
                (0, 0)
            } else {
                (insns_now(v), cycles_now(v))
            }
        })
        .collect()
}

/// One value per vCPU, touched only by that vCPU's callbacks (see the module comment).
/// vCPU 0's value sits in the struct itself, so on a single-vCPU machine (index the
/// constant 0) a lookup is a field access, as before there were several vCPUs.
#[repr(C)]
struct PerCore<T> {
    first: UnsafeCell<T>,
    rest: Box<[UnsafeCell<T>]>,
}

impl<T> PerCore<T> {
    fn new(n: usize, f: impl Fn() -> T) -> PerCore<T> {
        PerCore {
            first: UnsafeCell::new(f()),
            rest: (1..n.max(1)).map(|_| UnsafeCell::new(f())).collect(),
        }
    }

    /// How many vCPUs have a value.
    fn len(&self) -> usize {
        1 + self.rest.len()
    }

    /// `vcpu`'s value; only that vCPU's callbacks may dereference it.
    #[inline(always)]
    fn get(&self, vcpu: VCPUIndex) -> *mut T {
        if vcpu == 0 {
            return self.first.get();
        }
        debug_assert!((vcpu as usize) < self.len());
        // SAFETY: one value per vCPU the machine announced at install; `on_vcpu_init`
        // refuses any other index before that vCPU runs a callback.
        unsafe { self.rest.get_unchecked(vcpu as usize - 1) }.get()
    }
}

type Writer = TraceWriter<BufWriter<File>>;
type Events = Mutex<EventWriter<BufWriter<File>>>;

/// `repr(C)`, the per-vCPU state first: the block-entry path, run at every block, reads
/// vCPU 0's `Core` at a fixed place at the start (measured: with the compiler's field
/// order perf_mix ran 2-5 % slower in CPU time, docs/performance.md).
#[repr(C)]
struct Runtime {
    /// Each vCPU's state machine (`engine::Core`: previous block and active exceptions,
    /// the current block's entry charge, the PC value an exception-return-capable branch
    /// loaded, the live vector table, the FP context).
    cores: PerCore<Core>,
    base: u64,
    size: u64,
    insn_limit: u64,
    /// The cost model and what it allows (`engine`).
    engine: Engine,
    /// The model charges block-entry events (taken branches, exceptions).
    dynamic: bool,
    /// The model charges data wait states by address (memory callbacks).
    data_ws: bool,
    /// Exception handler entry addresses, sorted (`handlers=`).
    handlers: Vec<u32>,
    writer: Mutex<Writer>,
    /// Exception event file (`events=`, the timeline); None: off.
    events: Option<Events>,
    /// More than one vCPU: every block records its vCPU (`CURRENT`).
    multi: bool,
    /// Masked-window tracking (`irq_windows=`; per vCPU: each core has its own masks,
    /// NVIC and active exceptions; read at exit) and its report file.
    irqwin: Option<(PerCore<Windows>, String)>,
    /// One clock (`time_hz=`): QEMU's registration function and the rate; None: QEMU's
    /// instruction clock.
    clock: Option<(LabClockFn, u64)>,
    /// One clock: QEMU's function that takes each translated block's cycles, and the most
    /// wait states one access can add (the block's bound adds them per instruction and per
    /// load: `on_translation_block_translate`).
    tb_cycles: Option<(LabTbCyclesFn, u64)>,
}

/// `qemu_plugin_lab_clock` (rtoslab's patched QEMU, scripts/qemu/): from now on the
/// vCPU's virtual time follows the u64 at `counter`, at `hz` counts per second.
type LabClockFn = unsafe extern "C" fn(vcpu: c_uint, counter: *mut u64, hz: u64) -> bool;

/// `qemu_plugin_lab_tb_cycles`: the static cycles of the block being translated, so that
/// QEMU leaves it before it runs when it would carry the clock past a deadline and steps
/// to the deadline's instruction instead (scripts/qemu/src/rtoslab-clock.h).
type LabTbCyclesFn = unsafe extern "C" fn(tb: *mut qemu_plugin_tb, cycles: u64);

unsafe extern "C" {
    fn dlsym(handle: *mut c_void, symbol: *const std::ffi::c_char) -> *mut c_void;
}

/// A function of the patched QEMU, looked up at run time so that the plugin still loads
/// into a stock QEMU (which lacks it) when the one clock is not asked for.
fn lab_fn(name: &std::ffi::CStr) -> Result<*mut c_void, String> {
    // SAFETY: dlsym with RTLD_DEFAULT (a null handle on glibc) and a NUL-terminated name.
    let f = unsafe { dlsym(std::ptr::null_mut(), name.as_ptr()) };
    if f.is_null() {
        return Err(format!(
            "time_hz=: this QEMU has no one clock ({} is missing): run `make setup` to build \
             rtoslab's patched qemu-system-arm and run that one",
            name.to_string_lossy()
        ));
    }
    Ok(f)
}

/// The patched QEMU's clock functions.
fn lab_clock_fns() -> Result<(LabClockFn, LabTbCyclesFn), String> {
    let clock = lab_fn(c"qemu_plugin_lab_clock")?;
    let tb = lab_fn(c"qemu_plugin_lab_tb_cycles")?;
    // SAFETY: the patched QEMU exports both with exactly these signatures
    // (scripts/qemu/patch_qemu.py, qemu-plugin.h).
    Ok(unsafe {
        (
            std::mem::transmute::<*mut c_void, LabClockFn>(clock),
            std::mem::transmute::<*mut c_void, LabTbCyclesFn>(tb),
        )
    })
}

// SAFETY: the `PerCore` fields (`irqwin` too) are only touched by their own vCPU's
// callbacks, which run on the one round-robin thread; everything else is immutable or
// behind a mutex.
unsafe impl Sync for Runtime {}

static RUNTIME: OnceLock<Runtime> = OnceLock::new();

/// The runtime, for a callback registered without a closure: a constant address, no
/// pointer chain to follow at every block.
#[inline(always)]
fn runtime() -> &'static Runtime {
    // SAFETY: `install` sets it before registering any callback, and it is never unset.
    unsafe { RUNTIME.get().unwrap_unchecked() }
}

fn fatal(msg: &str) -> ! {
    eprintln!("rtoslab-plugin: {msg}");
    std::process::exit(1);
}

fn lock(rt: &Runtime) -> MutexGuard<'_, Writer> {
    rt.writer.lock().unwrap_or_else(|e| e.into_inner())
}

#[inline(always)]
fn add_cycles(vcpu: VCPUIndex, n: u64) {
    // SAFETY: as for the inline adds; callbacks run on the vCPU thread. Wrapping: a
    // negative correction is added as two's complement.
    unsafe {
        let c = &raw mut (*entry(vcpu)).cycles;
        *c = (*c).wrapping_add(n);
    }
}

/// A counting segment's instructions and static cycles, added by a callback on a
/// multi-vCPU machine (what the inline adds do on a single-vCPU one).
fn add_segment(vcpu: VCPUIndex, insns: u64, cycles: u64) {
    // SAFETY: the running vCPU's own entry; one round-robin thread (see `Counters`).
    unsafe {
        let e = entry(vcpu);
        (*e).insns = (*e).insns.wrapping_add(insns);
        (*e).cycles = (*e).cycles.wrapping_add(cycles);
    }
}

/// Store callback, registered on every instruction that may store. The fast path is a
/// subtraction and a compare (plus, with data wait states, a region lookup).
#[inline(always)]
/// `MULTI`: the machine has more than one vCPU (`Runtime::multi`), a constant so the
/// single-vCPU path has no test for it.
fn on_store<const MULTI: bool>(
    rt: &'static Runtime,
    vcpu: VCPUIndex,
    vaddr: u64,
    cost: u32,
    idx: usize,
) {
    let off = vaddr.wrapping_sub(rt.base);
    if off < rt.size {
        probe_hit(rt, vcpu, off, cost, idx);
    }
    if rt.data_ws {
        // After the probe check: a probe's value excludes its own store's cost.
        add_cycles(vcpu, data_ws(rt, vaddr));
    }
    if rt.dynamic && !MULTI {
        // SAFETY: the one vCPU's own state (see `Runtime`).
        unsafe { &mut (*rt.cores.get(0)).vectors }.note_store(vaddr, true);
    } else if rt.dynamic {
        // A store into a vector table changes it for every core that uses it; VTOR is
        // banked per core (each core's own System Control Space).
        for i in 0..rt.cores.len() {
            // SAFETY: one round-robin thread (see `Runtime`); no reference is live.
            let v = unsafe { &mut (*rt.cores.get(i as VCPUIndex)).vectors };
            v.note_store(vaddr, i == vcpu as usize);
        }
    }
}

/// Load callback (only with data wait states): charge the access's region.
#[inline(always)]
fn on_load(rt: &'static Runtime, vcpu: VCPUIndex, vaddr: u64) {
    add_cycles(vcpu, data_ws(rt, vaddr));
}

/// The model's wait states of a data access at `vaddr`: the Cortex-M model's, called
/// directly (inlined), when it is the model.
#[inline(always)]
fn data_ws(rt: &'static Runtime, vaddr: u64) -> u64 {
    match rt.engine.cycle {
        Some(m) => m.data_ws(vaddr),
        None => rt.engine.model.data_ws(vaddr),
    }
}

/// The load callback of a single-vCPU machine, registered directly with QEMU (as
/// `on_tb_enter_single`; no userdata).
unsafe extern "C" fn on_load_single(
    _vcpu: c_uint,
    _info: qemu_plugin_meminfo_t,
    vaddr: u64,
    _userdata: *mut c_void,
) {
    on_load(runtime(), 0, vaddr);
}

#[cold]
#[inline(never)]
fn probe_hit(rt: &'static Runtime, vcpu: VCPUIndex, off: u64, cost: u32, idx: usize) {
    // The store's segment (it is the segment's last instruction) has been added: the
    // counters include the store itself, and the block entry's charge may include cycles
    // of the store or of instructions after it.
    // SAFETY: vCPU thread only (see `Runtime`).
    let core = unsafe { &*rt.cores.get(vcpu) };
    let (insns, cycles) = core.probe_point(insns_now(vcpu), cycles_now(vcpu), cost, idx);
    // The shared clock (`clock`): only on a machine with several vCPUs.
    let mut at = Stamp::single(insns, cycles);
    if STARTED.load(Ordering::Relaxed) > 1 {
        at.core = vcpu as u16;
        (at.m_insns, at.m_cycles) = clock::at_point(vcpu as usize, (insns, cycles), &all_counts());
    }
    let mut w = lock(rt);
    if off & 3 != 0 {
        w.set_status(STATUS_UNALIGNED);
        return;
    }
    if let Err(e) = w.hit((off / 4) as u32, at) {
        // Nothing more can be trusted: stop without an end record (reads as truncated).
        w.finish(0, &[]).ok();
        drop(w);
        fatal(&format!("writing the trace failed: {e}"));
    }
}

/// Per-block callback without a dynamic model: the instruction limit only (registered on
/// blocks that can loop).
#[inline(always)]
fn on_tb_limit(rt: &'static Runtime, vcpu: VCPUIndex) {
    if rt.multi {
        CURRENT.store(vcpu, Ordering::Relaxed);
    }
    let now = insns_now(vcpu);
    if rt.insn_limit != 0 && now >= rt.insn_limit {
        stop_on_limit(rt, vcpu, now);
    }
}

/// The common block entry on a single-vCPU machine: a remembered one (see
/// `on_tb_enter`) into a block without floating point. Its event is `Next` or `Taken`,
/// so no exception state changes (the `in_handler` flag keeps its value) and no
/// timeline, masked-window or debug event is due: the effects are those of
/// `on_tb_enter`, with nothing it cannot need. Returns false, having changed nothing,
/// when the entry is not such a one. Small, so that it needs no saved registers; the
/// rest is `on_tb_enter`, out of line.
#[inline(always)]
fn on_tb_enter_remembered(rt: &'static Runtime, blk: &'static Block) -> bool {
    let now = insns_now(0);
    // SAFETY: the one vCPU's own state (see `Runtime`).
    let core = unsafe { &mut *rt.cores.get(0) };
    let Some(total) = rt.engine.enter_remembered(core, blk, now) else {
        return false;
    };
    add_cycles(0, total);
    if rt.insn_limit != 0 && now >= rt.insn_limit {
        stop_on_limit(rt, 0, now);
    }
    true
}

/// Per-block callback with a dynamic model (every block): its block-entry charge
/// (`Engine::enter`), the files' events, and the instruction limit.
#[inline(always)]
fn on_tb_enter<const MULTI: bool>(rt: &'static Runtime, vcpu: VCPUIndex, blk: &'static Block) {
    if MULTI {
        CURRENT.store(vcpu, Ordering::Relaxed);
    }
    let now = insns_now(vcpu);
    {
        // SAFETY: this vCPU's own state (see `Runtime`).
        let core = unsafe { &mut *rt.cores.get(vcpu) };
        if let Some(f) = rt.engine.enter(core, blk, now, &QemuMachine) {
            entry_events(rt, vcpu, now, blk, f, core);
        }
        // SAFETY: the vCPU's own entry (see `Counters`).
        unsafe { (*entry(vcpu)).in_handler = u64::from(core.tracker.in_handler()) };
        add_cycles(vcpu, core.entry_charge.total());
    }
    if rt.insn_limit != 0 && now >= rt.insn_limit {
        stop_on_limit(rt, vcpu, now);
    }
}

/// The files' events of a worked-out block entry (`Fresh`), before its charge is added:
/// masked windows, the timeline, the debug output.
#[inline(always)]
fn entry_events(
    rt: &'static Runtime,
    vcpu: VCPUIndex,
    now: u64,
    blk: &'static Block,
    f: Fresh,
    _core: &Core,
) {
    let shape = &blk.shape;
    if let Some((w, _)) = &rt.irqwin
        && matches!(f.ev, Event::Entry | Event::Return | Event::TailChain)
    {
        irqwin_event(
            w,
            vcpu,
            f.ev,
            now,
            f.prev_pc,
            shape.start as u32,
            f.charge.before(),
        );
    }
    if let Some(evw) = &rt.events {
        exc_event(evw, vcpu, f.ev, shape.start, now);
    }
    #[cfg(feature = "debug-events")]
    debug_event(
        vcpu,
        now,
        shape,
        f.ev,
        f.charge.total(),
        _core.tracker.frames(),
    );
}

/// The block-entry callback of a single-vCPU machine with a dynamic model, registered
/// directly with QEMU (`userdata`: the block's leaked `Block`): the crate's closure
/// wrapper would cost two dependent loads (its box, then the captures) at every block.
unsafe extern "C" fn on_tb_enter_single(_vcpu: c_uint, userdata: *mut c_void) {
    // SAFETY: registered only with a `&'static Block` as its userdata.
    let blk = unsafe { &*(userdata as *const Block) };
    let rt = runtime();
    if rt.engine.memo && !blk.has_fp && on_tb_enter_remembered(rt, blk) {
        return;
    }
    on_tb_enter_single_full(rt, blk);
}

/// `on_tb_enter` for one vCPU, out of line (see `on_tb_enter_single`).
#[inline(never)]
fn on_tb_enter_single_full(rt: &'static Runtime, blk: &'static Block) {
    // One vCPU: its index is the constant 0, so the per-vCPU lookups fold.
    on_tb_enter::<false>(rt, 0, blk);
}

/// The raw QEMU handle behind `tb` (the crate keeps its one field private; it builds the
/// wrapper `From<*mut qemu_plugin_tb>`, so the wrapper is exactly that pointer).
fn raw_tb(tb: &TranslationBlock) -> *mut qemu_plugin_tb {
    const _: () = assert!(std::mem::size_of::<TranslationBlock>() == std::mem::size_of::<usize>());
    // SAFETY: same size, and the only non-zero-sized field is the pointer (as usize).
    unsafe { std::mem::transmute_copy::<TranslationBlock, usize>(tb) as *mut qemu_plugin_tb }
}

/// The timeline's exception events (only with `events=`): entry, return and tail-chain,
/// at the block entry that the model charges for them, before that charge is added.
#[cold]
#[inline(never)]
fn exc_event(evw: &Events, vcpu: VCPUIndex, ev: Event, pc: u64, now: u64) {
    let kind = match ev {
        Event::Entry => events::KIND_ENTRY,
        Event::Return => events::KIND_RETURN,
        Event::TailChain => events::KIND_TAIL_CHAIN,
        _ => return,
    };
    let cycles = cycles_now(vcpu);
    // The machine's shared clock (only written on a machine with several vCPUs: event
    // file version 2): this core's counts plus the others' (not running: one thread).
    let shared = if STARTED.load(Ordering::Relaxed) > 1 {
        clock::at_point(vcpu as usize, (now, cycles), &all_counts())
    } else {
        (now, cycles)
    };
    let mut w = evw.lock().unwrap_or_else(|e| e.into_inner());
    if let Err(e) = w.event(kind, vcpu as u16, pc as u32, now, cycles, shared) {
        fatal(&format!("writing the event file failed: {e}"));
    }
}

/// Developer aid (`cargo build --release --features debug-events`): with
/// `RTOSLAB_DEBUG_EVENTS=FROM:TO` (instruction counts) print every block-entry event in
/// that window on stderr.
#[cfg(feature = "debug-events")]
fn debug_event(
    vcpu: VCPUIndex,
    now: u64,
    shape: &crate::flow::TbShape,
    ev: Event,
    c: u64,
    frames: &[u32],
) {
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
            "vcpu {vcpu} insns {now} cycles {} pc {:#x} n {} {ev:?} +{} frames {frames:?}",
            cycles_now(vcpu),
            shape.start,
            shape.n_insns,
            c as i64
        );
    }
}

// Reading the machine (plugin API v4), only where it decides an event: the PC value of an
// exception-return-capable branch while an exception is active, and the vector table
// after an indirect branch (docs/timing-model.md, "Exceptions").

unsafe extern "C" {
    // glib, provided by the QEMU process the plugin is loaded into.
    fn g_byte_array_new() -> *mut GByteArray;
    fn g_byte_array_free(array: *mut GByteArray, free_segment: bool) -> *mut u8;
}

/// `n` bytes of guest memory at `addr` (None when not readable).
fn read_bytes(addr: u64, n: usize) -> Option<Vec<u8>> {
    // SAFETY: a glib byte array owned here, filled by QEMU, freed before returning.
    unsafe {
        let buf = g_byte_array_new();
        let ok = qemu_plugin_read_memory_vaddr(addr, buf, n) && (*buf).len as usize >= n;
        let out = ok.then(|| std::slice::from_raw_parts((*buf).data, n).to_vec());
        g_byte_array_free(buf, true);
        out
    }
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

/// The core registers r0-r12, SP, LR (index = register number), from `on_vcpu_init`.
static REGS: OnceLock<Vec<Option<RegisterDescriptor<'static>>>> = OnceLock::new();

/// The xPSR register (its IPSR field: `QemuMachine`), from `on_vcpu_init`.
static XPSR: OnceLock<Option<RegisterDescriptor<'static>>> = OnceLock::new();

fn read_reg(r: u8) -> Option<u32> {
    let d = REGS.get()?.get(usize::from(r))?.as_ref()?;
    let b = d.read().ok()?;
    Some(u32::from_le_bytes(b.get(..4)?.try_into().ok()?))
}

/// QEMU's registers and memory, read by the engine (`engine::Guest`), and its NVIC/SCB
/// and IPSR, read for masked-window tracking (`irqwin::Machine`).
struct QemuMachine;

impl Guest for QemuMachine {
    fn reg(&self, r: u8) -> Option<u32> {
        read_reg(r)
    }
    fn words(&self, addr: u32, n: usize) -> Option<Vec<u32>> {
        read_words(addr, n)
    }
}

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
    w: &PerCore<Windows>,
    vcpu: VCPUIndex,
    ev: Event,
    now: u64,
    prev_pc: u32,
    start: u32,
    before: u32,
) {
    let c = cycles_now(vcpu);
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
    // SAFETY: this vCPU's own tracker (see `Runtime`). The machine reads (NVIC/SCB,
    // IPSR) go to the vCPU QEMU is running, the same one (`QemuMachine`).
    let w = unsafe { &mut *w.get(vcpu) };
    w.exception_event(&QemuMachine, !matches!(ev, Event::Entry), close, open);
}

/// Callback on an instruction that changes masking (`irqwin::mask_op`), just before it
/// runs: its effect counts from its completion. `suffix_insns`/`suffix_cycles`: the
/// instructions after it in its counting segment and their static cycles (already in
/// the counters: the segment's inline add ran first).
fn on_mask_insn(
    rt: &'static Runtime,
    vcpu: VCPUIndex,
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
    let core = unsafe { &*rt.cores.get(vcpu) };
    let (insns, cycles) = core.point_after(
        insns_now(vcpu),
        cycles_now(vcpu),
        idx,
        suffix_insns,
        suffix_cycles,
    );
    let at = At {
        insns,
        cycles,
        pc,
        lr: read_reg(14).unwrap_or(0),
    };
    // SAFETY: this vCPU's own tracker (see `Runtime`).
    unsafe { &mut *w.get(vcpu) }.mask_changed(op, rn, at);
}

/// IT slots cut off by the end of a translated block, by the address they continue at
/// (translation time only; `itcond::ItTail`). Keyed by address, not per vCPU: a tail is
/// a property of the code (the IT instruction before that address), the same whichever
/// vCPU translates either block, and translation is serialised by this mutex.
static IT_TAILS: Mutex<BTreeMap<u64, ItTail>> = Mutex::new(BTreeMap::new());

/// Callback with register access on an IT block's first conditional instruction, just
/// before it runs (`itcond`): read the flags and correct the cycles for the slots whose
/// condition fails, on the running vCPU's counter (`vcpu`, from `vcpu_now`). The
/// segment's add (inline, or `add_segment` with several vCPUs) has run (registered
/// first). xPSR is read from the vCPU QEMU is running (the register API reads the
/// current CPU), the same one `vcpu` names.
fn on_it_block(vcpu: VCPUIndex, g: &ItGroup) {
    let xpsr = XPSR
        .get()
        .and_then(|d| d.as_ref())
        .and_then(|d| d.read().ok())
        .and_then(|b| Some(u32::from_le_bytes(b.get(..4)?.try_into().ok()?)));
    // Unreadable flags (never seen): keep the executed price.
    if let Some(x) = xpsr {
        add_cycles(vcpu, g.delta(x));
    }
}

/// Conditional callback (only while an exception is active) on an exception-return-capable
/// branch, just before it runs: the value it is about to load into the PC.
fn on_exc_ret_branch(rt: &'static Runtime, vcpu: VCPUIndex, src: TargetSrc) {
    // SAFETY: this vCPU's own state (see `Runtime`).
    unsafe { &mut *rt.cores.get(vcpu) }.see_exc_ret_branch(src, &QemuMachine);
}

#[cold]
#[inline(never)]
fn stop_on_limit(rt: &'static Runtime, vcpu: VCPUIndex, insns: u64) -> ! {
    let res = {
        let mut w = lock(rt);
        w.finish(STATUS_INSN_LIMIT, &all_counts())
    };
    if let Err(e) = res {
        eprintln!("rtoslab-plugin: writing the trace end record failed: {e}");
    }
    eprintln!(
        "rtoslab-plugin: instruction limit {} reached ({insns} instructions on core {vcpu}): guest stopped",
        rt.insn_limit
    );
    // exit() runs QEMU's atexit handlers, including ours, which sees the trace finished.
    std::process::exit(EXIT_INSN_LIMIT);
}

fn on_exit(rt: &'static Runtime) {
    let mut w = lock(rt);
    // QEMU may stop before a vCPU started (no counters yet): nothing ran there. The
    // event file and the masked-window report take the machine totals.
    let counts = all_counts();
    let counts: &[(u64, u64)] = if counts.is_empty() {
        &[(0, 0)]
    } else {
        &counts
    };
    let (insns, cycles) = clock::total(counts);
    if let Err(e) = w.finish(0, counts) {
        eprintln!("rtoslab-plugin: writing the trace end record failed: {e}");
    }
    if let Some(evw) = &rt.events {
        let mut ew = evw.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = ew.finish(insns, cycles) {
            eprintln!("rtoslab-plugin: writing the event file end record failed: {e}");
        }
    }
    if let Some((win, path)) = &rt.irqwin {
        // SAFETY: the vCPUs have stopped (exit), or this is the one round-robin thread
        // (limit stop).
        // One core that ran (a one-core kernel on a two-core machine: the others never
        // left reset): the one-core report, as on a one-core machine.
        let only_core0 = counts.iter().skip(1).all(|c| c.0 == 0);
        let text = if win.len() == 1 || only_core0 {
            let end = At {
                insns,
                cycles,
                pc: 0,
                lr: 0,
            };
            unsafe { &*win.get(0) }.to_json(rt.engine.cycle.is_some(), end)
        } else {
            // Each core's windows end at its own counts (a vCPU that never started: 0).
            let ends: Vec<At> = (0..win.len())
                .map(|v| {
                    let (i, c) = counts.get(v).copied().unwrap_or((0, 0));
                    At {
                        insns: i,
                        cycles: c,
                        pc: 0,
                        lr: 0,
                    }
                })
                .collect();
            let all: Vec<&Windows> = (0..win.len())
                .map(|v| unsafe { &*win.get(v as VCPUIndex) })
                .collect();
            Windows::to_json_cores(&all, rt.engine.cycle.is_some(), &ends)
        };
        if let Err(e) = std::fs::write(path, text) {
            eprintln!("rtoslab-plugin: writing the irq-windows report {path} failed: {e}");
        }
    }
}

fn install(id: PluginId, args: &Args, info: &Info) -> Result<(), String> {
    let cfg: Config = parse_args(&args.raw).map_err(|e| e.0)?;
    let (clock, tb_cycles) = match cfg.time_hz {
        Some(hz) => {
            let (register, tb) = lab_clock_fns()?;
            let ws = u64::from(cfg.model.flash_ws.max(cfg.model.sram_ws));
            (Some((register, hz)), Some((tb, ws)))
        }
        None => (None, None),
    };
    let vcpus = info.system.as_ref().map_or(1, |sys| sys.smp_vcpus.max(1));
    if vcpus > MAX_VCPUS as i64 {
        return Err(format!(
            "{vcpus} vCPUs: at most {MAX_VCPUS} are supported; start QEMU with fewer cores"
        ));
    }
    if info.target_name.starts_with("avr") {
        let rt = avr_guest::install(cfg, vcpus, clock, tb_cycles.map(|(tb, _)| tb))?;
        if COUNTERS.set(Counters::new()).is_err() {
            return Err("plugin installed twice".to_string());
        }
        qemu_plugin_register_atexit_cb(id, move |_| avr_guest::finish(rt, 0))
            .map_err(|e| e.to_string())?;
        // SAFETY: registering a plain C callback.
        unsafe { qemu_plugin::sys::qemu_plugin_register_vcpu_init_cb(id, Some(on_vcpu_init)) };
        return Ok(());
    }
    if cfg.model.avr.is_some() {
        return Err(format!(
            "target {}: core={} is an AVR core table; this guest is not an AVR",
            info.target_name,
            cfg.model.avr.map_or("", |t| t.name)
        ));
    }
    if cfg.exit.is_some() {
        return Err("exit= is for AVR guests (Arm guests exit through semihosting)".into());
    }
    let vcpus = vcpus as usize;
    if !info.target_name.starts_with("arm") {
        return Err(format!(
            "target {}: only 32-bit Arm (Thumb) and AVR guests are supported",
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
        vcpus as u32,
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
                vcpus > 1,
            )
            .map_err(|e| format!("cannot write event file {path}: {e}"))?;
            Some(Mutex::new(w))
        }
    };
    // The memo lives in the shared `Block`: one vCPU only, so it never sees another
    // vCPU's previous block (the charge would be the same, but the cells are not shared).
    let memo =
        cycle.is_some_and(CycleModel::stateless) && !cfg!(feature = "debug-events") && vcpus == 1;
    let data_ws = model.has_data_ws();
    let irqwin = cfg.irq_windows.clone().map(|path| {
        let entry = cfg.model.core.map_or(0, |t| t.entry);
        (
            PerCore::new(vcpus, || Windows::new(cfg.prio_bits, entry)),
            path,
        )
    });
    let rt = Runtime {
        base: u64::from(cfg.base),
        size: u64::from(cfg.size),
        insn_limit: cfg.insn_limit,
        engine: Engine {
            model,
            cycle,
            memo,
            fp_words: cycle.and_then(CycleModel::fp_context_words),
            prev_pc: cfg.irq_windows.is_some(),
        },
        dynamic,
        data_ws,
        handlers,
        writer: Mutex::new(writer),
        events,
        cores: PerCore::new(vcpus, Core::default),
        irqwin,
        multi: vcpus > 1,
        clock,
        tb_cycles,
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

/// A vCPU starts: take the address of its scoreboard entry for the callbacks (and again
/// those of the vCPUs started before it: growing the scoreboard may have moved them).
extern "C" fn on_vcpu_init(_id: PluginId, vcpu: VCPUIndex) {
    let c = counters();
    let n_state = RUNTIME.get().map_or(1, |rt| rt.cores.len());
    if vcpu as usize >= n_state || !entry(vcpu).is_null() {
        fatal(&format!(
            "vCPU {vcpu}: not among the {n_state} vCPUs the machine announced at install"
        ));
    }
    let started = STARTED.load(Ordering::Relaxed).max(vcpu as usize + 1);
    STARTED.store(started, Ordering::Relaxed);
    for v in 0..started as VCPUIndex {
        if v == vcpu || !entry(v).is_null() {
            // SAFETY: plain QEMU API call on a live scoreboard, for a vCPU that exists.
            let e = unsafe { qemu_plugin_scoreboard_find(c.score, v) } as *mut Entry;
            ENTRY[v as usize].store(e, Ordering::Relaxed);
        }
    }
    // One clock: hand QEMU every started vCPU's cycle counter (again: it may have moved).
    let clock = RUNTIME
        .get()
        .and_then(|rt| rt.clock)
        .or_else(|| avr_guest::runtime().and_then(|rt| rt.clock));
    if let Some((register, hz)) = clock {
        for v in 0..started as VCPUIndex {
            let e = entry(v);
            if e.is_null() {
                continue;
            }
            // SAFETY: the vCPU's live scoreboard entry; QEMU reads it on the vCPU thread.
            if !unsafe { register(v, &raw mut (*e).cycles, hz) } {
                fatal(&format!(
                    "time_hz={hz}: QEMU refused the one clock for vCPU {v}: it needs \
                     -icount shift=0,sleep=off and one rate for every vCPU"
                ));
            }
        }
    }
    if avr_guest::runtime().is_some() {
        avr_guest::on_vcpu_init();
        return;
    }
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
            if let Some(a) = avr_guest::runtime() {
                return avr_guest::translate(a, tb);
            }
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
        let plan = plan_tb(&decoded, rt.engine.model, &rt.handlers);
        if let Some((set, ws)) = rt.tb_cycles {
            // An upper bound of the block's cycles (QEMU leaves a block before it runs when
            // they would reach the next deadline, then steps to it one instruction at a
            // time): its static cycles, plus the wait states each instruction fetch and each
            // data access could add, which the model charges as the block runs.
            let fetches = decoded.len() as u64 + plan.data_ws_sites.len() as u64;
            let cycles: u64 = plan.segments.iter().map(|s| s.cycles).sum::<u64>() + fetches * ws;
            // SAFETY: the block being translated, inside its translation callback.
            unsafe { set(raw_tb(&tb), cycles) };
        }
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
            if rt.multi {
                // See `CURRENT`: QEMU's per-vCPU inline adds are not used with several
                // vCPUs; a callback adds the segment to the running vCPU's entry.
                let (n_insns, n_cycles) = (u64::from(seg.insns), seg.cycles);
                tb.instruction(seg.first)?.register_execute_callback_flags(
                    move |_vcpu: VCPUIndex| add_segment(vcpu_now(true), n_insns, n_cycles),
                    CallbackFlags::QEMU_PLUGIN_CB_NO_REGS,
                );
                continue;
            }
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
            let costs = rt.engine.model.block_costs(&decoded).cycles;
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
                        let vcpu = vcpu_now(rt.multi);
                        on_mask_insn(rt, vcpu, op, i, pc, suffix_insns, suffix_cycles)
                    },
                    flags,
                );
            }
        }
        if rt.engine.model.models_cycles() {
            // After the inline adds, so they run first (registration order).
            // IT slots cut off by the end of an earlier block continue here (`ItTail`).
            let mut tails = IT_TAILS.lock().unwrap_or_else(|e| e.into_inner());
            let lead = tails.get(&decoded[0].pc).copied();
            let it = it_groups(&decoded, rt.engine.model, lead);
            if let Some((pc, tail)) = it.tail {
                tails.insert(pc, tail);
            }
            drop(tails);
            for g in it.groups {
                tb.instruction(g.at)?.register_execute_callback_flags(
                    move |_vcpu: VCPUIndex| on_it_block(vcpu_now(rt.multi), &g),
                    CallbackFlags::QEMU_PLUGIN_CB_R_REGS,
                );
            }
        }
        for st in &plan.stores {
            let (cost, idx) = (st.cycles, st.idx);
            let insn = tb.instruction(st.idx)?;
            if rt.multi {
                insn.register_memory_access_callback_flags(
                    move |_vcpu: VCPUIndex, _info: MemoryInfo, vaddr: u64| {
                        on_store::<true>(rt, vcpu_now(true), vaddr, cost, idx)
                    },
                    MemRW::QEMU_PLUGIN_MEM_W,
                    CallbackFlags::QEMU_PLUGIN_CB_NO_REGS,
                );
            } else {
                insn.register_memory_access_callback_flags(
                    move |_vcpu: VCPUIndex, _info: MemoryInfo, vaddr: u64| {
                        on_store::<false>(rt, 0, vaddr, cost, idx)
                    },
                    MemRW::QEMU_PLUGIN_MEM_W,
                    CallbackFlags::QEMU_PLUGIN_CB_NO_REGS,
                );
            }
        }
        for &idx in &plan.data_ws_sites {
            // QEMU 7.2 never called a callback registered for QEMU_PLUGIN_MEM_R alone
            // (measured: loads do reach one registered for MEM_RW). These instructions
            // only load, so MEM_RW sees exactly their loads.
            if !rt.multi {
                // SAFETY: a valid block handle during its translation, `idx` one of its
                // instructions; no userdata.
                unsafe {
                    qemu_plugin_register_vcpu_mem_cb(
                        qemu_plugin_tb_get_insn(raw_tb(&tb), idx),
                        Some(on_load_single),
                        CallbackFlags::QEMU_PLUGIN_CB_NO_REGS,
                        MemRW::QEMU_PLUGIN_MEM_RW,
                        std::ptr::null_mut(),
                    )
                };
                continue;
            }
            tb.instruction(idx)?.register_memory_access_callback_flags(
                move |_vcpu: VCPUIndex, _info: MemoryInfo, vaddr: u64| {
                    on_load(rt, vcpu_now(rt.multi), vaddr)
                },
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
            if rt.multi {
                // No per-vCPU condition with several vCPUs (see `CURRENT`): test it here.
                tb.instruction(n - 1)?.register_execute_callback_flags(
                    move |_vcpu: VCPUIndex| {
                        let vcpu = vcpu_now(true);
                        // SAFETY: the running vCPU's own entry (see `Counters`).
                        if unsafe { (*entry(vcpu)).in_handler } != 0 {
                            on_exc_ret_branch(rt, vcpu, src);
                        }
                    },
                    CallbackFlags::QEMU_PLUGIN_CB_R_REGS,
                );
            } else {
                tb.instruction(n - 1)?
                    .register_conditional_execute_callback_flags(
                        move |_vcpu: VCPUIndex| on_exc_ret_branch(rt, 0, src),
                        CallbackFlags::QEMU_PLUGIN_CB_R_REGS,
                        PluginCondition::QEMU_PLUGIN_COND_NE,
                        flag,
                        0,
                    );
            }
        }
        if rt.dynamic {
            // One per translation, kept for the block's lifetime (QEMU never tells us
            // when a block dies; the crate leaks its callback boxes the same way).
            let has_fp = rt.engine.fp_words.is_some() && decoded.iter().any(|d| fp_op(d).is_some());
            let blk: &'static Block = Box::leak(Box::new(Block::new(plan.shape, has_fp)));
            if rt.multi {
                tb.register_execute_callback_flags(
                    move |vcpu: VCPUIndex| on_tb_enter::<true>(rt, vcpu, blk),
                    CallbackFlags::QEMU_PLUGIN_CB_NO_REGS,
                );
            } else {
                // SAFETY: a valid block handle during its translation; `blk` lives for
                // the plugin's lifetime, as the callback expects.
                unsafe {
                    qemu_plugin_register_vcpu_tb_exec_cb(
                        raw_tb(&tb),
                        Some(on_tb_enter_single),
                        CallbackFlags::QEMU_PLUGIN_CB_NO_REGS,
                        blk as *const Block as *mut c_void,
                    )
                };
            }
        } else if (rt.insn_limit != 0 && plan.may_loop) || rt.multi {
            tb.register_execute_callback_flags(
                move |vcpu: VCPUIndex| on_tb_limit(rt, vcpu),
                CallbackFlags::QEMU_PLUGIN_CB_NO_REGS,
            );
        }
        Ok(())
    }
}

register!(RtosLab);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_tb_is_the_wrapped_handle() {
        let p = 0x1234_5678usize as *mut qemu_plugin_tb;
        assert_eq!(raw_tb(&TranslationBlock::from(p)), p);
    }
}
