//! Masked-window tracking (`irq_windows=FILE`): for every interrupt priority level the
//! target implements, every interval in which an interrupt at that level could not be
//! taken, and the latency bound they give (docs/irq-windows.md, docs/formats.md §9).
//!
//! What blocks an interrupt (ARMv7-M ARM B1.5.4 "Exception priorities and preemption",
//! B1.4.3 "The special-purpose mask registers"): it is taken only when its group
//! priority is numerically lower than the *execution priority*, which is the lowest of
//! - the group priority of every active exception (NMI -2, HardFault -1),
//! - 0 while PRIMASK is set, -1 while FAULTMASK is set,
//! - the group priority of BASEPRI when it is not 0.
//!
//! Level `k` (priority value `k << (8 - bits)`) is blocked while the execution priority
//! is at or below its group priority. The state is followed without reading registers on
//! the hot path: the instructions that change masking are found at translation time
//! (`mask_op`: CPSID/CPSIE, MSR PRIMASK/BASEPRI/BASEPRI_MAX/FAULTMASK) and only they get
//! a callback (reading the MSR source register); exception entry, return and tail-chain
//! come from the block-flow tracker, and there the active exceptions and their
//! priorities are read from the NVIC/SCB (the `Machine` interface).
//!
//! This module is pure logic (no QEMU): `runtime` feeds it.

use crate::decoded::DecodedInsn;
use std::collections::HashMap;
use std::fmt::Write as _;

/// A masking change an instruction makes (decoded at translation time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaskOp {
    /// CPSID/CPSIE: `i` PRIMASK or `f` FAULTMASK; `set` for CPSID.
    Cps {
        primask: bool,
        faultmask: bool,
        set: bool,
    },
    /// MSR SYSm, Rn (SYSm 16 PRIMASK, 17 BASEPRI, 18 BASEPRI_MAX, 19 FAULTMASK).
    Msr { sysm: u8, rn: u8 },
}

/// The masking instruction `d` is, if any (ARMv7-M ARM A7.7.24 CPS, A7.7.83 MSR).
pub fn mask_op(d: &DecodedInsn) -> Option<MaskOp> {
    let h1 = d.hw1();
    if d.insn.len == 2 {
        // CPS: 1011 0110 011 im 0 0 I F
        if h1 & 0xFFE8 == 0xB660 {
            let primask = h1 & 2 != 0;
            let faultmask = h1 & 1 != 0;
            return (primask || faultmask).then_some(MaskOp::Cps {
                primask,
                faultmask,
                set: h1 & 0x10 != 0,
            });
        }
        return None;
    }
    // MSR (register) T1: 1111 0011 1000 Rn | 10 0 0 mask(2) 0 0 SYSm(8)
    let h2 = d.hw2();
    if h1 & 0xFFF0 == 0xF380 && h2 & 0xD300 == 0x8000 {
        let sysm = (h2 & 0xFF) as u8;
        if (16..=19).contains(&sysm) {
            return Some(MaskOp::Msr {
                sysm,
                rn: (h1 & 0xF) as u8,
            });
        }
    }
    None
}

/// Read access to the machine's exception state (the runtime reads QEMU's NVIC/SCB).
pub trait Machine {
    /// A 32-bit word of the system address space (NVIC/SCB registers).
    fn word(&self, addr: u32) -> Option<u32>;
    /// The IPSR: the current exception number (0 in thread mode).
    fn ipsr(&self) -> u32;
}

const SHPR1: u32 = 0xE000_ED18;
const SHCSR: u32 = 0xE000_ED24;
const AIRCR: u32 = 0xE000_ED0C;
const NVIC_IABR: u32 = 0xE000_E300;
const NVIC_IPR: u32 = 0xE000_E400;
/// Interrupt Controller Type Register: (INTLINESNUM + 1) * 32 interrupt lines (B3.4.3).
const ICTR: u32 = 0xE000_E004;

/// Why a window opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cause {
    Primask,
    Faultmask,
    Basepri,
    /// An active exception (its number) of equal or higher priority.
    Handler(u32),
}

impl Cause {
    fn name(self) -> String {
        match self {
            Cause::Primask => "primask".into(),
            Cause::Faultmask => "faultmask".into(),
            Cause::Basepri => "basepri".into(),
            Cause::Handler(n) => format!("handler:{n}"),
        }
    }
}

