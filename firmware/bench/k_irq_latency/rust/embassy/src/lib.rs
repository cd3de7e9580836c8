//! k_irq_latency, embassy version: interrupt latency while embassy idles (its thread
//! executor waits in WFE with its only task awaiting a Signal). As the C benchmark: the
//! target's benchmark timer, at the most urgent priority, hits probe 2 and raises a free
//! line (lab_target_irq_soft(0)) at NVIC level 1; that line's handler, a plain interrupt
//! handler as embassy programs have (embassy does not wrap interrupts), hits probe 3 first:
//!   irq_latency_idle  probe 2 -> probe 3
//! embassy-sync's critical sections (cortex-m's single-core implementation: PRIMASK) would
//! delay it; idle, none runs. Self-check: the handler ran exactly once per trigger.
#![no_std]

use core::sync::atomic::{AtomicU32, Ordering};
use embassy_executor::Spawner;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use lab::{check, isr, meta, probe, MetaRec};

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
    lab::irq_install(lab::irq_soft(0), measured_handler, lab::nvic_prio_from_least_urgent(1));
    let most_urgent = lab::nvic_prio_from_least_urgent((1u8 << lab::NVIC_PRIO_BITS) - 1);
    lab::timer_start(IRQ_TIMER_PERIOD, timer_handler, most_urgent);
    lab_embassy::run_thread_executor(|spawner: Spawner| {
        spawner.spawn(lab::ok(waiter()));
    })
}
