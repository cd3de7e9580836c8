//! k_irq_latency, RTIC version: interrupt latency to a hardware task while the app idles
//! (an idle that sleeps with WFI). As the C benchmark: the target's benchmark timer, at the
//! most urgent priority, hits probe 2 and raises a free line (lab_target_irq_soft(0), the
//! device crate's FREE3) bound to a hardware
//! task at priority 1, whose first statement hits probe 3:
//!   irq_latency_idle  probe 2 -> probe 3
//! (RTIC's hardware-task handler is the interrupt handler itself: no dispatch.)
//! Self-check: the task ran exactly once per trigger.
#![no_std]

use core::sync::atomic::{AtomicU32, Ordering};
use lab::{check, meta, probe, MetaRec};

const IRQ_SAMPLES: u32 = 2000;
/// The C benchmark's period (workloads/irq_latency/irq_latency.h): 499 target clock cycles.
const IRQ_TIMER_PERIOD: u32 = 499;

meta!(MetaRec::interval("irq_latency_idle", 2, 3, "timer ISR raises IRQ (idle system) -> first statement of that IRQ's handler"));

static TRIGGERED: AtomicU32 = AtomicU32::new(0);
static HANDLED: AtomicU32 = AtomicU32::new(0);
static SKIPPED: AtomicU32 = AtomicU32::new(0);
/// The measured line, looked up once before the timer starts (as the C workload's irq_line).
static LINE: AtomicU32 = AtomicU32::new(0);

/// The trigger, as the C workload's irq_timer_handler: on the target's benchmark timer at
/// the most urgent priority; raises the measured line only when the previous one was
/// handled (else counts a skip).
unsafe extern "C" fn timer_handler() {
    let t = TRIGGERED.load(Ordering::Relaxed);
    if t >= IRQ_SAMPLES {
        return;
    }
    if HANDLED.load(Ordering::Relaxed) != t {
        lab::fetch_add(&SKIPPED, 1);
        return;
    }
    TRIGGERED.store(t + 1, Ordering::Relaxed);
    probe!(2);
    lab::irq_trigger(LINE.load(Ordering::Relaxed));
}

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
