//! toggle_rtos, embassy version: seed 002 (N tasks each writing a board output 8000 times)
//! as async tasks of the thread executor, over the same C workload as the C versions
//! (firmware/workloads/toggle: the writes, probes, metrics and checks; toggle.h), called
//! through FFI. As toggle_rtos.c: a coordinator begins a round (probe "origin"), signals
//! every toggling task and awaits its own signal; the tasks run; the one that finishes the
//! round signals the coordinator, which ends the round and begins the next. Unlike FreeRTOS
//! there is no time slicing: each task makes all its writes in one poll, in spawn order.
//! Metrics: the workload's (start_k, done_k, spread, total).
#![no_std]

use embassy_executor::Spawner;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;

/// Number of toggling tasks: the configuration's TOGGLE_TASKS define (as the C workload,
/// which is compiled with it; default 1), read from the build's LAB_DEFINE_TOGGLE_TASKS.
const TOGGLE_TASKS: usize = match option_env!("LAB_DEFINE_TOGGLE_TASKS") {
    Some(v) => lab::parse_u32(v) as usize,
    None => 1,
};
const _: () = assert!(TOGGLE_TASKS >= 1 && TOGGLE_TASKS <= 5, "TOGGLE_TASKS must be 1 .. 5");
/// Writes per task and round: the C workload's TOGGLE_COUNT (workloads/toggle/toggle.h).
const TOGGLE_COUNT: u32 = 8000;
/// toggle_result_t TOGGLE_ROUND_DONE (toggle.h).
const TOGGLE_ROUND_DONE: u32 = 2;

type TogglePart = unsafe extern "C" fn(from: u32, count: u32) -> u32;

/// The C workload (firmware/workloads/toggle, compiled by bench.cmake): toggle.h.
mod ffi {
    extern "C" {
        pub static toggle_part: [super::TogglePart; 1]; // really [TOGGLE_TASKS]
        pub fn toggle_init();
        pub fn toggle_round_begin();
        pub fn toggle_round_end() -> i32;
        pub fn toggle_report();
    }
}

/// Task k's whole round of writes (toggle_part[k](0, TOGGLE_COUNT)); true when it was the
/// round's last.
fn toggle_all(k: usize) -> bool {
    lab::check!(k < TOGGLE_TASKS);
    // SAFETY: toggle_part has TOGGLE_TASKS entries (the same define compiles both sides).
    let part = unsafe { (core::ptr::addr_of!(ffi::toggle_part) as *const TogglePart).add(k).read() };
    // SAFETY: the workload's function, called in round order.
    unsafe { part(0, TOGGLE_COUNT) == TOGGLE_ROUND_DONE }
}

static GO: [Signal<CriticalSectionRawMutex, ()>; 5] = [const { Signal::new() }; 5];
static ROUND_DONE: Signal<CriticalSectionRawMutex, ()> = Signal::new();

#[embassy_executor::task(pool_size = 5)]
async fn toggler(k: usize) {
    loop {
        GO[k].wait().await;
        if toggle_all(k) {
            ROUND_DONE.signal(());
        }
    }
}

#[embassy_executor::task]
async fn coordinator() {
    loop {
        // SAFETY: the workload's functions, in their documented order.
        unsafe { ffi::toggle_round_begin() };
        for go in GO.iter().take(TOGGLE_TASKS) {
            go.signal(());
        }
        ROUND_DONE.wait().await;
        // SAFETY: as above.
        if unsafe { ffi::toggle_round_end() } == 0 {
            unsafe { ffi::toggle_report() };
            lab::finish();
        }
    }
}

/// The benchmark's entry point (lab/bench.h): runs the thread executor, never returns.
#[no_mangle]
pub extern "C" fn lab_bench_run() {
    // SAFETY: once, before the first round.
    unsafe { ffi::toggle_init() };
    lab_embassy::run_thread_executor(|spawner: Spawner| {
        for k in 0..TOGGLE_TASKS {
            spawner.spawn(lab::ok(toggler(k)));
        }
        spawner.spawn(lab::ok(coordinator()));
    })
}
