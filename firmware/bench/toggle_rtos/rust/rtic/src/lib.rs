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
use rtic_sync::signal::{Signal, SignalReader};

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

static ROUND_DONE: Signal<()> = Signal::new();
static GO: [Signal<()>; 5] = [const { Signal::new() }; 5];

fn done_tx() {
    ROUND_DONE.writer().write(());
}

#[rtic::app(device = lab_rtic_device, peripherals = false, dispatchers = [FREE3, FREE2])]
mod app {
    use super::*;
    use crate::handlers;
    use lab_rtic_device::Interrupt;

    #[shared]
    struct Shared {}

    #[local]
    struct Local {}

    #[init]
    fn init(_cx: init::Context) -> (Shared, Local) {
        lab_rtic_device::install(Interrupt::FREE3, handlers::FREE3, 1);
        lab_rtic_device::install(Interrupt::FREE2, handlers::FREE2, 2);
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
