//! k_queue, RTIC version: rtic-sync `Channel`s of 4-byte items (capacity 4), as the C
//! benchmark's queues. `low` (priority 1) owns FIFO's both ends and MAIL's sender; `high`
//! (priority 2) waits in MAIL's receiver.
//!   queue_send     probe 2 (low, before fifo.send(i).await with room) -> probe 3: no switch
//!   queue_receive  probe 4 (low, before fifo.recv().await, one item queued) -> probe 5
//!   queue_latency  probe 6 (low, before mail.send(i).await; high waits in recv) -> probe 7
//!                  (high's first statement after its recv): the send, the wake, the
//!                  dispatcher's preemption and the rest of high's recv
//! Self-check: items arrive in order; high received each before low's send returned.
#![no_std]

use core::sync::atomic::{AtomicU32, Ordering};
use lab::{check, meta, probe, MetaRec};

const ROUNDS: u32 = 1000;

meta!(
    MetaRec::interval(
        "queue_send",
        2,
        3,
        "rtic-sync Sender::send().await with room, no receiver waiting: call -> after await"
    ),
    MetaRec::interval(
        "queue_receive",
        4,
        5,
        "rtic-sync Receiver::recv().await of a queued item: call -> after await"
    ),
    MetaRec::interval(
        "queue_latency",
        6,
        7,
        "rtic-sync send to a waiting higher-priority task -> its first statement after recv"
    ),
);

static RECEIVED: AtomicU32 = AtomicU32::new(0);

#[rtic::app(device = lab_rtic_device, peripherals = false, dispatchers = [FREE3, FREE2])]
mod app {
    use super::*;
    use rtic_sync::channel::{Receiver, Sender};
    use rtic_sync::make_channel;

    #[shared]
    struct Shared {}

    #[local]
    struct Local {}

    #[init]
    fn init(_cx: init::Context) -> (Shared, Local) {
        crate::handlers::install();
        let (fifo_s, fifo_r) = make_channel!(u32, 4);
        let (mail_s, mail_r) = make_channel!(u32, 4);
        high::spawn(mail_r).ok();
        low::spawn(fifo_s, fifo_r, mail_s).ok();
        (Shared {}, Local {})
    }

    #[task(priority = 1)]
    async fn low(
        _cx: low::Context,
        mut fifo_s: Sender<'static, u32, 4>,
        mut fifo_r: Receiver<'static, u32, 4>,
        mut mail_s: Sender<'static, u32, 4>,
    ) {
        for i in 1..=ROUNDS {
            probe!(2);
            let r = fifo_s.send(i).await;
            probe!(3);
            check!(r.is_ok());
            probe!(4);
            let v = fifo_r.recv().await;
            probe!(5);
            check!(v == Ok(i));
            probe!(6);
            let r = mail_s.send(i).await;
            check!(r.is_ok());
            check!(RECEIVED.load(Ordering::Relaxed) == i);
        }
        lab::finish();
    }

    #[task(priority = 2)]
    async fn high(_cx: high::Context, mut mail_r: Receiver<'static, u32, 4>) {
        loop {
            let v = mail_r.recv().await;
            probe!(7);
            check!(v == Ok(RECEIVED.load(Ordering::Relaxed) + 1));
            RECEIVED.store(RECEIVED.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        }
    }
}

// RTIC's handlers of the lines above (installed by handlers::install() in init, listed for
// the timing model) and the entry point lab_bench_run: lab-rtic-device's bench_glue!.
lab_rtic_device::bench_glue!(FREE3 => 1, FREE2 => 2);
