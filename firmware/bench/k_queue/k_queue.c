/*
 * k_queue: message queues of 4-byte items, with and without a task switch.
 *
 * Task L (priority 2) runs the rounds; task H (priority 3) waits forever to receive from
 * queue `mail`. Queue `fifo` (4 items) has no task waiting on it.
 *
 *   queue_send      probe 2 (L, before lab_queue_send(&fifo), no receiver waiting)
 *                -> probe 3 (L, after it returns)
 *   queue_receive   probe 4 (L, before lab_queue_receive(&fifo, LAB_NO_WAIT), one item
 *                   queued) -> probe 5 (L, after it returns)
 *   queue_latency   probe 6 (L, before lab_queue_send(&mail) while H waits to receive)
 *                -> probe 7 (H, first statement after its lab_queue_receive returns)
 *                   = the send that copies the item and readies H, the switch, and H's
 *                   return from its receive (which copies the item out).
 *
 * QUEUE_ROUNDS samples of each. Self-check: the item received from `fifo` is the one
 * sent; H checks the message it received equals the round number L sent, and when the
 * send returns to L, H must have received exactly this round's message (so the switch
 * happened inside the send).
 */
#include "lab/bench.h"
#include "lab/port.h"

#if !LAB_HAS_SCHEDULER || !LAB_HAS_QUEUE
#error "k_queue needs LAB_HAS_SCHEDULER and LAB_HAS_QUEUE"
#endif

#define QUEUE_ROUNDS 1000u
#define QUEUE_STACK_WORDS 256u
#define QUEUE_LENGTH 4u

LAB_INTERVAL(queue_send, 2, 3, "lab_queue_send with no receiver waiting (no switch): call -> return");
LAB_INTERVAL(queue_receive, 4, 5, "lab_queue_receive of a queued item (no block): call -> return");
LAB_INTERVAL(queue_latency, 6, 7, "lab_queue_send to a waiting higher-prio task -> its first statement after receive");

static lab_task_t queue_high, queue_low;
static LAB_STACK_DEFINE(queue_high_stack, QUEUE_STACK_WORDS);
static LAB_STACK_DEFINE(queue_low_stack, QUEUE_STACK_WORDS);
static lab_queue_t queue_fifo, queue_mail;
static uint32_t queue_fifo_storage[QUEUE_LENGTH];
static uint32_t queue_mail_storage[QUEUE_LENGTH];

static volatile uint32_t queue_received;
static volatile uint32_t queue_receptions;

static void queue_high_task(void *arg)
{
    (void)arg;
    for (;;) {
        uint32_t msg = 0;
        int rc = lab_queue_receive(&queue_mail, &msg, LAB_WAIT_FOREVER);
        LAB_PROBE(7);
        LAB_CHECK(rc == LAB_OK);
        queue_received = msg;
        queue_receptions = queue_receptions + 1u;
    }
}

static void queue_low_task(void *arg)
{
    (void)arg;
    for (uint32_t i = 1; i <= QUEUE_ROUNDS; i++) {
        uint32_t out = 0xC0DE0000u + i;
        uint32_t in = 0;
        LAB_PROBE(2);
        int rc = lab_queue_send(&queue_fifo, &out, LAB_NO_WAIT);
        LAB_PROBE(3);
        LAB_CHECK(rc == LAB_OK);

        LAB_PROBE(4);
        rc = lab_queue_receive(&queue_fifo, &in, LAB_NO_WAIT);
        LAB_PROBE(5);
        LAB_CHECK(rc == LAB_OK && in == out);

        LAB_PROBE(6);
        rc = lab_queue_send(&queue_mail, &i, LAB_WAIT_FOREVER);
        LAB_CHECK(rc == LAB_OK);
        LAB_CHECK(queue_receptions == i && queue_received == i);
    }
    lab_finish();
}

void lab_bench_run(void)
{
    lab_port_init();
    LAB_CHECK(lab_queue_create(&queue_fifo, QUEUE_LENGTH, sizeof(uint32_t), queue_fifo_storage) == LAB_OK);
    LAB_CHECK(lab_queue_create(&queue_mail, QUEUE_LENGTH, sizeof(uint32_t), queue_mail_storage) == LAB_OK);
    LAB_CHECK(lab_task_create(&queue_high, "high", queue_high_task, 0, 3u, queue_high_stack, QUEUE_STACK_WORDS) ==
              LAB_OK);
    LAB_CHECK(lab_task_create(&queue_low, "low", queue_low_task, 0, 2u, queue_low_stack, QUEUE_STACK_WORDS) == LAB_OK);
    lab_port_start();
}
