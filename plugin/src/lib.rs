//! rtoslab QEMU TCG plugin (QEMU 7.2, plugin API v1).
//!
//! Watches stores into the probe region and writes, for each one, the number of guest
//! instructions completed before it and, with a timing model, the modelled cycles
//! (docs/formats.md sections 1 and 2, docs/timing-model.md).
//!
//! Modules:
//! * `args`  - plugin argument parsing;
//! * `thumb` - Thumb/Thumb-2 classifier (length, loads/stores, control flow, class);
//! * `plan`  - per translation block instrumentation plan (counting segments, stores)
//!   and the exactness argument;
//! * `cost`  - cycle model interface (static per-block costs, per-event and per-access
//!   dynamic costs) and the zero model (`core=none`);
//! * `flow`  - how blocks hand control on: taken branches, exception entry, return and
//!   tail-chaining inferred at block entry;
//! * `timing` - the Cortex-M3/M4/M0/M0+ cycle model;
//! * `trace` - trace file v1 writer.
//!
//! The QEMU-facing glue lives in `runtime` and is compiled out of unit tests (the
//! QEMU plugin symbols only exist inside QEMU).

pub mod args;
pub mod cost;
pub mod flow;
pub mod plan;
pub mod thumb;
pub mod timing;
pub mod trace;

#[cfg(not(test))]
mod runtime;
