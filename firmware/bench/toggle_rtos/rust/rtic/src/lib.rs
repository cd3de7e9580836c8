//! toggle_rtos, RTIC version: seed 002 (N tasks each writing a board output 8000 times)
//! as RTIC software tasks, over the same C workload as the C versions
//! (firmware/workloads/toggle: the writes, probes, metrics and checks; toggle.h), called
//! through FFI. As toggle_rtos.c: the coordinator (priority 2) begins a round (probe
//! "origin"), writes each toggling task's rtic-sync Signal and awaits its own; the
//! TOGGLE_TASKS toggling tasks (priority 1, equal; each awaits its signal in a loop) then
//! run, each making all its writes in one poll (RTIC has no time slicing), in the order
//! RTIC's dispatcher polls them; the task that finishes the round writes the coordinator's
//! signal and the coordinator preempts it, ends the round and begins the next.
//! Metrics: the workload's (start_k, done_k, spread, total).
#![no_std]

use lab::check;
use lab::toggle::{self, ffi};
use rtic_sync::signal::{Signal, SignalReader};

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

static ROUND_DONE: Signal<()> = Signal::new();
static GO: [Signal<()>; toggle::MAX_TASKS] = [const { Signal::new() }; toggle::MAX_TASKS];

fn done_tx() {
    ROUND_DONE.writer().write(());
}

#[rtic::app(device = lab_rtic_device, peripherals = false, dispatchers = [FREE3, FREE2])]
mod app {
    use super::*;

    #[shared]
    struct Shared {}

    #[local]
    struct Local {}

    #[init]
    fn init(_cx: init::Context) -> (Shared, Local) {
        crate::handlers::install();
        // SAFETY: once, before the first round.
        unsafe { ffi::toggle_init() };
        let spawned = [
            t0::spawn(GO[0].take_reader()).is_ok(),
            TOGGLE_TASKS < 2 || t1::spawn(GO[1].take_reader()).is_ok(),
            TOGGLE_TASKS < 3 || t2::spawn(GO[2].take_reader()).is_ok(),
            TOGGLE_TASKS < 4 || t3::spawn(GO[3].take_reader()).is_ok(),
            TOGGLE_TASKS < 5 || t4::spawn(GO[4].take_reader()).is_ok(),
        ];
        check!(spawned.iter().all(|&ok| ok));
        check!(coordinator::spawn(ROUND_DONE.take_reader()).is_ok());
        (Shared {}, Local {})
    }

    #[task(priority = 2)]
    async fn coordinator(_cx: coordinator::Context, mut done: SignalReader<'static, ()>) {
        loop {
            // SAFETY: the workload's functions, in their documented order.
            unsafe { ffi::toggle_round_begin() };
            for go in GO.iter().take(TOGGLE_TASKS) {
                go.writer().write(());
            }
            done.wait().await;
            // SAFETY: as above.
            if unsafe { ffi::toggle_round_end() } == 0 {
                unsafe { ffi::toggle_report() };
                lab::finish();
            }
        }
    }

    #[task(priority = 1)]
    async fn t0(_cx: t0::Context, mut go: SignalReader<'static, ()>) {
        loop {
            go.wait().await;
            if toggle_all(0) {
                done_tx(); // the round's last write: the coordinator preempts
            }
        }
    }

    #[task(priority = 1)]
    async fn t1(_cx: t1::Context, mut go: SignalReader<'static, ()>) {
        loop {
            go.wait().await;
            if toggle_all(1) {
                done_tx(); // the round's last write: the coordinator preempts
            }
        }
    }

    #[task(priority = 1)]
    async fn t2(_cx: t2::Context, mut go: SignalReader<'static, ()>) {
        loop {
            go.wait().await;
            if toggle_all(2) {
                done_tx(); // the round's last write: the coordinator preempts
            }
        }
    }

    #[task(priority = 1)]
    async fn t3(_cx: t3::Context, mut go: SignalReader<'static, ()>) {
        loop {
            go.wait().await;
            if toggle_all(3) {
                done_tx(); // the round's last write: the coordinator preempts
            }
        }
    }

    #[task(priority = 1)]
    async fn t4(_cx: t4::Context, mut go: SignalReader<'static, ()>) {
        loop {
            go.wait().await;
            if toggle_all(4) {
                done_tx(); // the round's last write: the coordinator preempts
            }
        }
    }
}

// RTIC's handlers of the lines above (installed by handlers::install() in init, listed for
// the timing model) and the entry point lab_bench_run: lab-rtic-device's bench_glue!.
lab_rtic_device::bench_glue!(FREE3 => 1, FREE2 => 2);
