//! k_delay_tasks, RTIC version: seed 001's delay experiment as the C benchmark measures it
//! (../../k_delay_tasks.c): five tasks Task1..Task5 of descending priority, each looping
//! `delay_until(now + 50 ms)` then a short body (the board's output register written 8
//! times, high first, low last), all waking on the same tick of RTIC's SysTick monotonic
//! (rtic-monotonics 2, `systick_monotonic!` at 1 kHz, RELOAD = clock / 1000 - 1).
//!
//! Priorities. RTIC runs each priority level of async software tasks from its own
//! dispatcher interrupt, and the target has four free lines (lab_target_irq_soft 0..3,
//! FREE0..FREE3), so Task1..Task4 are RTIC priorities 4..1 and Task5 is priority 0: RTIC
//! 2's thread-mode executor, which RTIC allows only without an `#[idle]` and which polls
//! in a loop (rtic-macros 2.4 async_dispatchers.rs: no WFI). So in this image the core
//! never sleeps: between ticks it spins in that loop, and each tick is taken from it
//! (where the C ports' idle task and the other RTIC benchmarks sleep in WFI).
//!
//! Per task k, the C benchmark's metrics, probe ids and loop (every round runs the same
//! code; Task5's body ends the run; the start-up wake-up hits the call probe in place of
//! the wake-up probe, so it makes no sample):
//!   taskK_delay  since probe 2k+1 (just before `delay_until(now + 50)`) -> probe 2k+2
//!                (first statement after it returns)
//!   taskK_wake   since probe 2 (the SysTick handler, real ticks only, as k_delay's RTIC
//!                version) -> probe 2k+2
//! `delay_until(now + 50)` wakes at the tick that makes the count now + 50, the 50th tick
//! interrupt after the call, as lab_task_delay(50) (`delay(50)` would add one tick).
//!
//! LAB_LOG_MODE (the C benchmarks' log line, lab/log.h) has no Rust version: with a
//! value other than 0 the image ends as unsupported (n/a), so no log-mode result of RTIC
//! is the unlogged one under another name.
//!
//! Self-checks, as in C: each delay spans 50 ticks (51 if a tick fell between reading the
//! count and the call); in every round the tasks wake in priority order, once each; the
//! output register reads low after each body; every task took all its samples.
#![no_std]

use core::sync::atomic::{AtomicU32, Ordering};
use lab::{check, meta, probe, MetaRec};
use rtic_monotonics::systick::prelude::*;

const TASKS: usize = 5;
const DELAY_MS: u32 = 50;
const TICK_HZ: u32 = 1000;
const DELAY_TICKS: u32 = DELAY_MS * TICK_HZ / 1000;
const _: () = assert!(
    (DELAY_MS * TICK_HZ).is_multiple_of(1000),
    "50 ms must be a whole number of ticks"
);
const SAMPLES: u32 = 100;
const BODY_WRITES: u32 = 8;
const LOG_MODE: u32 = lab::define_u32!(LAB_LOG_MODE, 0);

systick_monotonic!(Mono, 1_000);

meta!(
    MetaRec::since(
        "task1_delay",
        3,
        4,
        "Task1 (prio 4): delay_until(now + 50 ms) called -> first statement after it returns"
    ),
    MetaRec::since(
        "task2_delay",
        5,
        6,
        "Task2 (prio 3): delay_until(now + 50 ms) called -> first statement after it returns"
    ),
    MetaRec::since(
        "task3_delay",
        7,
        8,
        "Task3 (prio 2): delay_until(now + 50 ms) called -> first statement after it returns"
    ),
    MetaRec::since(
        "task4_delay",
        9,
        10,
        "Task4 (prio 1): delay_until(now + 50 ms) called -> first statement after it returns"
    ),
    MetaRec::since(
        "task5_delay",
        11,
        12,
        "Task5 (prio 0): delay_until(now + 50 ms) called -> first statement after it returns"
    ),
    MetaRec::since(
        "task1_wake",
        2,
        4,
        "expiring tick's handler -> Task1's first statement after its delay returns"
    ),
    MetaRec::since(
        "task2_wake",
        2,
        6,
        "expiring tick's handler -> Task2's first statement after its delay returns"
    ),
    MetaRec::since(
        "task3_wake",
        2,
        8,
        "expiring tick's handler -> Task3's first statement after its delay returns"
    ),
    MetaRec::since(
        "task4_wake",
        2,
        10,
        "expiring tick's handler -> Task4's first statement after its delay returns"
    ),
    MetaRec::since(
        "task5_wake",
        2,
        12,
        "expiring tick's handler -> Task5's first statement after its delay returns"
    ),
);

static LATE: AtomicU32 = AtomicU32::new(0);
/// Bodies run, per task (round 0: the start-up wake-up).
static ROUNDS: [AtomicU32; TASKS] = [const { AtomicU32::new(0) }; TASKS];
/// The tick count read before each delay call, per task; it starts one delay before the
/// start-up tick, so the start-up body takes the same branches as every other.
static BEFORE: [AtomicU32; TASKS] =
    [const { AtomicU32::new(1u32.wrapping_sub(DELAY_TICKS)) }; TASKS];

/// The tick count when probe 2 last hit: the handler also runs when RTIC's timer queue
/// pends SysTick from software (a new earliest deadline), which is not a tick.
static LAST_TICK: AtomicU32 = AtomicU32::new(u32::MAX);

extern "C" {
    /// lab/target.h: the board's output register (the "pin").
    fn lab_target_output_reg() -> *mut u32;
}

