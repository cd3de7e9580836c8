//! k_isr_to_task, embassy version: an interrupt wakes an async task with an embassy-sync
//! `Signal` (the embassy counterpart of the C benchmark's task notification from an ISR).
//! The target's benchmark timer interrupts every PERIOD cycles; its handler hits probe 4
//! and signals; the only task of the thread executor awaits the signal and hits probe 5
//! first thing after `wait().await`:
//!   isr_notify_to_task  probe 4 (interrupt handler, before `signal`) -> probe 5 (the task)
//!   = the signal and wake, the rest of the handler, exception return, the executor leaving
//!   WFE, dequeue and the poll up to the task's first statement.
//! Self-check: the task saw every signal once (no signal is lost or merged at this period).
#![no_std]

use core::sync::atomic::AtomicU32;
use embassy_executor::Spawner;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use lab::{check, meta, probe, MetaRec};

const ROUNDS: u32 = 1000;
/// Timer period in core clock cycles: long enough for the task to await again first.
const PERIOD: u32 = 5000;
/// NVIC level of the timer interrupt, from the least urgent (thread mode is below all).
const TIMER_LEVEL: u8 = 1;

meta!(MetaRec::interval("isr_notify_to_task", 4, 5, "ISR: Signal::signal -> first statement of the awakened thread-executor task after wait().await"));

static SIG: Signal<CriticalSectionRawMutex, u32> = Signal::new();
static FIRED: AtomicU32 = AtomicU32::new(0);

unsafe extern "C" fn timer_tick() {
    let n = lab::fetch_add(&FIRED, 1) + 1;
    probe!(4);
    SIG.signal(n);
}

#[embassy_executor::task]
async fn waiter() {
    for i in 1..=ROUNDS {
        let n = SIG.wait().await;
        probe!(5);
        check!(n == i);
    }
    lab::timer_stop();
    lab::finish();
}

/// The benchmark's entry point (lab/bench.h): runs the thread executor, never returns.
#[no_mangle]
pub extern "C" fn lab_bench_run() {
    lab::timer_start(
        PERIOD,
        timer_tick,
        lab::nvic_prio_from_least_urgent(TIMER_LEVEL),
    );
    lab_embassy::run_thread_executor(|spawner: Spawner| {
        spawner.spawn(lab::ok(waiter()));
    })
}
