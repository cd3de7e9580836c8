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
    MetaRec::interval("queue_send", 2, 3, "rtic-sync Sender::send().await with room, no receiver waiting: call -> after await"),
    MetaRec::interval("queue_receive", 4, 5, "rtic-sync Receiver::recv().await of a queued item: call -> after await"),
    MetaRec::interval("queue_latency", 6, 7, "rtic-sync send to a waiting higher-priority task -> its first statement after recv"),
);

static RECEIVED: AtomicU32 = AtomicU32::new(0);

#[rtic::app(device = lab_rtic_device, peripherals = false, dispatchers = [FREE3, FREE2])]
mod app {
    use super::*;
    use crate::handlers;
    use lab_rtic_device::Interrupt;
    use rtic_sync::channel::{Receiver, Sender};
    use rtic_sync::make_channel;

    #[shared]
    struct Shared {}

    #[local]
    struct Local {}

    #[init]
    fn init(_cx: init::Context) -> (Shared, Local) {
        lab_rtic_device::install(Interrupt::FREE3, handlers::FREE3, 1);
        lab_rtic_device::install(Interrupt::FREE2, handlers::FREE2, 2);
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

/// RTIC's dispatcher handlers, installed in init and listed for the timing model.
mod handlers {
    extern "C" {
        pub fn FREE3();
        pub fn FREE2();
    }
    lab::isr!(LAB_ISR_FREE3, FREE3);
    lab::isr!(LAB_ISR_FREE2, FREE2);
}

/// The benchmark's entry point (lab/bench.h): RTIC's generated `main`, renamed
/// lab_rust_main by the build (the C harness owns `main`); never returns.
#[no_mangle]
pub extern "C" fn lab_bench_run() {
    extern "C" {
        fn lab_rust_main() -> !;
    }
    // SAFETY: RTIC's main, called once.
    unsafe { lab_rust_main() }
}
