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

meta!(MetaRec::interval(
    "isr_notify_to_task",
    4,
    5,
    "hardware task spawns a software task -> its first statement (RTIC)"
));

static ROUND: AtomicU32 = AtomicU32::new(0);
static WOKEN: AtomicU32 = AtomicU32::new(0);

#[rtic::app(device = lab_rtic_device, peripherals = false, dispatchers = [FREE3, FREE2])]
mod app {
    use super::*;
    use lab_rtic_device::Interrupt;

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

// RTIC's handlers of the lines above (installed by handlers::install() in init, listed for
// the timing model) and the entry point lab_bench_run: lab-rtic-device's bench_glue!.
lab_rtic_device::bench_glue!(FREE3 => 1, FREE2 => 2, FREE1 => 3);
