/*
 * k_mutex: mutex costs, uncontended and through priority inheritance (Rhealstone
 * "deadlock break time").
 *
 * Task L (priority 1) and task H (priority 3) share mutex `m`; H waits suspended between
 * rounds. A round:
 *
 *   L: probe 2, lab_mutex_lock(&m) (free), probe 3                 -> mutex_lock
 *   L: lab_task_resume(&H): H preempts L
 *   H: probe 6, lab_mutex_lock(&m): L holds it, so H blocks and L inherits priority 3
 *   L: probe 7, first statement after its resume call returns, running boosted
 *                                                                     -> mutex_pi_block
 *   L: checks its priority is 3 (inherited), then probe 8, lab_mutex_unlock(&m): L drops
 *      back to 1 and H, now the holder, preempts it
 *   H: probe 9, first statement after its lab_mutex_lock returns      -> mutex_pi_handoff
 *   H: probe 4, lab_mutex_unlock(&m) (no waiter), probe 5             -> mutex_unlock
 *   H: suspends itself; L continues after its unlock call.
 *
 *   mutex_lock        probe 2 -> 3: lock of a free mutex, no switch
 *   mutex_unlock      probe 4 -> 5: unlock with no waiter and no inherited priority
 *   mutex_pi_block    probe 6 (H's lock attempt) -> probe 7 (L running with H's priority):
 *                     the blocking lock, the inheritance, the switch to the holder
 *   mutex_pi_handoff  probe 8 (L's unlock) -> probe 9 (H running as the new holder): the
 *                     disinheritance, the hand-over and the switch back
 *   (mutex_pi_block + mutex_pi_handoff = the whole deadlock-break path minus the
 *   boosted task's own work between probes 7 and 8, which is its priority check.)
 *
 * MUTEX_ROUNDS samples of each. Self-check: every lock returns LAB_OK; L runs with
 * priority 3 between probes 7 and 8 and with 1 again after its unlock; H holds the mutex
 * when its lock returns (it records the round while holding it) and has run exactly once
 * per round.
 */
#include "lab/bench.h"
#include "lab/port.h"

#if !LAB_HAS_SCHEDULER || !LAB_HAS_SUSPEND || !LAB_HAS_MUTEX || !LAB_HAS_MUTEX_PI
#error "k_mutex needs LAB_HAS_SCHEDULER, LAB_HAS_SUSPEND, LAB_HAS_MUTEX and LAB_HAS_MUTEX_PI"
#endif

#define MUTEX_ROUNDS 1000u
#define MUTEX_STACK_WORDS 256u
#define MUTEX_PRIO_LOW 1u
#define MUTEX_PRIO_HIGH 3u

LAB_INTERVAL(mutex_lock, 2, 3, "lab_mutex_lock of a free mutex: call -> return");
LAB_INTERVAL(mutex_unlock, 4, 5, "lab_mutex_unlock, no waiter, no inherited priority: call -> return");
LAB_INTERVAL(mutex_pi_block, 6, 7, "high task's lock of a held mutex -> holder (low task) running with inherited prio");
LAB_INTERVAL(mutex_pi_handoff, 8, 9, "boosted holder's unlock -> high task running as the new holder");

static lab_task_t mutex_high, mutex_low;
static LAB_STACK_DEFINE(mutex_high_stack, MUTEX_STACK_WORDS);
static LAB_STACK_DEFINE(mutex_low_stack, MUTEX_STACK_WORDS);
static lab_mutex_t mutex_m;

static volatile uint32_t mutex_round;
static volatile uint32_t mutex_seen;
static volatile uint32_t mutex_high_runs;

static void mutex_high_task(void *arg)
{
    (void)arg;
    for (;;) {
        lab_task_suspend(NULL);
        LAB_PROBE(6);
        int rc = lab_mutex_lock(&mutex_m, LAB_WAIT_FOREVER);
        LAB_PROBE(9);
        LAB_CHECK(rc == LAB_OK);
        mutex_seen = mutex_round;
        mutex_high_runs = mutex_high_runs + 1u;
        LAB_PROBE(4);
        rc = lab_mutex_unlock(&mutex_m);
        LAB_PROBE(5);
        LAB_CHECK(rc == LAB_OK);
    }
}

static void mutex_low_task(void *arg)
{
    (void)arg;
    for (uint32_t i = 1; i <= MUTEX_ROUNDS; i++) {
        mutex_round = i;
        LAB_PROBE(2);
        int rc = lab_mutex_lock(&mutex_m, LAB_WAIT_FOREVER);
        LAB_PROBE(3);
        LAB_CHECK(rc == LAB_OK);

        lab_task_resume(&mutex_high);
        LAB_PROBE(7);
        unsigned boosted = lab_task_priority(&mutex_low);
        LAB_PROBE(8);
        rc = lab_mutex_unlock(&mutex_m);
        LAB_CHECK(rc == LAB_OK);
        LAB_CHECK(boosted == MUTEX_PRIO_HIGH);
        LAB_CHECK(lab_task_priority(&mutex_low) == MUTEX_PRIO_LOW);
        LAB_CHECK(mutex_high_runs == i && mutex_seen == i);
    }
    lab_finish();
}

void lab_bench_run(void)
{
    lab_port_init();
    LAB_CHECK(lab_mutex_create(&mutex_m) == LAB_OK);
    LAB_CHECK(lab_task_create(&mutex_high, "high", mutex_high_task, 0, MUTEX_PRIO_HIGH, mutex_high_stack,
                              MUTEX_STACK_WORDS) == LAB_OK);
    LAB_CHECK(lab_task_create(&mutex_low, "low", mutex_low_task, 0, MUTEX_PRIO_LOW, mutex_low_stack,
                              MUTEX_STACK_WORDS) == LAB_OK);
    lab_port_start();
}
