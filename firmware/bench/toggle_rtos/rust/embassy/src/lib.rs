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
use lab::toggle::{self, ffi};

/// Number of toggling tasks: the configuration's TOGGLE_TASKS define (as the C workload,
/// which is compiled with it; default 1).
const TOGGLE_TASKS: usize = lab::define_u32!(TOGGLE_TASKS, 1) as usize;
const _: () = assert!(
    TOGGLE_TASKS >= 1 && TOGGLE_TASKS <= toggle::MAX_TASKS,
    "TOGGLE_TASKS must be 1 .. 5"
);

/// Task k's whole round of writes; true when it was the round's last (lab::toggle).
fn toggle_all(k: usize) -> bool {
    toggle::all(k, TOGGLE_TASKS)
}

static GO: [Signal<CriticalSectionRawMutex, ()>; toggle::MAX_TASKS] =
    [const { Signal::new() }; toggle::MAX_TASKS];
static ROUND_DONE: Signal<CriticalSectionRawMutex, ()> = Signal::new();

#[embassy_executor::task(pool_size = 5)] // toggle::MAX_TASKS
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
