/*
 * k_notify_x: a direct task notification on core 0 to a task waiting on core 1 (FreeRTOS
 * xTaskNotifyGive -> ulTaskNotifyTake across cores). The from-interrupt notification on
 * one core is k_isr_to_task.
 *
 * Task L (core 0, priority 2) runs the rounds; task H (core 1, priority 3) waits forever
 * in lab_notify_wait in a loop.
 *
 *   notify_latency_x  probe 6 (L, before lab_notify(&H) while H waits on core 1)
 *                  -> probe 7 (H on core 1, first statement after lab_notify_wait returns)
 *                     = the notify that readies H, the kernel's cross-core yield request
 *                     (the doorbell), core 1's interrupt entry, its switch to H and H's
 *                     return from its wait.
 *
 * Measured on the shared clock (the probes run on different cores; docs/timing-model.md
 * "Two cores"); core 1 idles (WFI) until the doorbell, and core 0 hands the emulator to
 * core 1 as soon as its notify returns (XCORE_HAND_OVER): core 0's whole notify plus
 * core 1's path, added (as k_sem_x explains). After each notify L sleeps one tick
 * (unmeasured) so core 1 finishes the round and idles before the next one.
 * NOTIFY_X_ROUNDS samples. Self-check: H's wait returns a count of exactly 1 each time and
 * H records the round and the core it ran on; after the tick H must have woken exactly
 * once per round, in this round, on core 1, and L must be on core 0. A kernel
 * configuration that schedules one core only ends the run LAB_EXIT_UNSUPPORTED (n/a).
 */
#include "lab/bench.h"
#include "lab/port.h"
#include "lab/target.h"
#include "xcore.h" /* XCORE_HAND_OVER (firmware/workloads/xcore) */

#if !LAB_HAS_SCHEDULER || !LAB_HAS_NOTIFY || !LAB_HAS_DELAY || !LAB_HAS_SMP
#error "k_notify_x needs LAB_HAS_SCHEDULER, LAB_HAS_NOTIFY, LAB_HAS_DELAY and LAB_HAS_SMP"
#endif

#define NOTIFY_X_ROUNDS 1000u
#define NOTIFY_X_STACK_WORDS 256u
#define NOTIFY_X_CORE_OTHER 1u

LAB_INTERVAL(notify_latency_x, 6, 7,
             "lab_notify to a higher-prio task waiting on the other core -> its first statement after its wait");

static lab_task_t notify_x_high, notify_x_low;
static LAB_STACK_DEFINE(notify_x_high_stack, NOTIFY_X_STACK_WORDS);
static LAB_STACK_DEFINE(notify_x_low_stack, NOTIFY_X_STACK_WORDS);

static volatile uint32_t notify_x_round;
static volatile uint32_t notify_x_seen;
static volatile uint32_t notify_x_wakeups;
static volatile uint32_t notify_x_core;

static void notify_x_high_task(void *arg)
{
    (void)arg;
    for (;;) {
        uint32_t n = lab_notify_wait(LAB_WAIT_FOREVER);
        LAB_PROBE(7);
        LAB_CHECK(n == 1u);
        notify_x_core = lab_target_core_id();
        notify_x_seen = notify_x_round;
        notify_x_wakeups = notify_x_wakeups + 1u;
    }
}

static void notify_x_low_task(void *arg)
{
    (void)arg;
    lab_task_delay(1); /* H has started on core 1 and waits */
    LAB_CHECK(notify_x_wakeups == 0u);
    for (uint32_t i = 1; i <= NOTIFY_X_ROUNDS; i++) {
        notify_x_round = i;
        notify_x_core = 0xFFFFFFFFu;
        LAB_PROBE(6);
        lab_notify(&notify_x_high);
        XCORE_HAND_OVER();
        lab_task_delay(1); /* core 1 finishes the round while core 0 idles */
        LAB_CHECK(notify_x_wakeups == i && notify_x_seen == i);
        LAB_CHECK(notify_x_core == NOTIFY_X_CORE_OTHER);
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
    LAB_CHECK(lab_task_create_on(&notify_x_high, "high", notify_x_high_task, 0, 3u, notify_x_high_stack,
                                 NOTIFY_X_STACK_WORDS, NOTIFY_X_CORE_OTHER) == LAB_OK);
    LAB_CHECK(lab_task_create(&notify_x_low, "low", notify_x_low_task, 0, 2u, notify_x_low_stack,
                              NOTIFY_X_STACK_WORDS) == LAB_OK);
    lab_port_start();
}
