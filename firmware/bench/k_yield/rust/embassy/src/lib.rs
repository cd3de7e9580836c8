//! k_yield, embassy version: the switch between two async tasks of the thread executor at
//! a voluntary yield (the C benchmark's yield_switch, docs/rust-models.md).
//!
//! Tasks A and B each set LAST to themselves, hit probe 2, `yield_now().await`, and after
//! the await hit probe 3 if the other task ran last (a switch) or probe 4 if not. yield_now
//! wakes its own task and returns Pending once; embassy's run queue is a stack emptied in
//! batches (embassy-executor 0.10 raw/run_queue.rs dequeue_all), so the order is A B | B A
//! | A B ...: half the yields resume the OTHER task (yield_switch, probe 2 -> 3) and half
//! resume the SAME task in the next batch (yield_self, probe 2 -> 4). Unlike C's
//! yield_switch, both samples include the load, compare and branch that choose the probe
//! (about 3 instructions). The task that starts second opens the first interval, as in C.
//! Self-check: every probe 2 is followed by exactly one of probes 3 and 4, and both kinds
//! occur; ROUNDS rounds per task.
#![no_std]

use core::sync::atomic::{AtomicU32, Ordering};
use embassy_executor::Spawner;
use lab::{check, meta, probe, MetaRec};

const ROUNDS: u32 = 1000;

meta!(
    MetaRec::since(
        "yield_switch",
        2,
        3,
        "yield_now().await in one async task -> after the await in the other"
    ),
    MetaRec::since(
        "yield_self",
        2,
        4,
        "yield_now().await -> after the await in the same task (next run-queue batch)"
    ),
);

static LAST: AtomicU32 = AtomicU32::new(u32::MAX);
static STARTED: AtomicU32 = AtomicU32::new(0);
static SWITCHES: AtomicU32 = AtomicU32::new(0);
static SELF_RESUMES: AtomicU32 = AtomicU32::new(0);

#[embassy_executor::task(pool_size = 2)]
async fn yielder(me: u32) {
    if lab::fetch_add(&STARTED, 1) == 0 {
        embassy_futures::yield_now().await; // let the other start: it opens the first interval
    } else {
        LAST.store(me, Ordering::Relaxed);
        probe!(2);
        embassy_futures::yield_now().await;
    }
    let mut rounds = 0;
    loop {
        if LAST.load(Ordering::Relaxed) != me {
            probe!(3);
            lab::fetch_add(&SWITCHES, 1);
        } else {
            probe!(4);
            lab::fetch_add(&SELF_RESUMES, 1);
        }
        rounds += 1;
        if me == 0 && rounds == ROUNDS {
            let (sw, own) = (
                SWITCHES.load(Ordering::Relaxed),
                SELF_RESUMES.load(Ordering::Relaxed),
            );
            check!(sw > 0 && own > 0);
            check!(sw + own >= 2 * ROUNDS - 1 && sw + own <= 2 * ROUNDS);
            lab::finish();
        }
        LAST.store(me, Ordering::Relaxed);
        probe!(2);
        embassy_futures::yield_now().await;
    }
}

/// The benchmark's entry point (lab/bench.h): runs the thread executor, never returns.
#[no_mangle]
pub extern "C" fn lab_bench_run() {
    lab_embassy::run_thread_executor(|spawner: Spawner| {
        spawner.spawn(lab::ok(yielder(0)));
        spawner.spawn(lab::ok(yielder(1)));
    })
}
