//! k_mutex, embassy version: embassy-sync's async `Mutex` (CriticalSectionRawMutex), free
//! and contended. `low` runs on the thread executor, `high` on an InterruptExecutor at a
//! higher NVIC priority. A round:
//!   low:  probe 2, M.lock().await (free), probe 3                  -> mutex_lock
//!   low:  signals GO: high preempts low (interrupt executor)
//!   high: probe 6, M.lock().await: low holds it, so high's future returns Pending and the
//!         interrupt returns to low
//!   low:  probe 7, first statement after its signal call          -> mutex_block
//!   low:  probe 8, drops the guard: the unlock wakes high, which preempts low
//!   high: probe 9, first statement after its lock                  -> mutex_handoff
//!   high: probe 4, drops the guard (no waiter), probe 5            -> mutex_unlock
//! embassy-sync's Mutex has no priority inheritance: while high waits, low runs at thread
//! level, so these are not the C benchmark's mutex_pi_* metrics and have names of their own.
//! Self-check: every lock is granted in order, high runs once per round and holds the
//! mutex after its lock (it records the round while holding it).
#![no_std]

use core::sync::atomic::{AtomicU32, Ordering};
use embassy_executor::Spawner;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::mutex::Mutex;
use embassy_sync::signal::Signal;
use lab::{check, meta, probe, MetaRec};

const ROUNDS: u32 = 1000;
const HIGH_LEVEL: u8 = 2;

meta!(
    MetaRec::interval("mutex_lock", 2, 3, "embassy-sync Mutex::lock().await of a free mutex: call -> after the await"),
    MetaRec::interval("mutex_unlock", 4, 5, "drop of the MutexGuard, no waiter: -> next statement"),
    MetaRec::interval("mutex_block", 6, 7, "high task's lock of a held mutex (Pending) -> holder (thread task) running, no inheritance"),
    MetaRec::interval("mutex_handoff", 8, 9, "holder drops the guard -> high task running as the new holder (preempting)"),
);

static M: Mutex<CriticalSectionRawMutex, u32> = Mutex::new(0);
static GO: Signal<CriticalSectionRawMutex, u32> = Signal::new();
static HIGH_RUNS: AtomicU32 = AtomicU32::new(0);
lab_embassy::interrupt_executor!(HIGH_EXEC, high_irq);

#[embassy_executor::task]
async fn high() {
    loop {
        let round = GO.wait().await;
        probe!(6);
        let mut g = M.lock().await;
        probe!(9);
        check!(*g == 2 * round - 1);
        *g += 1;
        lab::fetch_add(&HIGH_RUNS, 1);
        probe!(4);
        drop(g);
        probe!(5);
    }
}

#[embassy_executor::task]
async fn low() {
    for i in 1..=ROUNDS {
        probe!(2);
        let mut g = M.lock().await;
        probe!(3);
        *g += 1;
        GO.signal(i);
        probe!(7);
        check!(HIGH_RUNS.load(Ordering::Relaxed) == i - 1); // high is waiting for the lock
        probe!(8);
        drop(g);
        check!(HIGH_RUNS.load(Ordering::Relaxed) == i);
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
