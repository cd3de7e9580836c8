/*
 * k_sem_x: a semaphore give on core 0 waking a task blocked on core 1 (the cross-core
 * counterpart of k_sem's sem_shuffle, which on an SMP kernel measures the same-core case:
 * lab_task_create pins a task to the caller's core).
 *
 * Task L (core 0, priority 2) runs the rounds; task H (core 1, priority 3) waits on the
 * binary semaphore `wake` forever in a loop.
 *
 *   sem_shuffle_x  probe 6 (L, before lab_sem_give(&wake) while H is blocked on it on core 1)
 *               -> probe 7 (H on core 1, first statement after its lab_sem_take returns)
 *                  = the give that readies H, the kernel's cross-core yield request (the
 *                  doorbell), core 1's interrupt entry, its switch to H and H's return
 *                  from its take.
 *
 * The probes run on different cores: the host measures the interval on the shared clock
 * (docs/timing-model.md "Two cores"). Core 1 idles (WFI) until the doorbell; core 0
 * hands the emulator to core 1 as soon as its give returns (XCORE_HAND_OVER), so that is
 * the work along the causal path: core 0's whole give (it rings core 1 while it holds
 * the kernel lock) and core 1's wake-up, interrupt entry, wait for that lock and switch
 * to H, the two cores' work added, never overlapped.
 *
 * After each give L sleeps one tick (unmeasured): while core 0 idles, core 1 finishes the
 * round (H blocks again, core 1 goes idle), so every round starts with both H blocked and
 * core 1 idle. SEM_X_ROUNDS samples. Self-check: every give returns LAB_OK; H records
 * the round L published and the core it ran on; after the tick H must have woken exactly
 * once per round, in this round, on core 1, and L must be on core 0. A kernel
 * configuration that schedules one core only ends the run LAB_EXIT_UNSUPPORTED (n/a).
 */
#include "lab/bench.h"
#include "lab/port.h"
#include "lab/target.h"
#include "xcore.h" /* XCORE_HAND_OVER (firmware/workloads/xcore) */

#if !LAB_HAS_SCHEDULER || !LAB_HAS_SEMAPHORE || !LAB_HAS_DELAY || !LAB_HAS_SMP
#error "k_sem_x needs LAB_HAS_SCHEDULER, LAB_HAS_SEMAPHORE, LAB_HAS_DELAY and LAB_HAS_SMP"
#endif

#define SEM_X_ROUNDS 1000u
#define SEM_X_STACK_WORDS 256u
#define SEM_X_CORE_OTHER 1u

LAB_INTERVAL(sem_shuffle_x, 6, 7,
             "lab_sem_give to a higher-prio task blocked on the other core -> its first statement after take");

static lab_task_t sem_x_high, sem_x_low;
static LAB_STACK_DEFINE(sem_x_high_stack, SEM_X_STACK_WORDS);
static LAB_STACK_DEFINE(sem_x_low_stack, SEM_X_STACK_WORDS);
static lab_sem_t sem_x_wake;

static volatile uint32_t sem_x_round;
static volatile uint32_t sem_x_seen;
static volatile uint32_t sem_x_wakeups;
static volatile uint32_t sem_x_core;

static void sem_x_high_task(void *arg)
{
    (void)arg;
    for (;;) {
        int rc = lab_sem_take(&sem_x_wake, LAB_WAIT_FOREVER);
        LAB_PROBE(7);
        LAB_CHECK(rc == LAB_OK);
        sem_x_core = lab_target_core_id();
        sem_x_seen = sem_x_round;
        sem_x_wakeups = sem_x_wakeups + 1u;
    }
}

static void sem_x_low_task(void *arg)
{
    (void)arg;
    lab_task_delay(1); /* H has started on core 1 and blocks on `wake` */
    LAB_CHECK(sem_x_wakeups == 0u);
    for (uint32_t i = 1; i <= SEM_X_ROUNDS; i++) {
        sem_x_round = i;
        sem_x_core = 0xFFFFFFFFu;
        LAB_PROBE(6);
        int rc = lab_sem_give(&sem_x_wake);
        XCORE_HAND_OVER();
        LAB_CHECK(rc == LAB_OK);
        lab_task_delay(1); /* core 1 finishes the round while core 0 idles */
        LAB_CHECK(sem_x_wakeups == i && sem_x_seen == i);
        LAB_CHECK(sem_x_core == SEM_X_CORE_OTHER);
        LAB_CHECK(lab_target_core_id() == 0u);
    }
    lab_finish();
}

void lab_bench_run(void)
{
    lab_port_init();
    if (lab_port_cores() < 2u) {
        lab_fail_status(LAB_EXIT_UNSUPPORTED, "the kernel schedules 1 core in this configuration "
                                              "(lab_port_cores() = 1): a cross-core wake needs 2");
    }
    LAB_CHECK(lab_sem_create(&sem_x_wake, 0u, 1u) == LAB_OK);
    LAB_CHECK(lab_task_create_on(&sem_x_high, "high", sem_x_high_task, 0, 3u, sem_x_high_stack, SEM_X_STACK_WORDS,
                                 SEM_X_CORE_OTHER) == LAB_OK);
    LAB_CHECK(lab_task_create(&sem_x_low, "low", sem_x_low_task, 0, 2u, sem_x_low_stack, SEM_X_STACK_WORDS) == LAB_OK);
    lab_port_start();
}
