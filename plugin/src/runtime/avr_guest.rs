//! AVR guests (`qemu-system-avr`, the Arduino Uno target): counting, probe stores, the
//! exit window and the AVR cycle model (`crate::avr`), on one vCPU.
//!
//! What differs from the Arm path, and why:
//! * Counting is one inline add per instruction (insns, and with a model its static
//!   cycles), except for the data-space loads and stores that may reach page 0 (the CPU
//!   and I/O registers, data addresses 0x00-0xFF): QEMU's AVR target aborts such an
//!   access and runs the instruction again alone in a "full access" block
//!   (target/avr/helper.c, avr_cpu_tlb_fill), so an inline add would count it twice.
//!   Those instructions count in a callback that recognises the retry: the same PC again
//!   with no instruction counted in between.
//! * Run-time costs: a conditional branch reads SREG before it runs (taken: +1); a skip
//!   reads its operands before it runs and, when it skips, adds the skipped words less
//!   the skipped instruction's own count (which QEMU runs before its skip test); the
//!   first block of an interrupt vector (`handlers=`: the vector addresses) adds the
//!   interrupt response, plus the wake-up when the core slept.
//! * The exit window (`exit=`): a store there ends QEMU with the offset as its status.

use std::cell::Cell;
use std::sync::{Mutex, OnceLock};

use qemu_plugin::{
    CallbackFlags, MemRW, MemoryInfo, PluginOp, RegisterDescriptor, TranslationBlock, VCPUIndex,
    qemu_plugin_get_registers, qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu,
};
use rtoslab_plugin_config::args::{Config, EXIT_INSN_LIMIT};
use rtoslab_plugin_config::cores::AvrTable;

use super::{
    Entry, LabClockFn, LabTbCyclesFn, Writer, add_segment, counters, cycles_now, fatal, insns_now,
    raw_tb,
};
use crate::avr::{self, AvrInsn, Dyn};
use crate::trace::{FLAG_CYCLES_MODELLED, STATUS_INSN_LIMIT, STATUS_UNALIGNED, Stamp};

/// The data-space address QEMU's AVR machine maps data address 0 at (target/avr/cpu.h
/// OFFSET_DATA): debug reads of the I/O registers go there.
const OFFSET_DATA: u64 = 0x80_0000;

pub(super) struct AvrRuntime {
    base: u64,
    size: u64,
    exit: Option<u64>,
    insn_limit: u64,
    table: Option<&'static AvrTable>,
    /// Interrupt vector addresses (byte addresses), sorted.
    vectors: Vec<u32>,
    writer: Mutex<Writer>,
    pub(super) clock: Option<(LabClockFn, u64)>,
    tb_cycles: Option<LabTbCyclesFn>,
    /// One vCPU, one round-robin thread: plain cells.
    state: State,
}

#[derive(Default)]
struct State {
    /// SLEEP ran: the next interrupt response adds the wake-up.
    slept: Cell<bool>,
    /// A skip that skips a dynamic instruction: that instruction's callback does nothing.
    skip_next: Cell<bool>,
    /// The last data-access instruction counted by callback: (pc, insns after it).
    last_access: Cell<(u64, u64)>,
}

// SAFETY: one vCPU (install refuses more); its callbacks run on one thread at a time.
unsafe impl Sync for AvrRuntime {}

static RT: OnceLock<AvrRuntime> = OnceLock::new();

/// The AVR runtime, once installed.
pub(super) fn runtime() -> Option<&'static AvrRuntime> {
    RT.get()
}

/// Register handles: r0..r31, then SREG (set at vCPU init).
static REGS: OnceLock<Vec<Option<RegisterDescriptor<'static>>>> = OnceLock::new();

