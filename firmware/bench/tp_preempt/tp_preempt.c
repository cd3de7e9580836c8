/*
 * tp_preempt: throughput suite, preemptive scheduling (Thread-Metric's preemptive test).
 *
 * PRE_TASKS tasks of priorities 1 .. PRE_TASKS (one each). Tasks 1 .. PRE_TASKS-1 wait
 * suspended. Task 0 (least urgent) resumes task 1, which runs at once (preemption) and
 * resumes task 2, and so on up to the most urgent task, which counts and suspends itself;
 * then task PRE_TASKS-2 returns from its resume call, counts and suspends itself, and so on
 * back down to task 0, which returns from its resume call and counts. One cycle = PRE_TASKS
 * counts, PRE_TASKS-1 resumes (each a preemption) and PRE_TASKS-1 suspends (each a switch).
 * One operation = one count, as in the published figure (the sum of all tasks' counters):
 * PRE_TASKS operations per cycle.
 *
 *   preempt_window  probe 2 (task 0, before the first cycle)
 *                -> probe 3 (task 0, after cycle PRE_CYCLES)
 *   LAB-KV ops      PRE_TASKS * PRE_CYCLES; ticks: tick interrupts inside the window
 *
 * The tasks other than 0 start by suspending themselves, so every measured resume wakes a
 * task from inside lab_task_suspend. Self-check: after each cycle task 0 sees the most
 * urgent task's counter equal to the cycle number (the whole chain ran before the resume
 * returned; one compare per cycle inside the window), and at the end every counter equals
 * PRE_CYCLES.
 */
#include "lab/bench.h"
#include "lab/port.h"
#include "tp.h"

#if !LAB_HAS_SCHEDULER || !LAB_HAS_SUSPEND
#error "tp_preempt needs LAB_HAS_SCHEDULER and LAB_HAS_SUSPEND"
#endif

#define PRE_TASKS 5u
#define PRE_CYCLES 500u

_Static_assert(LAB_PORT_PRIO_MAX >= PRE_TASKS, "tp_preempt needs five task priorities (Thread-Metric's chain)");

LAB_INTERVAL(preempt_window, TP_PROBE_START, TP_PROBE_END, "preemptive scheduling: 500 resume chains through 5 priorities, 5 counts each");

static lab_task_t pre_tasks[PRE_TASKS];
static LAB_STACK_DEFINE(pre_stack0, TP_STACK_WORDS);
static LAB_STACK_DEFINE(pre_stack1, TP_STACK_WORDS);
static LAB_STACK_DEFINE(pre_stack2, TP_STACK_WORDS);
static LAB_STACK_DEFINE(pre_stack3, TP_STACK_WORDS);
static LAB_STACK_DEFINE(pre_stack4, TP_STACK_WORDS);
static lab_stack_t *const pre_stacks[PRE_TASKS] = {pre_stack0, pre_stack1, pre_stack2, pre_stack3, pre_stack4};

static volatile uint32_t pre_counter[PRE_TASKS];
static volatile uint32_t pre_bad_cycles;

static void pre_chain_task(void *arg)
{
    const uint32_t me = (uint32_t)(uintptr_t)arg;
    for (;;) {
        lab_task_suspend(NULL);
        if (me + 1u < PRE_TASKS) {
            lab_task_resume(&pre_tasks[me + 1u]);
        }
        pre_counter[me] = pre_counter[me] + 1u;
    }
}

static void pre_base_task(void *arg)
{
    (void)arg;
    uint32_t t0 = tp_ticks_now();
    LAB_PROBE(TP_PROBE_START);
    for (uint32_t cycle = 1; cycle <= PRE_CYCLES; cycle++) {
        lab_task_resume(&pre_tasks[1]);
        pre_counter[0] = pre_counter[0] + 1u;
        if (pre_counter[PRE_TASKS - 1u] != cycle) {
            pre_bad_cycles = pre_bad_cycles + 1u;
        }
    }
    LAB_PROBE(TP_PROBE_END);
    uint32_t ticks = tp_ticks_now() - t0;

    LAB_CHECK(pre_bad_cycles == 0u);
    for (uint32_t i = 0; i < PRE_TASKS; i++) {
        LAB_CHECK(pre_counter[i] == PRE_CYCLES);
    }
    tp_report(PRE_TASKS * PRE_CYCLES, ticks);
    lab_finish();
}

void lab_bench_run(void)
{
    lab_port_init();
    LAB_CHECK(lab_task_create(&pre_tasks[0], "pre0", pre_base_task, 0, 1u, pre_stacks[0], TP_STACK_WORDS) ==
              LAB_OK);
    for (uint32_t i = 1; i < PRE_TASKS; i++) {
        LAB_CHECK(lab_task_create(&pre_tasks[i], "pre", pre_chain_task, (void *)(uintptr_t)i, 1u + i, pre_stacks[i],
                                  TP_STACK_WORDS) == LAB_OK);
    }
    lab_port_start();
}