/// The target's vector table calls the CMSIS name; the monotonic defines `SysTick`.
/// Probe 2 hits on real ticks only (k_delay's RTIC version explains the test).
///
/// # Safety
/// Only the exception entry calls it (the vector table), never Rust code.
#[no_mangle]
pub unsafe extern "C" fn SysTick_Handler() {
    let now = Mono::now().ticks();
    if lab::swap(&LAST_TICK, now) != now {
        probe!(2);
    }
    extern "C" {
        fn SysTick();
    }
    // SAFETY: the monotonic's interrupt handler, called from the SysTick exception.
    unsafe { SysTick() }
}

/// Ends the run (Task5, in the body of its last measured wake-up).
#[inline(never)]
fn finish() -> ! {
    for r in ROUNDS.iter() {
        check!(r.load(Ordering::Relaxed) == SAMPLES + 1);
    }
    lab::put_kv("delay_ms\0", DELAY_MS);
    lab::put_kv("delay_ticks\0", DELAY_TICKS);
    lab::put_kv("tick_rate_hz\0", TICK_HZ);
    lab::put_kv("target_clock_hz\0", lab::CLOCK_HZ);
    lab::put_kv("tick_cycles\0", lab::CLOCK_HZ / TICK_HZ);
    lab::put_kv("late_delays\0", LATE.load(Ordering::Relaxed));
    lab::finish();
}

/// What task `k` (0..4) does after a wake-up: checks and the body; the same code after
/// the start-up wake-up (round 0) as after every measured one.
#[inline(never)]
fn body(k: usize) {
    let elapsed = Mono::now()
        .ticks()
        .wrapping_sub(BEFORE[k].load(Ordering::Relaxed));
    if elapsed != DELAY_TICKS {
        check!(elapsed == DELAY_TICKS + 1);
        lab::fetch_add(&LATE, 1);
    }
    // Task1 after Task5's previous round, TaskK after Task(K-1)'s body of this round.
    let above = if k == 0 {
        ROUNDS[TASKS - 1].load(Ordering::Relaxed)
    } else {
        ROUNDS[k - 1].load(Ordering::Relaxed).wrapping_sub(1)
    };
    check!(ROUNDS[k].load(Ordering::Relaxed) == above);
    let rounds = lab::fetch_add(&ROUNDS[k], 1) + 1;
    // SAFETY: the board's output register, which nothing else uses; volatile stores.
    let out = unsafe { lab_target_output_reg() };
    for w in 0..BODY_WRITES {
        // SAFETY: as above.
        unsafe { out.write_volatile((w & 1) ^ 1) }; // high first, low last
    }
    // SAFETY: as above.
    check!(unsafe { out.read_volatile() } & 1 == 0);
    if k == TASKS - 1 && rounds == SAMPLES + 1 {
        finish(); // Task5's last measured wake-up: every task has taken its samples
    }
}

/// One task; probe ids must be constants, so each task expands its own. The loop never
/// ends (Task5's body ends the run), so every round runs the same code; the start-up
/// wake-up hits the call probe in place of the wake-up probe (same instructions, no
/// sample: taskK_delay is a since-metric and the round's own call probe follows).
macro_rules! task_loop {
    ($k:expr, $call:expr, $woke:expr) => {{
        Mono::delay_until(Mono::now() + 1.millis()).await; // start-up: all five on one tick
        probe!($call);
        loop {
            body($k);
            let now = Mono::now();
            BEFORE[$k].store(now.ticks(), Ordering::Relaxed);
            probe!($call);
            Mono::delay_until(now + DELAY_TICKS.millis()).await;
            probe!($woke);
        }
    }};
}

#[rtic::app(device = lab_rtic_device, peripherals = false, dispatchers = [FREE3, FREE2, FREE1, FREE0])]
mod app {
    use super::*;

    #[shared]
    struct Shared {}

    #[local]
    struct Local {}

    #[init]
    fn init(cx: init::Context) -> (Shared, Local) {
        if LOG_MODE != 0 {
            lab::fail_status(
                lab::EXIT_UNSUPPORTED,
                "LAB_LOG_MODE: lab/log.h's log line has no Rust version (the C benchmark's only)\0",
            );
        }
        crate::handlers::install();
        Mono::start(cx.core.SYST, lab::CLOCK_HZ);
        task5::spawn().ok();
        task4::spawn().ok();
        task3::spawn().ok();
        task2::spawn().ok();
        task1::spawn().ok();
        (Shared {}, Local {})
    }

    // No #[idle]: RTIC allows priority-0 tasks only without one; its thread-mode executor
    // (a polling loop) is what runs when nothing else does.

    #[task(priority = 4)]
    async fn task1(_cx: task1::Context) {
        task_loop!(0, 3, 4)
    }

    #[task(priority = 3)]
    async fn task2(_cx: task2::Context) {
        task_loop!(1, 5, 6)
    }

    #[task(priority = 2)]
    async fn task3(_cx: task3::Context) {
        task_loop!(2, 7, 8)
    }

    #[task(priority = 1)]
    async fn task4(_cx: task4::Context) {
        task_loop!(3, 9, 10)
    }

    #[task(priority = 0)]
    async fn task5(_cx: task5::Context) {
        task_loop!(4, 11, 12)
    }
}

// RTIC's handlers of the dispatcher lines (installed by handlers::install() in init,
// listed for the timing model; the highest priority takes the last line of the list) and
// the entry point lab_bench_run: lab-rtic-device's bench_glue!.
lab_rtic_device::bench_glue!(FREE3 => 1, FREE2 => 2, FREE1 => 3, FREE0 => 4);
