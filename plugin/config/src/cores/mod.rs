//! Core tables: one file per core, each a `pub const TABLE: CoreTable`, all registered in
//! the one list at the end of this file. Everything else (the `core=` choices, the
//! describe output, the cycle model) reads that list.
//!
//! Every count is the processor's documented cycle count with zero-wait-state memory,
//! transcribed into our own table (`source` names the document and the rows used); the
//! rules that combine them (neighbour rules, refills, wait states) are in the plugin's
//! `timing.rs`.

/// One core's cycle counts (zero wait states) and where they come from.
#[derive(Debug, PartialEq, Eq)]
pub struct CoreTable {
    /// The `core=` value, e.g. `cortex-m3`.
    pub name: &'static str,
    /// Architecture profile, e.g. `armv7-m`.
    pub arch: &'static str,
    /// One line: what is modelled.
    pub description: &'static str,
    /// The documents (and tables) the counts come from.
    pub source: &'static str,
    /// ARMv7-M neighbouring-instruction rules (M3 TRM 3.3.2): load pipelining, the
    /// address-generation stall, the store data phase.
    pub v7m: bool,
    /// Pipeline refill P of a taken branch, in cycles, by where the target comes from:
    /// issued at decode (PC-relative B/B<c>/BL, and BX LR forwarded), at execute (a
    /// register, CBZ/CBNZ), loaded from memory (M3 TRM r2p0 Table 15-3; the plugin's
    /// `flow::Refill` says which branch is which).
    pub p_direct: u32,
    pub p_register: u32,
    pub p_load: u32,
    /// A 32-bit branch target at a halfword offset needs one more fetch (P up to 3).
    pub align_penalty: bool,
    /// BL before its refill (v6-M: 32-bit, BL = 4 on M0 = 2 + P).
    pub bl: u32,
    pub mul: u32,
    /// MLA, MLS (and 16x16 accumulating DSP multiplies).
    pub mla: u32,
    /// Long multiply / long multiply-accumulate / divide: [min, typ, max] (`div=`).
    pub mull: [u32; 3],
    pub mlal: [u32; 3],
    pub div: [u32; 3],
    pub load: u32,
    pub store_imm: u32,
    pub store_reg: u32,
    pub dual: u32,
    /// TBB/TBH before the refill (load 2 + add 1).
    pub tbb: u32,
    pub msr: u32,
    pub mrs: u32,
    pub cps: u32,
    pub dmb: u32,
    pub dsb: u32,
    /// ISB: 1 + B, B at least a refill.
    pub isb: u32,
    /// WFI/WFE (the time asleep is not modelled).
    pub wait: u32,
    /// Exception entry (stacking, vector fetch, first handler fetch), return
    /// (unstacking and refill), tail-chain.
    pub entry: u32,
    pub ret: u32,
    pub tail: u32,
    /// Extra cycles of each instruction fetch over the System bus (code at 0x20000000 to
    /// 0xDFFFFFFF or from 0xE0100000: SRAM, external RAM): the M3 registers those fetch
    /// requests, so a fetch takes two cycles and two cannot be back to back (M3 TRM r1p1,
    /// ARM DDI 0337E, 14.5.6 "Pipelined instruction fetches"). 0: no such difference
    /// (a single-bus core). Applied by the plugin's `timing.rs` as fetch wait states.
    pub sysbus_fetch: u32,
    /// The floating-point unit's counts, for a core whose FPU rtoslab prices (`None`: FP
    /// instructions cost 1 cycle, as any coprocessor-space encoding on a core without a
    /// priced FPU; such a core faults on them anyway).
    pub fpu: Option<&'static FpuTable>,
}

