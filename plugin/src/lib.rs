//! rtoslab QEMU TCG plugin (QEMU >= 9.2, plugin API v4).
//!
//! Watches stores into the probe region and writes, for each one, the number of guest
//! instructions completed before it and, with a timing model, the modelled cycles
//! (docs/formats.md sections 1 and 2, docs/timing-model.md).
//!
//! Modules, each using only those listed after it (`tests/module_graph.rs` reads this
//! list and fails when a module uses one listed before it, or is missing here):
//! * `runtime`    - the QEMU-facing glue: registration, instrumentation, callbacks, the
//!   counters (QEMU's scoreboard), guest reads, the trace/event/window files
//!   (`runtime/avr_guest.rs`: AVR guests) (compiled out of unit tests: the QEMU plugin
//!   symbols only exist inside QEMU);
//! * `armv6m_image` - tests only: the classifier on a real ARMv6-M image;
//! * `engine`     - the per-vCPU state machine behind the callbacks, without QEMU: block
//!   entry (event, charge, the memo per pair of blocks, the FP context), the point of a
//!   probe store, the live vector table; reads the machine through its `Guest` trait;
//! * `itcond`     - instructions skipped by their IT condition: the correction per outcome;
//! * `timing`     - the Cortex-M cycle model: the rules engine over the core tables;
//! * `instrument` - per translation block instrumentation plan (counting segments,
//!   store and load callbacks) and the exactness argument;
//! * `cost`       - cycle model interface (static per-block costs, per-event and
//!   per-access dynamic costs) and the zero model (`core=none`);
//! * `flow`       - block shape and how blocks hand control on: taken branches,
//!   exception entry, return and tail-chaining inferred at block entry;
//! * `fpu`        - which floating-point operation a coprocessor-space encoding is;
//! * `irqwin`     - masked-window tracking per interrupt priority level (`irq_windows=`);
//! * `decoded`    - a decoded instruction with its encoding, and its operands;
//! * `thumb`      - Thumb/Thumb-2 classifier (length, loads/stores, control flow, class);
//! * `fpctx`      - FP context on exception entry/return: extended frame, lazy stacking;
//! * `trace`      - trace file v2 writer (layout: formats/trace.toml);
//! * `events`     - exception event file writer (the timeline, off by default; layout:
//!   formats/events.toml);
//! * `clock`      - the machine's shared clock: every core's counts summed (written once);
//! * `format_decl` - tests only: a format declaration's examples and constants.
//! * `avr`        - the AVR cycle model (`core=avre`): decode, static cycles, run-time extras.
//!
//! The plugin's arguments, the timing-model settings and rules, and the core tables are
//! the `rtoslab-plugin-config` crate (`config/`), which has no QEMU dependency, so the
//! `rtoslab-plugin-describe` tool shares them.

#[cfg(test)]
mod armv6m_image;
pub mod avr;
pub mod clock;
pub mod cost;
pub mod decoded;
pub mod engine;
pub mod events;
pub mod flow;
#[cfg(test)]
mod format_decl;
pub mod fpctx;
pub mod fpu;
pub mod instrument;
pub mod irqwin;
pub mod itcond;
pub mod thumb;
pub mod timing;
pub mod trace;

#[cfg(not(test))]
mod runtime;