/// A point in the run: instructions and modelled cycles completed, an address, and the
/// link register there (the return address into the caller of the function that masks
/// or unmasks, e.g. of vPortEnterCritical; 0 when not read: exception events).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct At {
    pub insns: u64,
    pub cycles: u64,
    pub pc: u32,
    pub lr: u32,
}

#[derive(Clone, Copy, Debug)]
struct Open {
    from: At,
    cause: Cause,
}

/// One window site: windows with the same start, end and cause.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Site {
    pub count: u64,
    pub max_insns: u64,
    pub max_cycles: u64,
    /// Start (instructions completed) of the longest occurrence, and the link register
    /// at its start and end (`At::lr`).
    pub max_at: u64,
    pub start_lr: u32,
    pub end_lr: u32,
}

/// Histogram buckets: bucket 0 holds length 0 and 1, bucket `b` lengths in
/// [2^b, 2^(b+1)) instructions.
pub const HIST_BUCKETS: usize = 40;

#[derive(Clone, Debug)]
struct Level {
    open: Option<Open>,
    count: u64,
    masked_insns: u64,
    masked_cycles: u64,
    hist: [u64; HIST_BUCKETS],
    sites: HashMap<SiteKey, Site>,
}

impl Level {
    fn new() -> Level {
        Level {
            open: None,
            count: 0,
            masked_insns: 0,
            masked_cycles: 0,
            hist: [0; HIST_BUCKETS],
            sites: HashMap::new(),
        }
    }
}

/// A site: start pc, end pc, cause. (Not the link registers: in a function that has made
/// a call, LR may hold anything, so keying by it would split one site at random.)
type SiteKey = (u32, u32, Cause);

/// Windows at most this many sites per level are written, longest first.
pub const TOP_SITES: usize = 20;

/// The tracker (lives on the vCPU thread).
#[derive(Clone, Debug)]
pub struct Windows {
    bits: u8,
    primask: bool,
    faultmask: bool,
    /// BASEPRI, implemented bits only.
    basepri: u8,
    /// Lowest group priority among the active exceptions (i32::MAX in thread mode),
    /// and the exception that gives it.
    exc_prio: i32,
    exc_num: u32,
    prigroup: u8,
    levels: Vec<Level>,
    /// Exception entry cost of the model (cycles), for the bound.
    entry_cycles: u32,
    /// NVIC_IABR words the NVIC implements (from ICTR, read at the first exception event;
    /// 0 until then).
    iabr_words: u32,
}

impl Windows {
    /// `bits`: implemented priority bits (1-8); `entry_cycles`: the model's exception
    /// entry cost (0 without a model).
    pub fn new(bits: u8, entry_cycles: u32) -> Windows {
        let bits = bits.clamp(1, 8);
        Windows {
            bits,
            primask: false,
            faultmask: false,
            basepri: 0,
            exc_prio: i32::MAX,
            exc_num: 0,
            prigroup: 0,
            levels: (0..1usize << bits).map(|_| Level::new()).collect(),
            entry_cycles,
            iabr_words: 0,
        }
    }

    fn impl_mask(&self) -> u8 {
        (0xFFu16 << (8 - self.bits)) as u8
    }

    /// Group priority of priority value `p` under the current PRIGROUP.
    fn group(&self, p: u8) -> i32 {
        let keep = (0xFFu16 << (u16::from(self.prigroup) + 1)) as u8;
        i32::from(p & self.impl_mask() & keep)
    }

    /// The execution priority and what gives it.
    fn exec_prio(&self) -> (i32, Cause) {
        let mut best = (i32::MAX, Cause::Handler(0));
        let mut take = |p: i32, c: Cause| {
            if p < best.0 {
                best = (p, c);
            }
        };
        take(self.exc_prio, Cause::Handler(self.exc_num));
        if self.basepri != 0 {
            take(self.group(self.basepri), Cause::Basepri);
        }
        if self.primask {
            take(0, Cause::Primask);
        }
        if self.faultmask {
            take(-1, Cause::Faultmask);
        }
        best
    }

