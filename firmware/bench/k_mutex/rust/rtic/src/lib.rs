//! k_mutex, RTIC version: mutual exclusion by a shared resource's priority ceiling (RTIC's
//! Stack Resource Policy). `low` (priority 1) and `high` (priority 2) share COUNTER, so its
//! ceiling is 2 and `low`'s lock raises BASEPRI to priority 2 for the closure:
//!   mutex_lock    probe 2 (before `lock`) -> probe 3 (first statement in the closure)
//!   mutex_unlock  probe 4 (last statement in the closure) -> probe 5 (after `lock`)
//! A lock never blocks under SRP (a task that could contend cannot start while the ceiling
//! is raised), so the C benchmark's blocking metrics (mutex_pi_block, mutex_pi_handoff)
//! have no RTIC counterpart. `high` is spawned inside the closure each round: it must not
//! run until the lock ends (the ceiling masks it), then it runs before `lock` returns.
//! Self-check: `high` ran once per round, never inside the closure.
#![no_std]

use lab::{check, meta, probe, MetaRec};

const ROUNDS: u32 = 1000;

meta!(
    MetaRec::interval("mutex_lock", 2, 3, "RTIC resource lock (ceiling 2, from priority 1): call -> first statement in the closure"),
    MetaRec::interval("mutex_unlock", 4, 5, "RTIC resource lock: last statement in the closure -> after lock, no task pending"),
);

#[rtic::app(device = lab_rtic_device, peripherals = false, dispatchers = [FREE3, FREE2])]
mod app {
    use super::*;
    use crate::handlers;
    use lab_rtic_device::Interrupt;

    #[shared]
    struct Shared {
        counter: u32,
    }

    #[local]
    struct Local {}

    #[init]
    fn init(_cx: init::Context) -> (Shared, Local) {
        lab_rtic_device::install(Interrupt::FREE3, handlers::FREE3, 1);
        lab_rtic_device::install(Interrupt::FREE2, handlers::FREE2, 2);
        low::spawn().ok();
        (Shared { counter: 0 }, Local {})
    }

    #[task(priority = 1, shared = [counter])]
    async fn low(mut cx: low::Context) {
        for i in 0..ROUNDS {
            probe!(2);
            cx.shared.counter.lock(|c| {
                probe!(3);
                check!(*c == 2 * i); // high has not run inside the lock
                *c += 1;
                probe!(4);
            });
            probe!(5);
            let r = high::spawn(); // runs now: the lock is over
            check!(r.is_ok());
            cx.shared.counter.lock(|c| check!(*c == 2 * i + 2));
        }
        lab::finish();
    }

    #[task(priority = 2, shared = [counter])]
    async fn high(mut cx: high::Context) {
        cx.shared.counter.lock(|c| *c += 1);
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
