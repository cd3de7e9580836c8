/*
 * k_sem: semaphore operations, with and without a task switch.
 *
 * Task L (priority 2) runs the rounds; task H (priority 3) waits on binary semaphore
 * `wake` forever in a loop. Semaphore `count` is a counting semaphore (max 4) no task
 * ever waits on.
 *
 *   sem_give       probe 2 (L, before lab_sem_give(&count), nobody waiting, count 0 -> 1)
 *               -> probe 3 (L, after it returns)
 *   sem_take       probe 4 (L, before lab_sem_take(&count, LAB_NO_WAIT), count 1 -> 0)
 *               -> probe 5 (L, after it returns)
 *   sem_shuffle    probe 6 (L, before lab_sem_give(&wake) while H is blocked on it)
 *               -> probe 7 (H, first statement after its lab_sem_take returns)
 *                  = the give that readies H, the switch, and H's return from its take.
 *
 * SEM_ROUNDS samples of each. Self-check: the give and the take return LAB_OK; H records
 * the round L published before giving; when the give returns to L, H must have run
 * exactly once and seen this round (so the switch happened inside the give), and a
 * LAB_NO_WAIT take of the (now empty) `count` semaphore must time out.
 */
#include "lab/bench.h"
#include "lab/port.h"

#if !LAB_HAS_SCHEDULER || !LAB_HAS_SEMAPHORE
#error "k_sem needs LAB_HAS_SCHEDULER and LAB_HAS_SEMAPHORE"
#endif

#define SEM_ROUNDS 1000u
#define SEM_STACK_WORDS 256u

LAB_INTERVAL(sem_give, 2, 3, "lab_sem_give with no waiter (no switch): call -> return");
LAB_INTERVAL(sem_take, 4, 5, "lab_sem_take of an available count (no block): call -> return");
LAB_INTERVAL(sem_shuffle, 6, 7, "lab_sem_give to a blocked higher-prio task -> its first statement after take");

static lab_task_t sem_high, sem_low;
static LAB_STACK_DEFINE(sem_high_stack, SEM_STACK_WORDS);
static LAB_STACK_DEFINE(sem_low_stack, SEM_STACK_WORDS);
static lab_sem_t sem_count, sem_wake;

static volatile uint32_t sem_round;
static volatile uint32_t sem_seen;
static volatile uint32_t sem_wakeups;

static void sem_high_task(void *arg)
{
    (void)arg;
    for (;;) {
        int rc = lab_sem_take(&sem_wake, LAB_WAIT_FOREVER);
        LAB_PROBE(7);
        LAB_CHECK(rc == LAB_OK);
        sem_seen = sem_round;
        sem_wakeups = sem_wakeups + 1u;
    }
}

static void sem_low_task(void *arg)
{
    (void)arg;
    for (uint32_t i = 1; i <= SEM_ROUNDS; i++) {
        LAB_PROBE(2);
        int rc = lab_sem_give(&sem_count);
        LAB_PROBE(3);
        LAB_CHECK(rc == LAB_OK);

        LAB_PROBE(4);
        rc = lab_sem_take(&sem_count, LAB_NO_WAIT);
        LAB_PROBE(5);
        LAB_CHECK(rc == LAB_OK);
        LAB_CHECK(lab_sem_take(&sem_count, LAB_NO_WAIT) == LAB_ERR_TIMEOUT);

        sem_round = i;
        LAB_PROBE(6);
        rc = lab_sem_give(&sem_wake);
        LAB_CHECK(rc == LAB_OK);
        LAB_CHECK(sem_wakeups == i && sem_seen == i);
    }
    lab_finish();
}

void lab_bench_run(void)
{
    lab_port_init();
    LAB_CHECK(lab_sem_create(&sem_count, 0u, 4u) == LAB_OK);
    LAB_CHECK(lab_sem_create(&sem_wake, 0u, 1u) == LAB_OK);
    LAB_CHECK(lab_task_create(&sem_high, "high", sem_high_task, 0, 3u, sem_high_stack, SEM_STACK_WORDS) == LAB_OK);
    LAB_CHECK(lab_task_create(&sem_low, "low", sem_low_task, 0, 2u, sem_low_stack, SEM_STACK_WORDS) == LAB_OK);
    lab_port_start();
}
