/*
 * k_yield: the task-switch time of a voluntary yield (Rhealstone "task switching time").
 *
 * Two tasks A and B of equal priority (2) take turns: each sets `last_runner` to itself,
 * hits probe 2, calls lab_task_yield(), and hits probe 3 as the first statement after the
 * yield returns. Probe 2 is therefore always followed by the OTHER task's probe 3:
 *
 *   yield_switch  probe 2 (yielding task, just before lab_task_yield)
 *              -> probe 3 (the other task, first statement after its own yield returned)
 *   = the yield call, the kernel's switch (save, pick the next task, restore) and the
 *     other task's return from its yield call.
 *
 * The task that starts second opens the first interval itself, so every sample is a
 * yield-to-yield switch. YIELD_ROUNDS rounds per task give 2 * YIELD_ROUNDS samples.
 *
 * Time slicing: a tick interrupt may switch tasks anywhere in the loop, as on a board
 * (on the one clock the 1 kHz tick fires every clock / 1000 modelled cycles, about every
 * hundred rounds here). A tick between probe 2 and the yield call makes that sample hold
 * the tick; a tick between probe 3 and probe 2 resumes the other task inside its yield,
 * so its probe 3 follows its own probe 2: the metric is therefore a since-pair (each
 * probe 3 from the latest probe 2), and such a sample holds the other task's round and
 * the tick. Either way a tick shows as one long sample (the max), never as a broken pair.
 * The finishing task locks the scheduler before it reports, so no switch follows it.
 *
 * Self-check: after its yield returns a task must see the other task as `last_runner`.
 * Each tick can cause at most two "no switch seen" rounds, so the check allows 2 per tick
 * elapsed and requires all others to switch; the two tasks' rounds differ by at most one
 * plus one per tick.
 */
#include "lab/bench.h"
#include "lab/console.h"
#include "lab/log.h"
#include "lab/port.h"

#if !LAB_HAS_SCHEDULER || !LAB_HAS_TICK
#error "k_yield needs LAB_HAS_SCHEDULER and LAB_HAS_TICK"
#endif

#define YIELD_ROUNDS 1000u
#define YIELD_STACK_WORDS 256u
#define YIELD_PRIO 2u

LAB_SINCE(yield_switch, 2, 3, "lab_task_yield in one task -> first statement after yield in the other, equal prio");

static lab_task_t yield_tasks[2];
static LAB_STACK_DEFINE(yield_stack0, YIELD_STACK_WORDS);
static LAB_STACK_DEFINE(yield_stack1, YIELD_STACK_WORDS);

static volatile uint32_t yield_last_runner;
static volatile uint32_t yield_started;
static volatile uint32_t yield_switches;
static volatile uint32_t yield_not_switched;
static lab_tick_t yield_tick_start;

static void yield_task(void *arg)
{
    const uint32_t me = (uint32_t)(uintptr_t)arg;
    uint32_t rounds = 0;

    if (yield_started++ == 0u) {
        yield_tick_start = lab_tick_count();
        lab_task_yield(); /* let the other task start: it opens the first interval */
    } else {
        yield_last_runner = me;
        LAB_PROBE(2);
        LAB_LOG("yield from task %lu\n", me); /* LAB_LOG_MODE=0: no code */
        lab_task_yield();
    }
    for (;;) {
        LAB_PROBE(3);
        if (yield_last_runner != me) {
            yield_switches = yield_switches + 1u;
        } else {
            yield_not_switched = yield_not_switched + 1u;
        }
        rounds++;
        if (me == 0u && rounds == YIELD_ROUNDS) {
            lab_sched_lock(); /* the report: no tick switches back to the other task */
            lab_tick_t ticks = lab_tick_count() - yield_tick_start;
            LAB_CHECK(yield_not_switched <= 2u * (ticks + 1u));
            /* a tick's switch can hand one task an extra round: one per tick */
            LAB_CHECK(yield_switches + yield_not_switched + ticks >= 2u * YIELD_ROUNDS - 1u);
            lab_console_put_kv("yield_switches", yield_switches);
            lab_finish();
        }
        yield_last_runner = me;
        LAB_PROBE(2);
        LAB_LOG("yield from task %lu\n", me); /* LAB_LOG_MODE=0: no code */
        lab_task_yield();
    }
}

void lab_bench_run(void)
{
    lab_port_init();
    LAB_CHECK(lab_task_create(&yield_tasks[0], "yieldA", yield_task, (void *)0, YIELD_PRIO, yield_stack0,
                              YIELD_STACK_WORDS) == LAB_OK);
    LAB_CHECK(lab_task_create(&yield_tasks[1], "yieldB", yield_task, (void *)1, YIELD_PRIO, yield_stack1,
                              YIELD_STACK_WORDS) == LAB_OK);
    lab_log_start(); /* LAB_LOG_MODE=2: the drain task; otherwise no code */
    lab_port_start();
}