    /// Open or close each level's window for the state now in force: windows close at
    /// `close`, open at `open` (different only at a tail-chain: the return, then the
    /// next handler's first instruction).
    fn update(&mut self, close: At, open: At) {
        let (prio, cause) = self.exec_prio();
        for k in 0..self.levels.len() {
            let p = (k << (8 - self.bits)) as u8;
            let blocked = prio <= self.group(p);
            let lv = &mut self.levels[k];
            match (&lv.open, blocked) {
                (None, true) => lv.open = Some(Open { from: open, cause }),
                (Some(o), false) => {
                    let o = *o;
                    lv.open = None;
                    let at = close;
                    let insns = at.insns.saturating_sub(o.from.insns);
                    let cycles = at.cycles.saturating_sub(o.from.cycles);
                    lv.count += 1;
                    lv.masked_insns += insns;
                    lv.masked_cycles += cycles;
                    let b = (63 - insns.max(1).leading_zeros()) as usize;
                    lv.hist[b.min(HIST_BUCKETS - 1)] += 1;
                    let s = lv.sites.entry((o.from.pc, at.pc, o.cause)).or_default();
                    s.count += 1;
                    if (cycles, insns) > (s.max_cycles, s.max_insns) || s.count == 1 {
                        s.max_cycles = cycles;
                        s.max_insns = insns;
                        s.max_at = o.from.insns;
                        s.start_lr = o.from.lr;
                        s.end_lr = at.lr;
                    }
                }
                _ => {}
            }
        }
    }

    /// Instruction `op` at `at` completed; `rn` is the value of its source register (MSR).
    pub fn mask_changed(&mut self, op: MaskOp, rn: u32, at: At) {
        let privileged_fm = self.exec_prio_no_fm() > -1;
        match op {
            MaskOp::Cps {
                primask,
                faultmask,
                set,
            } => {
                if primask {
                    self.primask = set;
                }
                if faultmask && (!set || privileged_fm) {
                    self.faultmask = set;
                }
            }
            MaskOp::Msr { sysm, .. } => {
                let v = (rn & 0xFF) as u8 & self.impl_mask();
                match sysm {
                    16 => self.primask = rn & 1 != 0,
                    17 => self.basepri = v,
                    // BASEPRI_MAX: raises the mask only
                    18 if v != 0 && (self.basepri == 0 || v < self.basepri) => self.basepri = v,
                    19 if privileged_fm || rn & 1 == 0 => self.faultmask = rn & 1 != 0,
                    _ => {}
                }
            }
        }
        self.update(at, at);
    }

    /// The execution priority without FAULTMASK: FAULTMASK can be set only above -1
    /// (not in NMI or HardFault, ARMv7-M ARM B5.2.3).
    fn exec_prio_no_fm(&self) -> i32 {
        let mut p = self.exc_prio;
        if self.basepri != 0 {
            p = p.min(self.group(self.basepri));
        }
        if self.primask {
            p = p.min(0);
        }
        p
    }

    /// An exception entry, return or tail-chain happened; the handler (or resumed code)
    /// starts at `open`; windows that end, end at `close` (the exception-return
    /// instruction's completion). `returned`: an exception returned (FAULTMASK is cleared
    /// on every return but NMI's, ARMv7-M ARM B1.5.8). Re-reads the active exceptions.
    pub fn exception_event(&mut self, m: &dyn Machine, returned: bool, close: At, open: At) {
        if returned && self.exc_num != 2 {
            self.faultmask = false;
        }
        self.prigroup = m.word(AIRCR).map_or(0, |v| ((v >> 8) & 7) as u8);
        let mut best = (i32::MAX, 0u32);
        let mut consider = |n: u32, w: &Windows| {
            let p = w.exc_group_prio(m, n);
            if p < best.0 {
                best = (p, n);
            }
        };
        let ipsr = m.ipsr() & 0x1FF;
        if ipsr != 0 {
            consider(ipsr, self);
        }
        if let Some(sh) = m.word(SHCSR) {
            // SHCSR active bits: MemManage 0, BusFault 1, UsageFault 3, SVCall 7,
            // DebugMonitor 8, PendSV 10, SysTick 11.
            for (bit, n) in [(0, 4), (1, 5), (3, 6), (7, 11), (8, 12), (10, 14), (11, 15)] {
                if sh & (1 << bit) != 0 {
                    consider(n, self);
                }
            }
        }
        if self.iabr_words == 0 {
            self.iabr_words = m.word(ICTR).map_or(8, |v| (v & 0xF) + 1).min(8);
        }
        for word in 0..self.iabr_words {
            if let Some(a) = m.word(NVIC_IABR + 4 * word) {
                for bit in 0..32 {
                    if a & (1 << bit) != 0 {
                        consider(16 + 32 * word + bit, self);
                    }
                }
            }
        }
        self.exc_prio = best.0;
        self.exc_num = best.1;
        self.update(close, open);
    }

