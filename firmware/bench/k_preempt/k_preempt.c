/*
 * k_preempt: preemption by a task made ready by another task (Rhealstone "preemption
 * time", with the wake-up done by the kernel's plainest make-ready call: resume).
 *
 * Task H (priority 3) suspends itself in a loop. Task L (priority 2) resumes it, so H
 * preempts L inside lab_task_resume():
 *
 *   preempt_resume  probe 2 (L, just before lab_task_resume(&H))
 *                -> probe 3 (H, first statement after its lab_task_suspend(NULL) returns)
 *   = resume (H back on the ready list, a switch requested because H is more urgent),
 *     the switch from L to H, and H's return from its suspend call.
 *
 * PREEMPT_ROUNDS samples. Self-check: H counts its wake-ups and records the round number
 * L published before resuming it; when lab_task_resume returns to L, H must have run
 * exactly once more and seen this round, i.e. the preemption really happened inside the
 * resume call.
 */
#include "lab/bench.h"
#include "lab/port.h"

#if !LAB_HAS_SCHEDULER || !LAB_HAS_SUSPEND
#error "k_preempt needs LAB_HAS_SCHEDULER and LAB_HAS_SUSPEND"
#endif

#define PREEMPT_ROUNDS 1000u
#define PREEMPT_STACK_WORDS 256u

LAB_INTERVAL(preempt_resume, 2, 3, "lab_task_resume of a higher-prio suspended task -> its first statement after suspend");

static lab_task_t preempt_high, preempt_low;
static LAB_STACK_DEFINE(preempt_high_stack, PREEMPT_STACK_WORDS);
static LAB_STACK_DEFINE(preempt_low_stack, PREEMPT_STACK_WORDS);

static volatile uint32_t preempt_round; /* written by L before each resume */
static volatile uint32_t preempt_seen;  /* the round H saw when it last woke */
static volatile uint32_t preempt_wakeups;

static void preempt_high_task(void *arg)
{
    (void)arg;
    for (;;) {
        lab_task_suspend(NULL);
        LAB_PROBE(3);
        preempt_seen = preempt_round;
        preempt_wakeups = preempt_wakeups + 1u;
    }
}

static void preempt_low_task(void *arg)
{
    (void)arg;
    for (uint32_t i = 1; i <= PREEMPT_ROUNDS; i++) {
        preempt_round = i;
        LAB_PROBE(2);
        lab_task_resume(&preempt_high);
        LAB_CHECK(preempt_wakeups == i && preempt_seen == i);
    }
    lab_finish();
}

void lab_bench_run(void)
{
    lab_port_init();
    LAB_CHECK(lab_task_create(&preempt_high, "high", preempt_high_task, 0, 3u, preempt_high_stack,
                              PREEMPT_STACK_WORDS) == LAB_OK);
    LAB_CHECK(lab_task_create(&preempt_low, "low", preempt_low_task, 0, 2u, preempt_low_stack,
                              PREEMPT_STACK_WORDS) == LAB_OK);
    lab_port_start();
}
