//! k_irq_latency, RTIC version: interrupt latency to a hardware task while the app idles
//! (an idle that sleeps with WFI). As the C benchmark: the target's benchmark timer, at the
//! most urgent priority, hits probe 2 and raises a free line (lab_target_irq_soft(0), the
//! device crate's FREE3) bound to a hardware
//! task at priority 1, whose first statement hits probe 3:
//!   irq_latency_idle  probe 2 -> probe 3
//! (RTIC's hardware-task handler is the interrupt handler itself: no dispatch.)
//! Self-check: the task ran exactly once per trigger.
#![no_std]

use core::sync::atomic::Ordering;
use lab::{check, meta, probe, MetaRec};

meta!(MetaRec::interval(
    "irq_latency_idle",
    2,
    3,
    "timer ISR raises IRQ (idle system) -> first statement of that IRQ's handler"
));

// IRQ_SAMPLES, IRQ_TIMER_PERIOD, the counters TRIGGERED / HANDLED / SKIPPED, LINE and
// timer_handler (probe 2): the C workload's trigger, from the lab crate.
lab::irq_latency_trigger!();

#[rtic::app(device = lab_rtic_device, peripherals = false)]
mod app {
    use super::*;
    use lab_rtic_device::Interrupt;

    #[shared]
    struct Shared {}

    #[local]
    struct Local {}

    #[init]
    fn init(_cx: init::Context) -> (Shared, Local) {
        check!(lab::irq_soft(0) == Interrupt::FREE3 as u32);
        crate::handlers::install();
        LINE.store(Interrupt::FREE3 as u32, Ordering::Relaxed);
        let most_urgent = lab::nvic_prio_from_least_urgent((1u8 << lab::NVIC_PRIO_BITS) - 1);
        lab::timer_start(IRQ_TIMER_PERIOD, timer_handler, most_urgent);
        (Shared {}, Local {})
    }

    /// Idle sleeps (WFI) until an interrupt, as the C ports' idle does (RTIC's default
    /// idle, with none declared, is a busy loop).
    #[idle]
    fn idle(_cx: idle::Context) -> ! {
        loop {
            cortex_m::asm::wfi();
        }
    }

    #[task(binds = FREE3, priority = 1)]
    fn measured(_cx: measured::Context) {
        probe!(3);
        let h = HANDLED.load(Ordering::Relaxed) + 1;
        HANDLED.store(h, Ordering::Relaxed);
        if h == IRQ_SAMPLES {
            lab::timer_stop();
            check!(TRIGGERED.load(Ordering::Relaxed) == IRQ_SAMPLES);
            lab::finish();
        }
    }
}

// RTIC's handlers of the lines above (installed by handlers::install() in init, listed for
// the timing model) and the entry point lab_bench_run: lab-rtic-device's bench_glue!.
lab_rtic_device::bench_glue!(FREE3 => 1);
