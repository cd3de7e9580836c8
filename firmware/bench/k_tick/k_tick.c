/*
 * k_tick: what the kernel's tick interrupt costs.
 *
 * The port calls lab_tick_hook_enter() first and lab_tick_hook_exit() last in its tick
 * handler (LAB_HAS_TICK_HOOKS); this benchmark defines both. Task W (priority 3) sleeps
 * with lab_task_delay_until(&last, 2), so ticks alternate between one that wakes W and one
 * that wakes nobody; only the idle activity runs otherwise. Before W sleeps it publishes
 * the tick it will wake at; the enter hook compares the tick about to begin with it and
 * picks its probe, then the exit hook closes the same pair:
 *
 *   tick_nowake  probe 2 (enter hook, tick that wakes no task)
 *             -> probe 3 (exit hook, same tick)
 *   tick_wake    probe 4 (enter hook, tick that makes W ready)
 *             -> probe 5 (exit hook, same tick): the tick processing with one task to wake
 *                (moved from the delayed list to the ready list, a switch requested)
 *   tick_switch  probe 5 (exit hook of the waking tick)
 *             -> probe 6 (W, first statement after lab_task_delay_until returns): the rest
 *                of the tick handler, the deferred switch (PendSV) and W's return path.
 *
 * Measured between the probes: the enter hook's return, the kernel's tick handler, the
 * call of the exit hook and its test of which probe to hit (about 3 instructions, the same
 * in both metrics). Not measured: the port handler's own entry and exit around the hooks.
 * The ticks wake no task but W: FreeRTOS's tick runs with time slicing on, but no other
 * task shares a priority with the running one (the idle task runs alone at priority 0).
 *
 * TICK_SAMPLES samples of each. Each wake sample takes two ticks; between ticks only the
 * idle task runs, and it sleeps (WFI in the port's idle hook), so under QEMU's
 * `-icount sleep=off` a tick period costs the emulator only the instructions the tick
 * and the wake-up execute (a few hundred), not 1,000,000 instructions of virtual time.
 * Every metric here is an interval of executed code inside one tick's processing: its
 * time base is "modelled" (nothing in it waits for a timer).
 *
 * Self-check: every tick the enter hook labelled "wake" was followed by exactly one wake-up
 * of W (its count matches), W woke at exactly the tick it published, and both kinds of
 * tick were seen.
 */
#include "lab/bench.h"
#include "lab/port.h"

#if !LAB_HAS_SCHEDULER || !LAB_HAS_TICK || !LAB_HAS_TICK_HOOKS || !LAB_HAS_DELAY
#error "k_tick needs LAB_HAS_SCHEDULER, LAB_HAS_TICK, LAB_HAS_TICK_HOOKS and LAB_HAS_DELAY"
#endif

#define TICK_SAMPLES 1000u
#define TICK_PERIOD 2u
#define TICK_STACK_WORDS 256u

LAB_INTERVAL(tick_nowake, 2, 3, "tick interrupt, no task to wake: enter hook -> exit hook");
LAB_INTERVAL(tick_wake, 4, 5, "tick interrupt that wakes a delayed task: enter hook -> exit hook");
LAB_INTERVAL(tick_switch, 5, 6, "exit hook of the waking tick -> first statement of the woken task");

static lab_task_t tick_waiter;
static LAB_STACK_DEFINE(tick_waiter_stack, TICK_STACK_WORDS);

static volatile uint32_t tick_armed;     /* hooks measure only while W runs the rounds */
static volatile lab_tick_t tick_wake_at; /* the tick W wakes at */
static volatile uint32_t tick_current;   /* 1: this tick was labelled "wake" */
static volatile uint32_t tick_wake_ticks;
static volatile uint32_t tick_nowake_ticks;

void lab_tick_hook_enter(void)
{
    if (tick_armed == 0u) {
        tick_current = 2u;
        return;
    }
    if (lab_tick_count() + 1u == tick_wake_at) {
        tick_current = 1u;
        tick_wake_ticks = tick_wake_ticks + 1u;
        LAB_PROBE(4);
    } else {
        tick_current = 0u;
        tick_nowake_ticks = tick_nowake_ticks + 1u;
        LAB_PROBE(2);
    }
}

void lab_tick_hook_exit(void)
{
    if (tick_current == 1u) {
        LAB_PROBE(5);
    } else if (tick_current == 0u) {
        LAB_PROBE(3);
    }
}

static void tick_waiter_task(void *arg)
{
    (void)arg;
    lab_tick_t last = lab_tick_count();
    /* The first tick after arming is a complete one. */
    tick_wake_at = last + TICK_PERIOD;
    lab_task_delay_until(&last, TICK_PERIOD);
    tick_wake_at = last + TICK_PERIOD;
    tick_armed = 1u;
    lab_task_delay_until(&last, TICK_PERIOD);
    for (uint32_t i = 1;; i++) {
        LAB_PROBE(6);
        LAB_CHECK(lab_tick_count() == tick_wake_at && last == tick_wake_at);
        LAB_CHECK(tick_wake_ticks == i);
        if (i == TICK_SAMPLES) {
            tick_armed = 0u;
            break;
        }
        tick_wake_at = last + TICK_PERIOD;
        lab_task_delay_until(&last, TICK_PERIOD);
    }
    LAB_CHECK(tick_nowake_ticks >= TICK_SAMPLES - 1u);
    lab_finish();
}

void lab_bench_run(void)
{
    lab_port_init();
    LAB_CHECK(lab_task_create(&tick_waiter, "waiter", tick_waiter_task, 0, 3u, tick_waiter_stack, TICK_STACK_WORDS) ==
              LAB_OK);
    lab_port_start();
}