pub(super) fn install(
    cfg: Config,
    vcpus: i64,
    clock: Option<(LabClockFn, u64)>,
    tb_cycles: Option<LabTbCyclesFn>,
) -> Result<&'static AvrRuntime, String> {
    if vcpus != 1 {
        return Err(format!("{vcpus} vCPUs: an AVR machine has one core"));
    }
    if cfg.model.core.is_some() {
        return Err(
            "core=: a Cortex-M table cannot time an AVR guest: use core=avre (or none)".into(),
        );
    }
    if cfg.irq_windows.is_some() || cfg.events.is_some() {
        return Err(
            "irq_windows= and events= are not available for AVR guests (no NVIC, no exception model)"
                .into(),
        );
    }
    let table = cfg.model.avr;
    let file = std::fs::File::create(&cfg.trace)
        .map_err(|e| format!("cannot create trace file {}: {e}", cfg.trace))?;
    let flags = if table.is_some() {
        FLAG_CYCLES_MODELLED
    } else {
        0
    };
    let writer = Writer::new(
        std::io::BufWriter::with_capacity(1 << 20, file),
        cfg.base,
        cfg.size,
        flags,
        1,
        cfg.max_records,
    )
    .map_err(|e| format!("cannot write trace file {}: {e}", cfg.trace))?;
    let rt = AvrRuntime {
        base: u64::from(cfg.base),
        size: u64::from(cfg.size),
        exit: cfg.exit.map(u64::from),
        insn_limit: cfg.insn_limit,
        table,
        vectors: cfg.model.handlers.clone(),
        writer: Mutex::new(writer),
        clock,
        tb_cycles,
        state: State::default(),
    };
    if RT.set(rt).is_err() {
        return Err("plugin installed twice".to_string());
    }
    Ok(RT.get().expect("just set"))
}

/// At vCPU init: the register handles a model reads.
pub(super) fn on_vcpu_init() {
    let all = qemu_plugin_get_registers().unwrap_or_default();
    let names: Vec<String> = (0..32)
        .map(|i| format!("r{i}"))
        .chain(["sreg".to_string()])
        .collect();
    let regs = names
        .iter()
        .map(|n| all.iter().find(|d| d.name == *n).cloned())
        .collect();
    let _ = REGS.set(regs);
}

fn read_reg(i: usize) -> u8 {
    REGS.get()
        .and_then(|r| r.get(i)?.as_ref()?.read().ok())
        .and_then(|b| b.first().copied())
        .unwrap_or_else(|| fatal(&format!("AVR model: register {i} unreadable")))
}

fn read_io(io: u8) -> u8 {
    let b = super::read_bytes(OFFSET_DATA + 0x20 + u64::from(io), 1);
    b.and_then(|b| b.first().copied())
        .unwrap_or_else(|| fatal(&format!("AVR model: I/O register {io:#x} unreadable")))
}

pub(super) fn finish(rt: &AvrRuntime, status: u16) {
    let mut w = rt.writer.lock().unwrap_or_else(|e| e.into_inner());
    if let Err(e) = w.finish(status, &[(insns_now(0), cycles_now(0))]) {
        eprintln!("rtoslab-plugin: writing the trace end record failed: {e}");
    }
}

#[cold]
#[inline(never)]
fn stop_on_limit(rt: &AvrRuntime, insns: u64) -> ! {
    finish(rt, STATUS_INSN_LIMIT);
    eprintln!(
        "rtoslab-plugin: instruction limit {} reached ({insns} instructions): guest stopped",
        rt.insn_limit
    );
    std::process::exit(EXIT_INSN_LIMIT);
}

/// A store of an instruction that may store (its count, and so its cost, already added).
fn on_store(rt: &'static AvrRuntime, vaddr: u64, cost: u32) {
    let off = vaddr.wrapping_sub(rt.base);
    if off < rt.size {
        let at = Stamp::single(
            insns_now(0).wrapping_sub(1),
            cycles_now(0).wrapping_sub(u64::from(cost)),
        );
        let mut w = rt.writer.lock().unwrap_or_else(|e| e.into_inner());
        if off & 3 != 0 {
            w.set_status(STATUS_UNALIGNED);
            return;
        }
        if let Err(e) = w.hit((off / 4) as u32, at) {
            w.finish(0, &[]).ok();
            drop(w);
            fatal(&format!("writing the trace failed: {e}"));
        }
        return;
    }
    if let Some(exit) = rt.exit {
        let off = vaddr.wrapping_sub(exit);
        if off < 256 {
            // exit() runs QEMU's atexit handlers, ours among them: it ends the trace.
            std::process::exit(off as i32);
        }
    }
}

