//! Cortex-M33 (ARMv8-M mainline, optional FPv5-SP and DSP).
//!
//! ARM publishes no per-instruction cycle table for the Cortex-M33: its Technical
//! Reference Manual (ARM 100230) describes the programmers' model, not instruction timing,
//! and no vendor reference manual we found reproduces one. What is published and used here:
//! * interrupt latency 12 cycles when the exception does not change the security state
//!   (21 when it does; not modelled: rtoslab's images run in one state), from ARM's
//!   figures as reported by elektroniknet.de, "Cortex-M23 und M33 sind erste ARMv8-M-CPUs"
//!   (page 3).
//! * the pipeline is new (two main stages plus a third for multiply/divide/DSP, limited
//!   dual issue of 16-bit instructions): the same article. None of it is given as counts.
//!
//! Everything else is the Cortex-M4's table (cortex_m4.rs: ARMv7E-M counts, FPv4-SP
//! counts for the FPv5-SP unit, return 10, tail-chain 6), an ASSUMPTION stated in the
//! description and in docs/timing-model.md, not a published M33 figure: the M33 figures
//! are expected to be at or below it (loads start in the second stage, the article says).

use super::CoreTable;
use super::cortex_m4;

pub const TABLE: CoreTable = CoreTable {
    name: "cortex-m33",
    arch: "armv8-m.main",
    description: "Cortex-M33: published 12-cycle interrupt latency; instruction and FPU counts assumed equal to the Cortex-M4's (no published M33 table)",
    source: "elektroniknet.de 'Cortex-M23 und M33 sind erste ARMv8-M-CPUs' p.3 (ARM's latency figures); otherwise Cortex-M4 TRM r0p1 (ARM DDI 0439B) Tables 3-1 and 7-1, assumed",
    entry: 12,
    ..cortex_m4::TABLE
};
