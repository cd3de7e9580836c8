/*
 * tp_coop: throughput suite, cooperative scheduling (Thread-Metric's cooperative test).
 *
 * COOP_TASKS tasks of one priority (TP_PRIO) take turns: each adds one to its own counter
 * and to the shared total, then calls lab_task_yield(), which hands the processor to the
 * next task of that priority. One operation = one counted turn = one yield and the switch
 * it causes; the per-operation cost is therefore k_yield's yield_switch plus the loop's own
 * instructions (docs/throughput.md shows the arithmetic).
 *
 * Every task first yields once (so all have started and each sits inside lab_task_yield);
 * the first task to return from that warm-up opens the window, so every measured switch
 * returns into a yield, as in k_yield. The loop runs while total < COOP_OPS; the first task
 * to see total == COOP_OPS closes the window: the window holds exactly COOP_OPS turns.
 *
 *   coop_window   probe 2 (first task back from the warm-up yield)
 *              -> probe 3 (first task that sees total == COOP_OPS)
 *   LAB-KV ops    the turns done (COOP_OPS, see the self-check); ticks: tick interrupts inside the window
 *
 * Self-check: the counters sum to COOP_OPS (plus at most one per tick inside the window:
 * a tick's switch between a task's load and store of the shared total loses that update,
 * so another turn is taken; LAB-KV ops is the sum, the turns really done) and differ by
 * at most one (Thread-Metric's rule). With time slicing a tick can switch away from a task between its count and its
 * yield; that task then only yields at its next turn, one round later, which can widen the
 * spread by one; so the spread may exceed 1 by at most one per tick inside the window.
 * The first task out of the loop locks the scheduler and closes the window; a later one
 * (a tick may switch to it while the first reports) only yields.
 */
#include "lab/bench.h"
#include "lab/port.h"
#include "tp.h"

#if !LAB_HAS_SCHEDULER
#error "tp_coop needs LAB_HAS_SCHEDULER"
#endif

#define COOP_TASKS 5u
#define COOP_OPS 5000u

LAB_INTERVAL(coop_window, TP_PROBE_START, TP_PROBE_END, "cooperative scheduling: 5000 count-and-yield turns of 5 equal-prio tasks");

static lab_task_t coop_tasks[COOP_TASKS];
static LAB_STACK_DEFINE(coop_stack0, TP_STACK_WORDS);
static LAB_STACK_DEFINE(coop_stack1, TP_STACK_WORDS);
static LAB_STACK_DEFINE(coop_stack2, TP_STACK_WORDS);
static LAB_STACK_DEFINE(coop_stack3, TP_STACK_WORDS);
static LAB_STACK_DEFINE(coop_stack4, TP_STACK_WORDS);
static lab_stack_t *const coop_stacks[COOP_TASKS] = {coop_stack0, coop_stack1, coop_stack2, coop_stack3,
                                                     coop_stack4};

static volatile uint32_t coop_counter[COOP_TASKS];
static volatile uint32_t coop_total;
static volatile uint32_t coop_opened;
static volatile uint32_t coop_closed;
static volatile uint32_t coop_tick_start;

static void coop_task(void *arg)
{
    const uint32_t me = (uint32_t)(uintptr_t)arg;

    lab_task_yield(); /* warm-up: every task starts and parks inside a yield */
    if (coop_opened == 0u) {
        coop_opened = 1u;
        coop_tick_start = tp_ticks_now();
        LAB_PROBE(TP_PROBE_START);
    }
    while (coop_total < COOP_OPS) {
        coop_counter[me] = coop_counter[me] + 1u;
        coop_total = coop_total + 1u;
        lab_task_yield();
    }
    /* Only the first task out closes the window: the scheduler lock keeps a tick from
     * switching to another task that would also leave the loop (its few cycles fall in
     * the window). */
    lab_sched_lock();
    if (coop_closed != 0u) {
        lab_sched_unlock();
        for (;;) {
            lab_task_yield();
        }
    }
    coop_closed = 1u;
    LAB_PROBE(TP_PROBE_END);
    uint32_t ticks = tp_ticks_now() - coop_tick_start;

    uint32_t sum = 0u, lo = 0xFFFFFFFFu, hi = 0u;
    for (uint32_t i = 0; i < COOP_TASKS; i++) {
        uint32_t c = coop_counter[i];
        sum += c;
        lo = c < lo ? c : lo;
        hi = c > hi ? c : hi;
    }
    /* A tick's switch between a task's load and store of coop_total loses that update
     * (the turn happened: its own counter has it), so the window may hold a few more
     * turns than COOP_OPS: at most one per tick inside it. The turns done are the ops. */
    LAB_CHECK(coop_total == COOP_OPS && sum >= COOP_OPS && sum - COOP_OPS <= ticks);
    LAB_CHECK(hi - lo <= 1u + ticks);
    tp_report(sum, ticks);
    lab_finish();
}

void lab_bench_run(void)
{
    lab_port_init();
    for (uint32_t i = 0; i < COOP_TASKS; i++) {
        LAB_CHECK(lab_task_create(&coop_tasks[i], "coop", coop_task, (void *)(uintptr_t)i, TP_PRIO, coop_stacks[i],
                                  TP_STACK_WORDS) == LAB_OK);
    }
    lab_port_start();
}