/// The run-time cost of a branch or skip, before it runs; `next`: the instruction a skip
/// skips.
fn on_dynamic(rt: &'static AvrRuntime, t: &'static AvrTable, d: Dyn, next: Option<AvrInsn>) {
    let st = &rt.state;
    if st.skip_next.replace(false) {
        return; // this instruction is being skipped
    }
    let extra = match d {
        Dyn::Branch { bit, set } => {
            if avr::branch_taken(read_reg(32), bit, set) {
                u64::from(avr::branch_extra(t))
            } else {
                0
            }
        }
        Dyn::SkipEq { .. } | Dyn::SkipReg { .. } | Dyn::SkipIo { .. } => {
            let skips = match d {
                Dyn::SkipEq { rd, rr } => read_reg(rd.into()) == read_reg(rr.into()),
                Dyn::SkipReg { rr, bit, set } => avr::bit_skips(read_reg(rr.into()), bit, set),
                Dyn::SkipIo { io, bit, set } => avr::bit_skips(read_io(io), bit, set),
                _ => false,
            };
            match (skips, next) {
                (true, Some(n)) => {
                    st.skip_next.set(n.dynamic != Dyn::None);
                    avr::skip_correction(&n)
                }
                _ => 0,
            }
        }
        Dyn::Sleep => {
            st.slept.set(true);
            0
        }
        Dyn::None => 0,
    };
    if extra != 0 {
        add_segment(0, 0, extra);
    }
}

/// A data access that QEMU may run twice (see the module comment): count it once.
fn on_access_count(rt: &'static AvrRuntime, pc: u64, cycles: u64) {
    let st = &rt.state;
    let now = insns_now(0);
    if st.last_access.get() == (pc, now) {
        return; // QEMU's full-access retry of the instruction just counted
    }
    add_segment(0, 1, cycles);
    st.last_access.set((pc, now.wrapping_add(1)));
}

/// The first block of an interrupt vector: the response cycles.
fn on_vector(rt: &'static AvrRuntime, t: &'static AvrTable) {
    let wake = if rt.state.slept.replace(false) {
        t.irq_wake
    } else {
        0
    };
    add_segment(0, 0, u64::from(t.irq_entry + wake));
}

fn on_block(rt: &'static AvrRuntime) {
    let now = insns_now(0);
    if rt.insn_limit != 0 && now >= rt.insn_limit {
        stop_on_limit(rt, now);
    }
}

fn word_at(data: &[u8]) -> u16 {
    u16::from_le_bytes([
        data.first().copied().unwrap_or(0),
        data.get(1).copied().unwrap_or(0),
    ])
}

/// The instruction at `pc` read from flash (the one after a block's last, for a skip).
fn insn_at(pc: u64, t: &AvrTable) -> Option<AvrInsn> {
    let b = super::read_bytes(pc, 2)?;
    Some(avr::decode(word_at(&b), t))
}

/// A decoded instruction without a model: only its length and whether it stores matter.
fn decode_plain(op: u16) -> AvrInsn {
    avr::decode(op, &rtoslab_plugin_config::cores::avr::AVRE)
}

