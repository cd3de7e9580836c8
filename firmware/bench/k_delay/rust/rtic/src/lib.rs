//! k_delay, RTIC version: delay accuracy (seed 001's 50 ms test) with RTIC's SysTick
//! monotonic (rtic-monotonics 2, `systick_monotonic!` at 1 kHz: SysTick interrupts every
//! tick, RELOAD = clock / 1000 - 1, core clock: rtic-monotonics systick.rs `_start`), as
//! the C benchmark measures it (../../k_delay.c): probe 5 is in the SysTick handler (CMSIS
//! name SysTick_Handler, which hands on to the monotonic's `SysTick`) on every tick while
//! D1 measures (see SysTick_Handler: real ticks only).
//!   call_phase             since probe 5 -> probe 2 (D1, priority 2, just before
//!                          `delay_until(now + 50 ticks)`)
//!   wake_latency           since probe 5 -> probe 3 (D1's first statement after it)
//!   periodic_wake_latency  since probe 5 -> probe 4 (D2, priority 1, periodic 50 ticks,
//!                          waking on the same ticks as D1, so after it)
//! `delay_until(now + 50)` wakes at the tick that makes the count now + 50: the 50th tick
//! interrupt after the call, as lab_task_delay(50) (RTIC's `delay(50)` would add one tick to
//! guarantee at least 50 full periods).
//!   delay_50               probe 2 -> probe 3: the delay itself, measured across real
//!                          ticks on the one clock (docs/timing-model.md, "One clock").
//! Self-check: each delay spans 50 ticks (or 51 if a tick fell between reading the count
//! and the call); D2 wakes exactly on its due ticks and at least DELAY_SAMPLES times.
#![no_std]

use core::sync::atomic::{AtomicU32, Ordering};
use lab::{check, meta, probe, MetaRec};
use rtic_monotonics::systick::prelude::*;

const DELAY_TICKS: u32 = 50;
const DELAY_SAMPLES: u32 = 200;
const TICK_HZ: u32 = 1000;

systick_monotonic!(Mono, 1_000);

meta!(
    MetaRec::interval("delay_50", 2, 3, "delay_until(now + 50) called -> first statement after it returns: the delay as the task sees it"),
    MetaRec::since("call_phase", 5, 2, "tick handler -> delay_until(now + 50) call: where in its tick period the delay starts"),
    MetaRec::since("wake_latency", 5, 3, "expiring tick's handler -> first statement after delay_until(now + 50) returns"),
    MetaRec::since("periodic_wake_latency", 5, 4, "expiring tick's handler -> first statement after periodic delay_until, 2nd task"),
);

static ARMED: AtomicU32 = AtomicU32::new(0);
static D2_WAKEUPS: AtomicU32 = AtomicU32::new(0);
static D2_LATE: AtomicU32 = AtomicU32::new(0);

/// The tick count when probe 5 last hit: the handler also runs when RTIC's timer queue
/// pends SysTick from software (a new earliest deadline, rtic-time timer_queue.rs), which is
/// not a tick.
static LAST_TICK: AtomicU32 = AtomicU32::new(u32::MAX);

/// The target's vector table calls the CMSIS name; the monotonic defines `SysTick`.
/// Probe 5 hits on real ticks only: `Mono::now()` first (it counts a pending wrap itself,
/// as SysTick() would, so nothing is counted twice), then the probe if the count moved.
/// Those instructions precede the probe, so, like the C ports' handler prologue before the
/// tick hook, they are outside every metric.
///
/// # Safety
/// Only the exception entry calls it (the vector table), never Rust code.
#[no_mangle]
pub unsafe extern "C" fn SysTick_Handler() {
    let now = Mono::now().ticks();
    if ARMED.load(Ordering::Relaxed) != 0 && lab::swap(&LAST_TICK, now) != now {
        probe!(5);
    }
    extern "C" {
        fn SysTick();
    }
    // SAFETY: the monotonic's interrupt handler, called from the SysTick exception.
    unsafe { SysTick() }
}

#[rtic::app(device = lab_rtic_device, peripherals = false, dispatchers = [FREE3, FREE2])]
mod app {
    use super::*;

    #[shared]
    struct Shared {}

    #[local]
    struct Local {}

    #[init]
    fn init(cx: init::Context) -> (Shared, Local) {
        crate::handlers::install();
        Mono::start(cx.core.SYST, lab::CLOCK_HZ);
        d2::spawn().ok();
        d1::spawn().ok();
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

    #[task(priority = 2)]
    async fn d1(_cx: d1::Context) {
        ARMED.store(1, Ordering::Relaxed);
        Mono::delay_until(Mono::now() + 1.millis()).await; // from here on, calls are made in a wake-up's tick
        let d2_at_start = D2_WAKEUPS.load(Ordering::Relaxed);
        for _ in 0..DELAY_SAMPLES {
            let before = Mono::now();
            probe!(2);
            Mono::delay_until(Mono::now() + DELAY_TICKS.millis()).await;
            probe!(3);
            let elapsed = (Mono::now() - before).ticks();
            check!(elapsed == DELAY_TICKS || elapsed == DELAY_TICKS + 1);
        }
        // D2 wakes on the tick of D1's last wake-up, after D1: let it take its last sample.
        Mono::delay_until(Mono::now() + 1.millis()).await;
        ARMED.store(0, Ordering::Relaxed);
        check!(D2_LATE.load(Ordering::Relaxed) == 0);
        check!(D2_WAKEUPS.load(Ordering::Relaxed) - d2_at_start >= DELAY_SAMPLES);
        lab::put_kv("delay_ticks\0", DELAY_TICKS);
        lab::put_kv("tick_rate_hz\0", TICK_HZ);
        lab::put_kv("target_clock_hz\0", lab::CLOCK_HZ);
        lab::put_kv("tick_cycles\0", lab::CLOCK_HZ / TICK_HZ);
        lab::finish();
    }

    #[task(priority = 1)]
    async fn d2(_cx: d2::Context) {
        Mono::delay_until(Mono::now() + 1.millis()).await; // the same tick as D1
        let mut last = Mono::now();
        loop {
            last += DELAY_TICKS.millis();
            Mono::delay_until(last).await;
            if ARMED.load(Ordering::Relaxed) != 0 {
                probe!(4);
            }
            if Mono::now() != last {
                lab::fetch_add(&D2_LATE, 1);
            }
            lab::fetch_add(&D2_WAKEUPS, 1);
        }
    }
}

// RTIC's handlers of the lines above (installed by handlers::install() in init, listed for
// the timing model) and the entry point lab_bench_run: lab-rtic-device's bench_glue!.
lab_rtic_device::bench_glue!(FREE3 => 1, FREE2 => 2);
