//! k_queue, embassy version: embassy-sync `Channel`s of 4-byte items (CriticalSectionRawMutex,
//! capacity 4), as the C benchmark's queues. `low` runs on the thread executor, `high` on an
//! InterruptExecutor at a higher NVIC priority, waiting on channel MAIL. Channel FIFO has no
//! task waiting on it.
//!   queue_send     probe 2 (low, before FIFO.send(i).await with room: completes at the
//!                  first poll) -> probe 3 (after the await): no switch
//!   queue_receive  probe 4 (low, before FIFO.receive().await, one item queued) -> probe 5
//!   queue_latency  probe 6 (low, before MAIL.send(i).await; high waits in receive) ->
//!                  probe 7 (high's first statement after its receive): the send, the wake,
//!                  the interrupt executor's preemption and the rest of high's receive
//! Self-check: items arrive in order, high received each before low's send returned.
#![no_std]

use core::sync::atomic::{AtomicU32, Ordering};
use embassy_executor::Spawner;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::channel::Channel;
use lab::{check, meta, probe, MetaRec};

const ROUNDS: u32 = 1000;
const HIGH_LEVEL: u8 = 2;

meta!(
    MetaRec::interval(
        "queue_send",
        2,
        3,
        "Channel::send().await with room, no receiver waiting (no switch): call -> after await"
    ),
    MetaRec::interval(
        "queue_receive",
        4,
        5,
        "Channel::receive().await of a queued item (no wait): call -> after await"
    ),
    MetaRec::interval(
        "queue_latency",
        6,
        7,
        "Channel send to a waiting interrupt-executor task -> its first statement after receive"
    ),
);

static FIFO: Channel<CriticalSectionRawMutex, u32, 4> = Channel::new();
static MAIL: Channel<CriticalSectionRawMutex, u32, 4> = Channel::new();
static RECEIVED: AtomicU32 = AtomicU32::new(0);
lab_embassy::interrupt_executor!(HIGH_EXEC, high_irq);

#[embassy_executor::task]
async fn high() {
    loop {
        let v = MAIL.receive().await;
        probe!(7);
        check!(v == RECEIVED.load(Ordering::Relaxed) + 1);
        RECEIVED.store(v, Ordering::Relaxed);
    }
}

#[embassy_executor::task]
async fn low() {
    for i in 1..=ROUNDS {
        probe!(2);
        FIFO.send(i).await;
        probe!(3);
        probe!(4);
        let v = FIFO.receive().await;
        probe!(5);
        check!(v == i);
        probe!(6);
        MAIL.send(i).await;
        check!(RECEIVED.load(Ordering::Relaxed) == i);
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
