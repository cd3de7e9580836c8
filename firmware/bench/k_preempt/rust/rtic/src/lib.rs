//! k_preempt, RTIC version: a software task at priority 1 spawns a software task at
//! priority 2; spawning pends the priority-2 dispatcher interrupt, which preempts at once.
//!   preempt_resume  probe 2 (low task, before `high::spawn`) -> probe 3 (first statement
//!                   of the high task)
//!   preempt_return  probe 4 (high task's last statement) -> probe 5 (low task after its
//!                   spawn call returned)
//! Self-check: the high task ran once per spawn, before the spawn call returned.
#![no_std]

use core::sync::atomic::{AtomicU32, Ordering};
use lab::{check, meta, probe, MetaRec};

const ROUNDS: u32 = 1000;

meta!(
    MetaRec::interval(
        "preempt_resume",
        2,
        3,
        "low-prio software task spawns a high-prio one -> its first statement"
    ),
    MetaRec::interval(
        "preempt_return",
        4,
        5,
        "high-prio software task ends -> low-prio task after its spawn call"
    ),
);

static HIGH_RUNS: AtomicU32 = AtomicU32::new(0);

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
        low::spawn().ok();
        (Shared {}, Local {})
    }

    #[task(priority = 1)]
    async fn low(_cx: low::Context) {
        for i in 0..ROUNDS {
            probe!(2);
            let r = high::spawn();
            probe!(5);
            check!(r.is_ok());
            check!(HIGH_RUNS.load(Ordering::Relaxed) == i + 1);
        }
        lab::finish();
    }

    #[task(priority = 2)]
    async fn high(_cx: high::Context) {
        probe!(3);
        lab::fetch_add(&HIGH_RUNS, 1);
        probe!(4);
    }
}

// RTIC's handlers of the lines above (installed by handlers::install() in init, listed for
// the timing model) and the entry point lab_bench_run: lab-rtic-device's bench_glue!.
lab_rtic_device::bench_glue!(FREE3 => 1, FREE2 => 2);