/// Cycle counts of a single-precision FPU (zero wait states) and of FP context stacking.
/// A load/store multiple (VLDM, VSTM, VPUSH, VPOP) costs `multi + N` for N single
/// registers (2 per double register).
#[derive(Debug, PartialEq, Eq)]
pub struct FpuTable {
    /// VADD, VSUB, VABS, VNEG, VMUL, VNMUL, VCMP, VCVT, VMOV (immediate, register).
    pub alu: u32,
    /// VMLA, VMLS, VNMLA, VNMLS, VFMA, VFMS, VFNMA, VFNMS.
    pub mac: u32,
    pub div: u32,
    pub sqrt: u32,
    /// One 32-bit transfer between a core register and the FPU: VMOV of one single or of
    /// half a double to or from a core register; VMRS, VMSR.
    pub mov32: u32,
    /// VMOV between two core registers and two singles or one double (either way).
    pub mov64: u32,
    /// VLDR/VSTR of a single, of a double.
    pub ldst_single: u32,
    pub ldst_double: u32,
    /// The `1` of `1 + N` for a load/store multiple.
    pub multi: u32,
    /// Words of FP state an extended exception frame saves (S0-S15, FPSCR) and restores;
    /// each priced 1 cycle, as a store/load multiple's words.
    pub context_words: u32,
}

/// The `core=` value that selects no model.
pub const NONE: &str = "none";

/// Cortex-M cores rtoslab knows of but has no table for: `core=` refuses them by name
/// (never prices them with another core's table). Their pipelines differ in ways no table
/// here describes: the M7 issues two instructions per cycle and has caches and a branch
/// predictor; the M55/M85 add Helium and caches; the M23/M35P/M52 have no table of ours.
pub const UNMODELLED: &[&str] = &[
    "cortex-m1",
    "cortex-m7",
    "cortex-m23",
    "cortex-m35p",
    "cortex-m52",
    "cortex-m55",
    "cortex-m85",
];

/// The one-line refusal for a core with no table (`UNMODELLED`).
pub fn unmodelled_message(name: &str) -> String {
    format!("{name} timing is not modelled; use --timing core=none for instruction counts")
}

pub mod avr;
pub use avr::{AVR_CORES, AvrTable, avr_by_name};

/// Look a core up by its `core=` name (`none` is not a table: see [`NONE`]).
pub fn by_name(name: &str) -> Option<&'static CoreTable> {
    CORES.iter().copied().find(|t| t.name == name)
}

/// Every `core=` value, in registry order (the Cortex-M tables, then the AVR ones), then
/// `none`.
pub fn choices() -> Vec<&'static str> {
    CORES
        .iter()
        .map(|t| t.name)
        .chain(AVR_CORES.iter().map(|t| t.name))
        .chain([NONE])
        .collect()
}

/// Declares each core's module and lists its `TABLE` in [`CORES`]: adding a core table
/// is a new file in this folder and one line in the invocation below.
macro_rules! register_cores {
    ($($module:ident,)*) => {
        $(mod $module;)*
        /// Every core table, in the order `core=` lists them.
        pub static CORES: &[&CoreTable] = &[$(&$module::TABLE,)*];
    };
}

register_cores! {
    cortex_m3,
    cortex_m4,
    cortex_m0,
    cortex_m0plus,
    cortex_m33,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry() {
        let names: Vec<&str> = CORES.iter().map(|t| t.name).collect();
        let avr: Vec<&str> = AVR_CORES.iter().map(|t| t.name).collect();
        assert_eq!(
            choices(),
            [names.as_slice(), avr.as_slice(), &[NONE]].concat()
        );
        assert!(
            avr.iter()
                .all(|a| by_name(a).is_none() && !names.contains(a))
        );
        assert_eq!(avr_by_name("avre").map(|t| t.call), Some(4));
        for known in [
            "cortex-m3",
            "cortex-m4",
            "cortex-m0",
            "cortex-m0plus",
            "cortex-m33",
        ] {
            assert!(names.contains(&known), "{known}");
        }
        assert_eq!(by_name("cortex-m4").map(|t| t.mla), Some(1));
        assert_eq!(by_name("none"), None);
        assert_eq!(by_name("cortex-m7"), None);
        for t in CORES {
            assert!(
                t.name != NONE
                    && !t.name.is_empty()
                    && t.name
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{}: a core= value (lower case, digits, '-'; not none)",
                t.name
            );
            assert!(t.arch.starts_with("armv"), "{}: arch", t.name);
            assert!(
                !t.description.is_empty() && !t.source.is_empty(),
                "{}",
                t.name
            );
            assert_eq!(by_name(t.name), Some(*t), "names are unique");
        }
    }
}
