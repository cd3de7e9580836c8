//! k_yield, RTIC version: two async software tasks A and B of equal priority (1, one
//! dispatcher) take turns at a yield (embassy-futures' `yield_now`: wake itself, return
//! Pending once; RTIC has no yield of its own). Each sets LAST to itself, hits probe 2,
//! awaits the yield, then hits probe 3 if the other task ran last (yield_switch) or probe 4
//! if not: the same code as the embassy version (whose executor does resume the same task
//! half the time), so the choice, a load, compare and branch that C's yield_switch has not,
//! is inside the interval. RTIC's dispatcher polls the ready tasks of its priority in a
//! fixed order, so here every yield switches (probe 4 never hits: no yield_self metric).
//! Self-check: every yield switched; ROUNDS rounds per task.
#![no_std]

use core::sync::atomic::{AtomicU32, Ordering};
use lab::{check, meta, probe, MetaRec};

const ROUNDS: u32 = 1000;

meta!(MetaRec::since(
    "yield_switch",
    2,
    3,
    "yield_now().await in one software task -> after the await in the other"
));

static LAST: AtomicU32 = AtomicU32::new(u32::MAX);
static STARTED: AtomicU32 = AtomicU32::new(0);
static SWITCHES: AtomicU32 = AtomicU32::new(0);
static SELF_RESUMES: AtomicU32 = AtomicU32::new(0);

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
            check!(own == 0 && sw == 2 * ROUNDS - 1);
            lab::finish();
        }
        LAST.store(me, Ordering::Relaxed);
        probe!(2);
        embassy_futures::yield_now().await;
    }
}

#[rtic::app(device = lab_rtic_device, peripherals = false, dispatchers = [FREE3])]
mod app {

    #[shared]
    struct Shared {}

    #[local]
    struct Local {}

    #[init]
    fn init(_cx: init::Context) -> (Shared, Local) {
        crate::handlers::install();
        task_a::spawn().ok();
        task_b::spawn().ok();
        (Shared {}, Local {})
    }

    #[task(priority = 1)]
    async fn task_a(_cx: task_a::Context) {
        crate::yielder(0).await
    }

    #[task(priority = 1)]
    async fn task_b(_cx: task_b::Context) {
        crate::yielder(1).await
    }
}

// RTIC's handlers of the lines above (installed by handlers::install() in init, listed for
// the timing model) and the entry point lab_bench_run: lab-rtic-device's bench_glue!.
lab_rtic_device::bench_glue!(FREE3 => 1);
