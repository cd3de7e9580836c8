//! k_isr_to_task, RTIC version: the RTIC way of waking a task from an interrupt. A
//! software task `low` (priority 1) raises the free device interrupt line FREE1 (lab_target_irq_trigger);
//! the hardware task bound to it (priority 3) spawns the software task `waiter` (priority 2)
//! with the round number; when the hardware task returns, the priority-2 dispatcher runs
//! (tail-chained) before `low` resumes:
//!   isr_notify_to_task  probe 4 (hardware task, before `waiter::spawn`) -> probe 5 (first
//!                       statement of `waiter`)
//! Self-check: the spawn succeeded and `waiter` ran once per interrupt, before the trigger
//! returned to `low`.
#![no_std]

use core::sync::atomic::{AtomicU32, Ordering};
use lab::{check, meta, probe, MetaRec};

const ROUNDS: u32 = 1000;

meta!(MetaRec::interval("isr_notify_to_task", 4, 5, "hardware task spawns a software task -> its first statement (RTIC)"));

static ROUND: AtomicU32 = AtomicU32::new(0);
static WOKEN: AtomicU32 = AtomicU32::new(0);

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
        lab_rtic_device::install(Interrupt::FREE1, handlers::FREE1, 3);
        low::spawn().ok();
        (Shared {}, Local {})
    }

    #[task(priority = 1)]
    async fn low(_cx: low::Context) {
        for i in 1..=ROUNDS {
            ROUND.store(i, Ordering::Relaxed);
            lab::irq_trigger(Interrupt::FREE1 as u32);
            check!(WOKEN.load(Ordering::Relaxed) == i);
        }
        lab::finish();
    }

    #[task(binds = FREE1, priority = 3)]
    fn isr(_cx: isr::Context) {
        let round = ROUND.load(Ordering::Relaxed);
        probe!(4);
        let r = waiter::spawn(round);
        check!(r.is_ok());
    }

    #[task(priority = 2)]
    async fn waiter(_cx: waiter::Context, round: u32) {
        probe!(5);
        check!(round == WOKEN.load(Ordering::Relaxed) + 1);
        WOKEN.store(round, Ordering::Relaxed);
    }
}

/// RTIC's dispatcher and hardware-task handlers, installed in init and listed for the
/// timing model.
mod handlers {
    extern "C" {
        pub fn FREE3();
        pub fn FREE2();
        pub fn FREE1();
    }
    lab::isr!(LAB_ISR_FREE3, FREE3);
    lab::isr!(LAB_ISR_FREE2, FREE2);
    lab::isr!(LAB_ISR_FREE1, FREE1);
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
