//! rtoslab QEMU TCG plugin (QEMU 7.2, plugin API v1).
//!
//! Watches stores into the probe region and writes, for each one, the number of guest
//! instructions completed before it (docs/formats.md sections 1 and 2).
//!
//! Modules:
//! * `args`  - plugin argument parsing;
//! * `thumb` - Thumb/Thumb-2 classifier (length, loads/stores, control flow, class);
//! * `plan`  - per translation block instrumentation plan (counting segments, stores)
//!   and the exactness argument;
//! * `cost`  - cycle model trait (static per-instruction + dynamic per-block-entry parts)
//!   and the zero model in use today;
//! * `trace` - trace file v1 writer.
//!
//! The QEMU-facing glue lives in `runtime` and is compiled out of unit tests (the
//! QEMU plugin symbols only exist inside QEMU).

pub mod args;
pub mod cost;
pub mod plan;
pub mod thumb;
pub mod trace;

#[cfg(not(test))]
mod runtime;
