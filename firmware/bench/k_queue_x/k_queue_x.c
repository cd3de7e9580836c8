/*
 * k_queue_x: a queue send on core 0 to a task waiting to receive on core 1 (the
 * cross-core counterpart of k_queue's queue_latency, which on an SMP kernel measures the
 * same-core case: lab_task_create pins a task to the caller's core).
 *
 * Task L (core 0, priority 2) runs the rounds; task H (core 1, priority 3) waits forever
 * to receive 4-byte messages from queue `mail`.
 *
 *   queue_latency_x  probe 6 (L, before lab_queue_send(&mail) while H waits on core 1)
 *                 -> probe 7 (H on core 1, first statement after its lab_queue_receive
 *                    returns)
 *                    = the send that copies the item and readies H, the kernel's
 *                    cross-core yield request (the doorbell), core 1's interrupt entry,
 *                    its switch to H and H's return from its receive (copying the item
 *                    out).
 *
 * Measured on the shared clock (the probes run on different cores; docs/timing-model.md
 * "Two cores"); core 1 idles (WFI) until the doorbell, and core 0 hands the emulator to
 * core 1 as soon as its send returns (XCORE_HAND_OVER): core 0's whole send plus core
 * 1's path, added (as k_sem_x explains). After each send L sleeps one tick
 * (unmeasured) so core 1 finishes the round and idles before the next one.
 * QUEUE_X_ROUNDS samples. Self-check: every send returns LAB_OK; H checks the message it
 * received equals the round number L sent and records the core it ran on; after the tick
 * H must have received exactly this round's message, once, on core 1, and L must be on
 * core 0. A kernel configuration that schedules one core only ends the run
 * LAB_EXIT_UNSUPPORTED (n/a).
 */
#include "lab/bench.h"
#include "lab/port.h"
#include "lab/target.h"
#include "xcore.h" /* XCORE_HAND_OVER (firmware/workloads/xcore) */

#if !LAB_HAS_SCHEDULER || !LAB_HAS_QUEUE || !LAB_HAS_DELAY || !LAB_HAS_SMP
#error "k_queue_x needs LAB_HAS_SCHEDULER, LAB_HAS_QUEUE, LAB_HAS_DELAY and LAB_HAS_SMP"
#endif

#define QUEUE_X_ROUNDS 1000u
#define QUEUE_X_STACK_WORDS 256u
#define QUEUE_X_LENGTH 4u
#define QUEUE_X_CORE_OTHER 1u

LAB_INTERVAL(queue_latency_x, 6, 7,
             "lab_queue_send to a higher-prio task waiting on the other core -> its first statement after receive");

static lab_task_t queue_x_high, queue_x_low;
static LAB_STACK_DEFINE(queue_x_high_stack, QUEUE_X_STACK_WORDS);
static LAB_STACK_DEFINE(queue_x_low_stack, QUEUE_X_STACK_WORDS);
static lab_queue_t queue_x_mail;
static uint32_t queue_x_mail_storage[QUEUE_X_LENGTH];

static volatile uint32_t queue_x_received;
static volatile uint32_t queue_x_receptions;
static volatile uint32_t queue_x_core;

static void queue_x_high_task(void *arg)
{
    (void)arg;
    for (;;) {
        uint32_t msg = 0;
        int rc = lab_queue_receive(&queue_x_mail, &msg, LAB_WAIT_FOREVER);
        LAB_PROBE(7);
        LAB_CHECK(rc == LAB_OK);
        queue_x_core = lab_target_core_id();
        queue_x_received = msg;
        queue_x_receptions = queue_x_receptions + 1u;
    }
}

static void queue_x_low_task(void *arg)
{
    (void)arg;
    lab_task_delay(1); /* H has started on core 1 and waits on `mail` */
    LAB_CHECK(queue_x_receptions == 0u);
    for (uint32_t i = 1; i <= QUEUE_X_ROUNDS; i++) {
        queue_x_core = 0xFFFFFFFFu;
        LAB_PROBE(6);
        int rc = lab_queue_send(&queue_x_mail, &i, LAB_WAIT_FOREVER);
        XCORE_HAND_OVER();
        LAB_CHECK(rc == LAB_OK);
        lab_task_delay(1); /* core 1 finishes the round while core 0 idles */
        LAB_CHECK(queue_x_receptions == i && queue_x_received == i);
        LAB_CHECK(queue_x_core == QUEUE_X_CORE_OTHER);
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
    LAB_CHECK(lab_queue_create(&queue_x_mail, QUEUE_X_LENGTH, sizeof(uint32_t), queue_x_mail_storage) == LAB_OK);
    LAB_CHECK(lab_task_create_on(&queue_x_high, "high", queue_x_high_task, 0, 3u, queue_x_high_stack,
                                 QUEUE_X_STACK_WORDS, QUEUE_X_CORE_OTHER) == LAB_OK);
    LAB_CHECK(lab_task_create(&queue_x_low, "low", queue_x_low_task, 0, 2u, queue_x_low_stack, QUEUE_X_STACK_WORDS) ==
              LAB_OK);
    lab_port_start();
}