pub(super) fn translate(rt: &'static AvrRuntime, tb: TranslationBlock) -> qemu_plugin::Result<()> {
    let n = tb.size();
    if n == 0 {
        return Ok(());
    }
    let mut insns = Vec::with_capacity(n);
    let mut pcs = Vec::with_capacity(n);
    let mut ops = Vec::with_capacity(n);
    for insn in tb.instructions() {
        let data = insn.data();
        let op = word_at(&data);
        let second = if data.len() >= 4 {
            Some(word_at(&data[2..]))
        } else {
            None
        };
        insns.push(match rt.table {
            Some(t) => avr::decode(op, t),
            None => decode_plain(op),
        });
        pcs.push(insn.vaddr());
        ops.push((op, second));
    }
    let c = counters();
    let insns_field = c.field(std::mem::offset_of!(Entry, insns));
    let cycles_field = c.field(std::mem::offset_of!(Entry, cycles));
    let start = pcs[0];
    if let Some(t) = rt.table
        && start != 0
        && rt.vectors.binary_search(&(start as u32)).is_ok()
    {
        tb.register_execute_callback_flags(
            move |_v: VCPUIndex| on_vector(rt, t),
            CallbackFlags::QEMU_PLUGIN_CB_NO_REGS,
        );
    }
    if rt.insn_limit != 0 {
        tb.register_execute_callback_flags(
            move |_v: VCPUIndex| on_block(rt),
            CallbackFlags::QEMU_PLUGIN_CB_NO_REGS,
        );
    }
    if let Some(set) = rt.tb_cycles {
        let cycles: u64 = insns.iter().map(|i| u64::from(i.cycles)).sum();
        // SAFETY: the block being translated, inside its translation callback.
        unsafe { set(raw_tb(&tb), cycles) };
    }
    for (i, a) in insns.iter().enumerate() {
        let insn = tb.instruction(i)?;
        let cost = if rt.table.is_some() { a.cycles } else { 0 };
        let (op, second) = ops[i];
        // LD/ST/LDD/STD through a pointer, or LDS/STS below 0x100: may be QEMU's
        // full-access retry (module comment).
        let pointer = matches!(op >> 12, 0x8 | 0xA)
            || (op & 0xFC00 == 0x9000
                && matches!(op & 0xF, 0x1 | 0x2 | 0x9 | 0xA | 0xC | 0xD | 0xE));
        let direct_low = op & 0xFC0F == 0x9000 && second.is_some_and(|k| k < 0x100);
        if pointer || direct_low {
            let pc = pcs[i];
            let cycles = u64::from(cost);
            insn.register_execute_callback_flags(
                move |_v: VCPUIndex| on_access_count(rt, pc, cycles),
                CallbackFlags::QEMU_PLUGIN_CB_NO_REGS,
            );
        } else {
            qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(
                tb.instruction(i)?,
                PluginOp::QEMU_PLUGIN_INLINE_ADD_U64,
                insns_field,
                1,
            );
            if cost != 0 {
                qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(
                    tb.instruction(i)?,
                    PluginOp::QEMU_PLUGIN_INLINE_ADD_U64,
                    cycles_field,
                    u64::from(cost),
                );
            }
        }
        if let Some(t) = rt.table
            && a.dynamic != Dyn::None
        {
            let next = match a.dynamic {
                Dyn::SkipEq { .. } | Dyn::SkipReg { .. } | Dyn::SkipIo { .. } => {
                    match insns.get(i + 1) {
                        Some(n) => Some(*n),
                        None => insn_at(pcs[i] + 2 * u64::from(a.words), t),
                    }
                }
                _ => None,
            };
            let d = a.dynamic;
            // After the counting (QEMU runs an instruction's callbacks in the order
            // registered), before the instruction itself.
            insn.register_execute_callback_flags(
                move |_v: VCPUIndex| on_dynamic(rt, t, d, next),
                CallbackFlags::QEMU_PLUGIN_CB_R_REGS,
            );
        }
        if a.stores || a.unknown {
            insn.register_memory_access_callback_flags(
                move |_v: VCPUIndex, _info: MemoryInfo, vaddr: u64| on_store(rt, vaddr, cost),
                MemRW::QEMU_PLUGIN_MEM_W,
                CallbackFlags::QEMU_PLUGIN_CB_NO_REGS,
            );
        }
    }
    Ok(())
}
