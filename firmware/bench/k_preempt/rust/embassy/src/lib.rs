//! k_preempt, embassy version: the seed's "coroutine -> thread" switch in embassy terms. A
//! task of the thread executor (thread mode) signals an embassy-sync `Signal` that a task of
//! an `InterruptExecutor` (free IRQ line at a higher NVIC priority) awaits: the signal wakes
//! that task, the waker pends the executor's interrupt, the interrupt preempts thread mode
//! and the executor polls the task. Measured (the C benchmark's preempt_resume):
//!   preempt_resume  probe 2 (thread task, before `signal`) -> probe 3 (interrupt-executor
//!                   task, first statement after `wait().await`)
//!   preempt_return  probe 4 (interrupt-executor task, before awaiting again) -> probe 5
//!                   (thread task, first statement after `signal` returned): the way back.
//! Self-check: the high task ran once per signal, before `signal` returned (it preempted).
#![no_std]

use core::sync::atomic::{AtomicU32, Ordering};
use embassy_executor::Spawner;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use lab::{check, meta, probe, MetaRec};

const ROUNDS: u32 = 1000;
/// NVIC level of the interrupt executor, from the least urgent (thread mode is below all).
const HIGH_LEVEL: u8 = 2;

meta!(
    MetaRec::interval(
        "preempt_resume",
        2,
        3,
        "thread-executor task signals -> first statement of the awakened interrupt-executor task"
    ),
    MetaRec::interval(
        "preempt_return",
        4,
        5,
        "interrupt-executor task awaits again -> thread-executor task after its signal call"
    ),
);

lab_embassy::interrupt_executor!(HIGH_EXEC, high_irq);
static GO: Signal<CriticalSectionRawMutex, ()> = Signal::new();
static HIGH_RUNS: AtomicU32 = AtomicU32::new(0);

#[embassy_executor::task]
async fn high() {
    loop {
        GO.wait().await;
        probe!(3);
        lab::fetch_add(&HIGH_RUNS, 1);
        probe!(4);
    }
}

#[embassy_executor::task]
async fn low() {
    for i in 0..ROUNDS {
        probe!(2);
        GO.signal(());
        probe!(5);
        check!(HIGH_RUNS.load(Ordering::Relaxed) == i + 1);
    }
    lab::finish();
}

/// The benchmark's entry point (lab/bench.h): runs the executors, never returns.
#[no_mangle]
pub extern "C" fn lab_bench_run() {
    let high_spawner = lab_embassy::start_interrupt_executor(&HIGH_EXEC, 0, HIGH_LEVEL, high_irq);
    high_spawner.spawn(lab::ok(high()));
    lab_embassy::run_thread_executor(|spawner: Spawner| {
        spawner.spawn(lab::ok(low()));
    })
}