    /// Group priority of exception `n` (Reset -3, NMI -2, HardFault -1, others from SHPR
    /// or NVIC_IPR).
    fn exc_group_prio(&self, m: &dyn Machine, n: u32) -> i32 {
        let byte = |base: u32, i: u32| m.word(base + (i & !3)).map(|w| (w >> (8 * (i & 3))) as u8);
        match n {
            1 => -3,
            2 => -2,
            3 => -1,
            4..=15 => byte(SHPR1, n - 4).map_or(0, |p| self.group(p)),
            _ => byte(NVIC_IPR, n - 16).map_or(0, |p| self.group(p)),
        }
    }

    /// The report (docs/formats.md §9), `end`: where the run stopped.
    pub fn to_json(&self, cycles_modelled: bool, end: At) -> String {
        let mut s = self.head(cycles_modelled, end);
        self.write_levels(&mut s, end, None);
        s.push_str("]}\n");
        s
    }

    /// The report of several cores (docs/formats.md §9, "Several cores"): one tracker per
    /// core (each core has its own masks, NVIC and active exceptions), `ends[i]` where
    /// core `i` stopped (its own counts); the levels of every core in core order, each
    /// with its `core`; `prigroup` is core 0's, `end_insns` the machine's total.
    pub fn to_json_cores(cores: &[&Windows], cycles_modelled: bool, ends: &[At]) -> String {
        let total = At {
            insns: ends.iter().map(|e| e.insns).sum(),
            ..At::default()
        };
        let mut s = cores[0].head(cycles_modelled, total);
        s.insert_str(
            s.len() - "\"levels\":[".len(),
            &format!("\"cores\":{},", cores.len()),
        );
        for (i, w) in cores.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            w.write_levels(&mut s, ends[i], Some(i));
        }
        s.push_str("]}\n");
        s
    }

    /// The report up to and including `"levels":[`.
    fn head(&self, cycles_modelled: bool, end: At) -> String {
        let mut s = String::new();
        let _ = write!(
            s,
            "{{\"schema\":\"rtoslab.irq-windows/1\",\"prio_bits\":{},\"prigroup\":{},\
             \"entry_cycles\":{},\"cycles_modelled\":{},\"end_insns\":{},\"levels\":[",
            self.bits, self.prigroup, self.entry_cycles, cycles_modelled, end.insns
        );
        s
    }

    /// Every level's object, comma-separated; `core`: the core they belong to (written
    /// only in a several-core report).
    fn write_levels(&self, s: &mut String, end: At, core: Option<usize>) {
        for (k, lv) in self.levels.iter().enumerate() {
            if k > 0 {
                s.push(',');
            }
            let mut sites: Vec<(&SiteKey, &Site)> = lv.sites.iter().collect();
            sites.sort_by(|a, b| {
                (b.1.max_cycles, b.1.max_insns, a.1.max_at).cmp(&(
                    a.1.max_cycles,
                    a.1.max_insns,
                    b.1.max_at,
                ))
            });
            let hist_len = lv.hist.iter().rposition(|&c| c != 0).map_or(0, |i| i + 1);
            let hist: Vec<String> = lv.hist[..hist_len].iter().map(u64::to_string).collect();
            let (max_insns, max_cycles) = sites
                .first()
                .map_or((0, 0), |(_, x)| (x.max_insns, x.max_cycles));
            let bound = if lv.count > 0 {
                (max_cycles + u64::from(self.entry_cycles)).to_string()
            } else {
                "null".into()
            };
            let _ = write!(
                s,
                "{{\"level\":{k},\"priority\":{},\"count\":{},\"masked_insns\":{},\
                 \"masked_cycles\":{},\"max_insns\":{max_insns},\"max_cycles\":{max_cycles},\
                 \"bound_cycles\":{bound},\"hist_insns\":[{}],\"windows\":[",
                k << (8 - self.bits),
                lv.count,
                lv.masked_insns,
                lv.masked_cycles,
                hist.join(",")
            );
            for (i, ((from, to, cause), site)) in sites.iter().take(TOP_SITES).enumerate() {
                if i > 0 {
                    s.push(',');
                }
                let _ = write!(
                    s,
                    "{{\"start_pc\":{from},\"start_lr\":{},\"end_pc\":{to},\
                     \"end_lr\":{},\"cause\":\"{}\",\"count\":{},\
                     \"max_insns\":{},\"max_cycles\":{},\"max_at\":{}}}",
                    site.start_lr,
                    site.end_lr,
                    cause.name(),
                    site.count,
                    site.max_insns,
                    site.max_cycles,
                    site.max_at
                );
            }
            s.push_str("],\"open_at_exit\":");
            match lv.open {
                Some(o) => {
                    let _ = write!(
                        s,
                        "{{\"start_pc\":{},\"start_lr\":{},\"cause\":\"{}\",\"insns\":{},\
                         \"cycles\":{}}}",
                        o.from.pc,
                        o.from.lr,
                        o.cause.name(),
                        end.insns.saturating_sub(o.from.insns),
                        end.cycles.saturating_sub(o.from.cycles)
                    );
                }
                None => s.push_str("null"),
            }
            if let Some(c) = core {
                let _ = write!(s, ",\"core\":{c}");
            }
            s.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::thumb;

    fn d16(h: u16) -> DecodedInsn {
        DecodedInsn {
            pc: 0x100,
            insn: thumb::decode16(h),
            raw: u32::from(h),
        }
    }

    fn d32(h1: u16, h2: u16) -> DecodedInsn {
        DecodedInsn {
            pc: 0x100,
            insn: thumb::decode32(h1, h2),
            raw: u32::from(h1) | (u32::from(h2) << 16),
        }
    }

    fn at(insns: u64) -> At {
        At {
            insns,
            cycles: insns * 2,
            pc: insns as u32,
            lr: 0,
        }
    }

    #[test]
    fn decodes_masking_instructions() {
        let cps = |primask, faultmask, set| {
            Some(MaskOp::Cps {
                primask,
                faultmask,
                set,
            })
        };
        assert_eq!(mask_op(&d16(0xB672)), cps(true, false, true)); // cpsid i
        assert_eq!(mask_op(&d16(0xB662)), cps(true, false, false)); // cpsie i
        assert_eq!(mask_op(&d16(0xB671)), cps(false, true, true)); // cpsid f
        assert_eq!(mask_op(&d16(0xB661)), cps(false, true, false)); // cpsie f
        assert_eq!(mask_op(&d16(0xBF00)), None); // nop
        // msr basepri, r0 / basepri_max, r3 / primask, r1 / faultmask, r2
        assert_eq!(
            mask_op(&d32(0xF380, 0x8811)),
            Some(MaskOp::Msr { sysm: 17, rn: 0 })
        );
        assert_eq!(
            mask_op(&d32(0xF383, 0x8812)),
            Some(MaskOp::Msr { sysm: 18, rn: 3 })
        );
        assert_eq!(
            mask_op(&d32(0xF381, 0x8810)),
            Some(MaskOp::Msr { sysm: 16, rn: 1 })
        );
        assert_eq!(
            mask_op(&d32(0xF382, 0x8813)),
            Some(MaskOp::Msr { sysm: 19, rn: 2 })
        );
        // msr control, r0 / msr psp, r0: not masking
        assert_eq!(mask_op(&d32(0xF380, 0x8814)), None);
        assert_eq!(mask_op(&d32(0xF380, 0x8809)), None);
        // mrs r0, basepri
        assert_eq!(mask_op(&d32(0xF3EF, 0x8011)), None);
    }

    struct Fake {
        words: HashMap<u32, u32>,
        ipsr: u32,
    }

    impl Machine for Fake {
        fn word(&self, addr: u32) -> Option<u32> {
            Some(*self.words.get(&addr).unwrap_or(&0))
        }
        fn ipsr(&self) -> u32 {
            self.ipsr
        }
    }

    fn json(w: &Windows) -> String {
        w.to_json(true, at(1000))
    }

    #[test]
    fn primask_blocks_every_level() {
        let mut w = Windows::new(3, 12);
        let cpsid = MaskOp::Cps {
            primask: true,
            faultmask: false,
            set: true,
        };
        let cpsie = MaskOp::Cps {
            primask: true,
            faultmask: false,
            set: false,
        };
        w.mask_changed(cpsid, 0, at(10));
        w.mask_changed(cpsie, 0, at(17));
        for lv in &w.levels {
            assert_eq!(lv.count, 1);
            let s = lv.sites[&(10, 17, Cause::Primask)];
            assert_eq!((s.max_insns, s.max_cycles), (7, 14));
        }
        assert!(json(&w).contains("\"bound_cycles\":26"));
    }

    #[test]
    fn basepri_blocks_its_level_and_below() {
        let mut w = Windows::new(3, 12);
        // BASEPRI = 0x60 (level 3): levels 3..7 blocked, 0..2 not.
        w.mask_changed(MaskOp::Msr { sysm: 17, rn: 0 }, 0x60, at(5));
        w.mask_changed(MaskOp::Msr { sysm: 17, rn: 0 }, 0, at(9));
        let counts: Vec<u64> = w.levels.iter().map(|l| l.count).collect();
        assert_eq!(counts, [0, 0, 0, 1, 1, 1, 1, 1]);
        // BASEPRI_MAX only raises the masking: 0x80 then 0xA0 (ignored) then 0x40.
        let mut w = Windows::new(3, 12);
        w.mask_changed(MaskOp::Msr { sysm: 18, rn: 0 }, 0x80, at(1));
        w.mask_changed(MaskOp::Msr { sysm: 18, rn: 0 }, 0xA0, at(2));
        assert_eq!(w.basepri, 0x80);
        w.mask_changed(MaskOp::Msr { sysm: 18, rn: 0 }, 0x40, at(3));
        assert_eq!(w.basepri, 0x40);
        // Unimplemented low bits are ignored: 0x1F is 0 with 3 bits.
        w.mask_changed(MaskOp::Msr { sysm: 17, rn: 0 }, 0x1F, at(4));
        assert_eq!(w.basepri, 0);
    }

    #[test]
    fn handler_blocks_equal_and_lower_levels_with_grouping() {
        let mut f = Fake {
            words: HashMap::new(),
            ipsr: 16,
        };
        // IRQ0 priority 0x40 (level 2), active.
        f.words.insert(NVIC_IPR, 0x40);
        f.words.insert(NVIC_IABR, 1);
        let mut w = Windows::new(3, 12);
        w.exception_event(&f, false, at(100), at(100));
        f.ipsr = 0;
        f.words.insert(NVIC_IABR, 0);
        w.exception_event(&f, true, at(130), at(130));
        let counts: Vec<u64> = w.levels.iter().map(|l| l.count).collect();
        assert_eq!(counts, [0, 0, 1, 1, 1, 1, 1, 1]);
        assert!(
            w.levels[2]
                .sites
                .contains_key(&(100, 130, Cause::Handler(16)))
        );
        // PRIGROUP 6: group priority is bit 7 alone; 0x40 is group 0, blocks all levels.
        f.words.insert(AIRCR, 6 << 8);
        f.words.insert(NVIC_IABR, 1);
        f.ipsr = 16;
        let mut w = Windows::new(3, 12);
        w.exception_event(&f, false, at(100), at(100));
        assert!(w.levels.iter().all(|l| l.open.is_some()));
    }

    #[test]
    fn nested_causes_keep_one_window_per_level() {
        let mut w = Windows::new(2, 12);
        let cpsid = MaskOp::Cps {
            primask: true,
            faultmask: false,
            set: true,
        };
        let cpsie = MaskOp::Cps {
            primask: true,
            faultmask: false,
            set: false,
        };
        w.mask_changed(MaskOp::Msr { sysm: 17, rn: 0 }, 0x80, at(0)); // levels 2,3
        w.mask_changed(cpsid, 0, at(4)); // all
        w.mask_changed(cpsie, 0, at(8)); // 0,1 close
        w.mask_changed(MaskOp::Msr { sysm: 17, rn: 0 }, 0, at(20)); // 2,3 close
        assert_eq!(w.levels[0].sites[&(4, 8, Cause::Primask)].max_insns, 4);
        assert_eq!(w.levels[3].sites[&(0, 20, Cause::Basepri)].max_insns, 20);
        assert_eq!(w.levels[3].count, 1);
        let j = json(&w);
        assert!(j.starts_with("{\"schema\":\"rtoslab.irq-windows/1\""));
        assert!(j.contains("\"open_at_exit\":null"));
    }
}
