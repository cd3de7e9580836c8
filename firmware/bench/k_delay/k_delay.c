/*
 * k_delay: how long a delay really lasts while other tasks load the CPU (seed 001's test:
 * tasks delaying 50 ms at 1 kHz, the actual time measured).
 *
 *   delay_50        probe 2 (task D1, priority 4, just before lab_task_delay(50))
 *                -> probe 3 (D1, first statement after it returns): the actual length
 *                   of a 50-tick relative delay, started just after a tick (D1 loops).
 *   delay_until_50  period of probe 4 (task D2, priority 3, first statement after each
 *                   lab_task_delay_until(&last, 50) returns): the actual wake-to-wake
 *                   period of a 50-tick periodic task, which wakes on the same ticks as
 *                   D1 and so also waits for D1 to run first.
 *
 * Converting to an error. The requested time is DELAY_TICKS / lab_tick_rate_hz() seconds
 * (the run prints both as LAB-KV lines delay_ticks and tick_rate_hz). Under QEMU with
 * `-icount shift=0` one guest instruction is exactly 1 ns of virtual time, and every
 * instruction in between counts because the CPU never sleeps here (busy background, no
 * WFI), so: error [insn = ns] = sample - DELAY_TICKS * 1e9 / tick_rate_hz; at 50 ticks
 * and 1 kHz, sample - 50,000,000. The tick is driven by QEMU's virtual time (instructions),
 * not by the timing model, so this metric's `cycle` and `us` columns are the modelled cost
 * of the instructions executed during the delay, not the delay's length: read the error in
 * instructions (docs/timing-model.md, limits).
 *
 * Background load (never measured), below both: a consumer (priority 2) and a producer
 * (priority 1) pass a counter through a queue and an acknowledgement semaphore and each
 * update shared state inside lab_critical_enter / lab_critical_exit, so the tick that
 * ends a delay often arrives while the kernel or a task masks it.
 *
 * DELAY_SAMPLES samples of each, not 1000: each sample is a 50 ms delay, i.e. 50 million
 * instructions, so 100 samples already take about 5e9 instructions (half a minute of
 * emulation); bench.toml raises insn_limit and timeout_s for that.
 *
 * Self-check: each relative delay spans 50 ticks of the tick counter (51 if a tick fell
 * between reading the counter and the call); each periodic wake-up happens at exactly
 * `last` + 50 and at that tick; the background made progress in order.
 */
#include "lab/bench.h"
#include "lab/console.h"
#include "lab/port.h"
#include "lab/target.h"

#include "bg_load.h"

#if !LAB_HAS_SCHEDULER || !LAB_HAS_DELAY || !LAB_HAS_TICK || !LAB_HAS_QUEUE || !LAB_HAS_SEMAPHORE || \
    !LAB_HAS_CRITICAL
#error "k_delay needs a scheduler, delays, the tick, queues, semaphores and critical sections"
#endif

#define DELAY_TICKS 50u
#define DELAY_SAMPLES 100u
#define DELAY_STACK_WORDS 256u

LAB_INTERVAL(delay_50, 2, 3, "lab_task_delay(50) under load: call -> first statement after it returns");
LAB_PERIOD(delay_until_50, 4, "lab_task_delay_until(50) under load: wake-up to wake-up period");

static lab_task_t delay_d1, delay_d2;
static LAB_STACK_DEFINE(delay_d1_stack, DELAY_STACK_WORDS);
static LAB_STACK_DEFINE(delay_d2_stack, DELAY_STACK_WORDS);

static volatile uint32_t delay_d2_wakeups;
static volatile uint32_t delay_d2_late;

static void delay_d2_task(void *arg)
{
    (void)arg;
    lab_tick_t last = lab_tick_count();
    for (;;) {
        lab_tick_t due = last + DELAY_TICKS;
        lab_task_delay_until(&last, DELAY_TICKS);
        LAB_PROBE(4);
        if (last != due || lab_tick_count() != due) {
            delay_d2_late = delay_d2_late + 1u;
        }
        delay_d2_wakeups = delay_d2_wakeups + 1u;
    }
}

static void delay_d1_task(void *arg)
{
    (void)arg;
    uint32_t rounds_at_start = bg_load_rounds();
    for (uint32_t i = 0; i < DELAY_SAMPLES; i++) {
        lab_tick_t before = lab_tick_count();
        LAB_PROBE(2);
        lab_task_delay(DELAY_TICKS);
        LAB_PROBE(3);
        lab_tick_t elapsed = lab_tick_count() - before;
        LAB_CHECK(elapsed == DELAY_TICKS || elapsed == DELAY_TICKS + 1u);
    }
    /* delay_until_50 needs DELAY_SAMPLES + 1 wake-ups of D2 for DELAY_SAMPLES periods. */
    while (delay_d2_wakeups < DELAY_SAMPLES + 1u) {
        lab_task_delay(1);
    }
    LAB_CHECK(delay_d2_late == 0u);
    LAB_CHECK(bg_load_out_of_order() == 0u);
    uint32_t rounds = bg_load_rounds() - rounds_at_start;
    LAB_CHECK(rounds > DELAY_SAMPLES);
    lab_console_put_kv("delay_ticks", DELAY_TICKS);
    lab_console_put_kv("tick_rate_hz", lab_tick_rate_hz());
    lab_console_put_kv("target_clock_hz", lab_target_clock_hz());
    lab_console_put_kv("background_rounds", rounds);
    lab_finish();
}

void lab_bench_run(void)
{
    lab_port_init();
    bg_load_start(1u, 2u); /* producer below consumer, both below D1 and D2 */
    LAB_CHECK(lab_task_create(&delay_d2, "d2", delay_d2_task, 0, 3u, delay_d2_stack, DELAY_STACK_WORDS) == LAB_OK);
    LAB_CHECK(lab_task_create(&delay_d1, "d1", delay_d1_task, 0, 4u, delay_d1_stack, DELAY_STACK_WORDS) == LAB_OK);
    lab_port_start();
}
