//! k_irq_latency, embassy version: interrupt latency while embassy idles (its thread
//! executor waits in WFE with its only task awaiting a Signal). As the C benchmark: the
//! target's benchmark timer, at the most urgent priority, hits probe 2 and raises a free
//! line (lab_target_irq_soft(0)) at NVIC level 1; that line's handler, a plain interrupt
//! handler as embassy programs have (embassy does not wrap interrupts), hits probe 3 first:
//!   irq_latency_idle  probe 2 -> probe 3
//! embassy-sync's critical sections (cortex-m's single-core implementation: PRIMASK) would
//! delay it; idle, none runs. Self-check: the handler ran exactly once per trigger.
#![no_std]

use core::sync::atomic::Ordering;
use embassy_executor::Spawner;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use lab::{check, isr, meta, probe, MetaRec};

meta!(MetaRec::interval(
    "irq_latency_idle",
    2,
    3,
    "timer ISR raises IRQ (idle system) -> first statement of that IRQ's handler"
));

// IRQ_SAMPLES, IRQ_TIMER_PERIOD, the counters TRIGGERED / HANDLED / SKIPPED, LINE and
// timer_handler (probe 2): the C workload's trigger, from the lab crate.
lab::irq_latency_trigger!();

static DONE: Signal<CriticalSectionRawMutex, ()> = Signal::new();

unsafe extern "C" fn measured_handler() {
    probe!(3);
    let h = HANDLED.load(Ordering::Relaxed) + 1;
    HANDLED.store(h, Ordering::Relaxed);
    if h == IRQ_SAMPLES {
        DONE.signal(());
    }
}
isr!(LAB_ISR_MEASURED, measured_handler);

#[embassy_executor::task]
async fn waiter() {
    DONE.wait().await;
    lab::timer_stop();
    check!(HANDLED.load(Ordering::Relaxed) == IRQ_SAMPLES);
    check!(TRIGGERED.load(Ordering::Relaxed) == IRQ_SAMPLES);
    lab::finish();
}

/// The benchmark's entry point (lab/bench.h): runs the thread executor, never returns.
#[no_mangle]
pub extern "C" fn lab_bench_run() {
    LINE.store(lab::irq_soft(0), Ordering::Relaxed);
    lab::irq_install(
        lab::irq_soft(0),
        measured_handler,
        lab::nvic_prio_from_least_urgent(1),
    );
    let most_urgent = lab::nvic_prio_from_least_urgent((1u8 << lab::NVIC_PRIO_BITS) - 1);
    lab::timer_start(IRQ_TIMER_PERIOD, timer_handler, most_urgent);
    lab_embassy::run_thread_executor(|spawner: Spawner| {
        spawner.spawn(lab::ok(waiter()));
    })
}
