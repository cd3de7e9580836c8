/*
 * k_delay: how long a delay really lasts (seed 001's test: tasks of different priorities
 * each delaying 50 ms at a 1 kHz tick, the actual time measured from the call to the task
 * running again).
 *
 * On the one clock (docs/timing-model.md, "One clock") the tick fires at modelled cycles,
 * as SysTick does on a board, and the idle task's sleeps (WFI) count as the time they
 * last, so the delay is measured directly as a probe interval:
 *
 *   delay_50               probe 2 (D1, priority 4, just before lab_task_delay(50)) ->
 *                          probe 3 (D1, first statement after it returns): the delay as
 *                          the task sees it, tick quantisation and wake-up path included.
 *
 * and its parts, measured from the tick (probe 5 is the tick hook's first statement,
 * lab_tick_hook_enter, on every tick):
 *
 *   call_phase             since probe 5 -> probe 2: how far into its tick period the
 *                          delay starts (a relative delay of N ticks ends at the Nth tick
 *                          interrupt after the call, so it lasts N x tick period -
 *                          call_phase before the wake-up).
 *   wake_latency           since probe 5 -> probe 3: from the expiring tick's handler to
 *                          the woken task.
 *   periodic_wake_latency  since probe 5 -> probe 4 (D2, priority 3, first statement after
 *                          each lab_task_delay_until(&last, 50)): the same for a periodic
 *                          task that wakes on the same tick as D1 and so runs after it
 *                          (seed 001's lower-priority tasks read later: 50.05 ms for the
 *                          first, 50.20 ms for the fifth). Its spread is D2's jitter.
 *
 * So delay_50 = DELAY_TICKS x tick period - call_phase + wake_latency holds sample by
 * sample (the e2e test checks it), with the tick period the kernel programs:
 * FreeRTOS V11.2.0 portable/GCC/ARM_CM3/port.c, vPortSetupTimerInterrupt, loads SysTick
 * RELOAD with configSYSTICK_CLOCK_HZ / configTICK_RATE_HZ - 1, and SysTick wraps every
 * RELOAD + 1 clocks (ARMv7-M ARM B3.3): clock / rate core cycles (printed as LAB-KV
 * tick_cycles). On QEMU's instruction clock (--timing time=instruction) the tick fires
 * every clock / rate instructions instead and sleeps add nothing to the cycle count, so
 * there delay_50 is not the board's delay (bench.toml `paced`).
 *
 * Not included in the parts: the exception entry before the handler's first statement
 * (12 cycles on the M3 model) and the port handler's own prologue before the enter hook;
 * both shift call_phase and wake_latency by the same constant and cancel in delay_50.
 * Not loaded: the tasks here sleep between ticks; a CPU-bound background that a
 * critical section makes the tick wait for is k_irq_latency_loaded's subject.
 *
 * Self-check: each relative delay spans exactly DELAY_TICKS ticks of the tick counter (or
 * one more if a tick fell between reading the counter and the call); each periodic
 * wake-up happens at exactly `last` + DELAY_TICKS and at that tick; D2 woke enough times.
 */
#include "lab/bench.h"
#include "lab/console.h"
#include "lab/log.h"
#include "lab/port.h"
#include "lab/target.h"

#if !LAB_HAS_SCHEDULER || !LAB_HAS_DELAY || !LAB_HAS_TICK || !LAB_HAS_TICK_HOOKS
#error "k_delay needs a scheduler, delays, the tick and tick hooks"
#endif

#define DELAY_TICKS 50u
#define DELAY_SAMPLES 200u
#define DELAY_STACK_WORDS 256u

LAB_INTERVAL(delay_50, 2, 3, "lab_task_delay(50) called -> first statement after it returns: the delay as the task sees it");
LAB_SINCE(call_phase, 5, 2, "tick handler -> lab_task_delay(50) call: where in its tick period the delay starts");
LAB_SINCE(wake_latency, 5, 3, "expiring tick's handler -> first statement after lab_task_delay(50) returns");
LAB_SINCE(periodic_wake_latency, 5, 4, "expiring tick's handler -> first statement after lab_task_delay_until(50), 2nd task");

static lab_task_t delay_d1, delay_d2;
static LAB_STACK_DEFINE(delay_d1_stack, DELAY_STACK_WORDS);
static LAB_STACK_DEFINE(delay_d2_stack, DELAY_STACK_WORDS);

static volatile uint32_t delay_armed; /* the tick hook probes only while D1 measures */
static volatile uint32_t delay_d2_wakeups;
static volatile uint32_t delay_d2_late;

void lab_tick_hook_enter(void)
{
    if (delay_armed != 0u) {
        LAB_PROBE(5);
    }
}

void lab_tick_hook_exit(void) {}

static void delay_d2_task(void *arg)
{
    (void)arg;
    lab_task_delay(1u); /* start on the same tick as D1: both wake on the same ticks */
    lab_tick_t last = lab_tick_count();
    for (;;) {
        lab_tick_t due = last + DELAY_TICKS;
        lab_task_delay_until(&last, DELAY_TICKS);
        if (delay_armed != 0u) {
            LAB_PROBE(4);
        }
        if (last != due || lab_tick_count() != due) {
            delay_d2_late = delay_d2_late + 1u;
        }
        delay_d2_wakeups = delay_d2_wakeups + 1u;
    }
}

static void delay_d1_task(void *arg)
{
    (void)arg;
    delay_armed = 1u;
    lab_task_delay(1u); /* from here on every call is made in the tick period of a wake-up */
    uint32_t d2_at_start = delay_d2_wakeups;
    for (uint32_t i = 0; i < DELAY_SAMPLES; i++) {
        lab_tick_t before = lab_tick_count();
        LAB_PROBE(2);
        lab_task_delay(DELAY_TICKS);
        LAB_PROBE(3);
        LAB_LOG("d1 woke, sample %lu\n", i); /* LAB_LOG_MODE=0: no code */
        lab_tick_t elapsed = lab_tick_count() - before;
        LAB_CHECK(elapsed == DELAY_TICKS || elapsed == DELAY_TICKS + 1u);
    }
    /* D2 wakes on the tick of D1's last wake-up, after D1: let it take its last sample. */
    lab_task_delay(1u);
    delay_armed = 0u;
    LAB_CHECK(delay_d2_late == 0u);
    LAB_CHECK(delay_d2_wakeups - d2_at_start >= DELAY_SAMPLES);
    lab_console_put_kv("delay_ticks", DELAY_TICKS);
    lab_console_put_kv("tick_rate_hz", lab_tick_rate_hz());
    lab_console_put_kv("target_clock_hz", lab_target_clock_hz());
    lab_console_put_kv("tick_cycles", lab_target_clock_hz() / lab_tick_rate_hz());
    lab_finish();
}

void lab_bench_run(void)
{
    lab_port_init();
    LAB_CHECK(lab_task_create(&delay_d2, "d2", delay_d2_task, 0, 3u, delay_d2_stack, DELAY_STACK_WORDS) == LAB_OK);
    LAB_CHECK(lab_task_create(&delay_d1, "d1", delay_d1_task, 0, 4u, delay_d1_stack, DELAY_STACK_WORDS) == LAB_OK);
    lab_log_start(); /* LAB_LOG_MODE=2: the drain task; otherwise no code */
    lab_port_start();
}
