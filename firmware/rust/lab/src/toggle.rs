//! Seed 002's C workload (firmware/workloads/toggle, toggle.h; compiled by the benchmark's
//! bench.cmake) as the Rust versions of toggle_rtos drive it through FFI: the workload
//! makes the writes, hits the probes, declares the metrics and checks the result; a Rust
//! model only schedules its tasks. The number of tasks is the configuration's
//! TOGGLE_TASKS define, read by the benchmark with `lab::define_u32!(TOGGLE_TASKS, 1)`
//! (the C workload is compiled with the same define).

/// Writes per task and round: the C workload's TOGGLE_COUNT (toggle.h).
pub const COUNT: u32 = 8000;
/// toggle_result_t TOGGLE_ROUND_DONE (toggle.h): the call made the round's last write.
pub const ROUND_DONE: u32 = 2;
/// Most tasks the workload supports (toggle.h: TOGGLE_TASKS 1 .. 5).
pub const MAX_TASKS: usize = 5;

/// toggle_part_fn: task k's writes `from` .. `from + count`; returns a toggle_result_t.
pub type Part = unsafe extern "C" fn(from: u32, count: u32) -> u32;

/// toggle.h's functions, called in its documented order: toggle_init once, then per
/// round toggle_round_begin, the tasks' parts, toggle_round_end (0: the last round was
/// measured), and toggle_report after the last.
pub mod ffi {
    extern "C" {
        pub static toggle_part: [super::Part; 1]; // really [TOGGLE_TASKS]
        pub fn toggle_init();
        pub fn toggle_round_begin();
        pub fn toggle_round_end() -> i32;
        pub fn toggle_report();
    }
}

/// Task k's whole round of writes (toggle_part[k](0, COUNT)) of `tasks` (the build's
/// TOGGLE_TASKS); true when it was the round's last. Fails the run when k >= tasks.
#[inline]
pub fn all(k: usize, tasks: usize) -> bool {
    crate::check!(k < tasks);
    // SAFETY: toggle_part has TOGGLE_TASKS entries (the same define compiles both sides).
    let part = unsafe {
        (core::ptr::addr_of!(ffi::toggle_part) as *const Part)
            .add(k)
            .read()
    };
    // SAFETY: the workload's function, called in round order.
    unsafe { part(0, COUNT) == ROUND_DONE }
}
