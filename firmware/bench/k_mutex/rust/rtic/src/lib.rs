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
    MetaRec::interval(
        "mutex_lock",
        2,
        3,
        "RTIC resource lock (ceiling 2, from priority 1): call -> first statement in the closure"
    ),
    MetaRec::interval(
        "mutex_unlock",
        4,
        5,
        "RTIC resource lock: last statement in the closure -> after lock, no task pending"
    ),
);

#[rtic::app(device = lab_rtic_device, peripherals = false, dispatchers = [FREE3, FREE2])]
mod app {
    use super::*;

    #[shared]
    struct Shared {
        counter: u32,
    }

    #[local]
    struct Local {}

    #[init]
    fn init(_cx: init::Context) -> (Shared, Local) {
        crate::handlers::install();
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

// RTIC's handlers of the lines above (installed by handlers::install() in init, listed for
// the timing model) and the entry point lab_bench_run: lab-rtic-device's bench_glue!.
lab_rtic_device::bench_glue!(FREE3 => 1, FREE2 => 2);
