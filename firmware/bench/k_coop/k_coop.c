/*
 * k_coop: the cooperative kernel's costs (lab/port.h, "run-to-completion tasks"), the
 * counterpart of k_queue on a kernel without threads.
 *
 * Task S (priority 1) runs one round per call; task R (priority 2) receives from queue
 * `mail`. Queue `fifo` (4 items) belongs to S itself.
 *
 *   coop_send      probe 2 (S, before lab_coop_send(&fifo)) -> probe 3 (after it returns)
 *   coop_receive   probe 4 (S, before lab_coop_receive(&fifo), one item queued)
 *               -> probe 5 (after it returns)
 *   coop_latency   probe 6 (S, before lab_coop_send(&mail)) -> probe 7 (R, after its
 *                  lab_coop_receive(&mail) returned the message) = the send that copies
 *                  the item and makes R ready, S's return to the kernel's loop (nothing is
 *                  preempted: R runs only then), the loop choosing R and calling it, and
 *                  R's receive; k_queue's queue_latency on a threaded kernel ends at the
 *                  same point (R's first statement after its receive). The test of the
 *                  receive's result (compare and branch) comes before probe 7: R is also
 *                  called once at start (every task starts activated) with no message.
 *
 * COOP_ROUNDS samples of each. Self-check: the item received from `fifo` is the one sent;
 * R checks that the message is this round's, and activates S for the next round, so a
 * round only starts once R has run; S ends the run after the last round.
 */
#include <stdint.h>

#include "lab/bench.h"
#include "lab/port.h"

#if !LAB_HAS_COOP
#error "k_coop needs LAB_HAS_COOP"
#endif

#define COOP_ROUNDS 1000u
#define COOP_LENGTH 4u

LAB_INTERVAL(coop_send, 2, 3, "lab_coop_send to a queue (the receiver made ready, no call): call -> return");
LAB_INTERVAL(coop_receive, 4, 5, "lab_coop_receive of a queued item: call -> return");
LAB_INTERVAL(coop_latency, 6, 7, "lab_coop_send to a more urgent task -> its first statement after its receive");

static lab_task_t coop_sender, coop_receiver;
static lab_queue_t coop_fifo, coop_mail;
static uint32_t coop_fifo_storage[COOP_LENGTH];
static uint32_t coop_mail_storage[COOP_LENGTH];

static uint32_t coop_round;             /* the round S sent last (0: none yet) */
static volatile uint32_t coop_received; /* the rounds R has received */

static void coop_sender_fn(void *arg)
{
    (void)arg;
    LAB_CHECK(coop_received == coop_round); /* R has run for the previous round */
    if (coop_round == COOP_ROUNDS) {
        lab_finish();
    }
    uint32_t round = coop_round + 1u;
    uint32_t out = 0xC0DE0000u + round;
    uint32_t in = 0;
    LAB_PROBE(2);
    int rc = lab_coop_send(&coop_fifo, &out);
    LAB_PROBE(3);
    LAB_CHECK(rc == LAB_OK);

    LAB_PROBE(4);
    rc = lab_coop_receive(&coop_fifo, &in);
    LAB_PROBE(5);
    LAB_CHECK(rc == LAB_OK && in == out);

    coop_round = round;
    LAB_PROBE(6);
    rc = lab_coop_send(&coop_mail, &round);
    LAB_CHECK(rc == LAB_OK);
}

static void coop_receiver_fn(void *arg)
{
    (void)arg;
    uint32_t msg = 0;
    int rc = lab_coop_receive(&coop_mail, &msg);
    if (rc != LAB_OK) {
        LAB_CHECK(coop_round == 0u); /* the start-up call only */
        return;
    }
    LAB_PROBE(7);
    LAB_CHECK(msg == coop_round && coop_received + 1u == msg);
    coop_received = msg;
    lab_coop_activate(&coop_sender);
}

void lab_bench_run(void)
{
    lab_port_init();
    LAB_CHECK(lab_coop_task_create(&coop_sender, "sender", coop_sender_fn, 0, 1u) == LAB_OK);
    LAB_CHECK(lab_coop_task_create(&coop_receiver, "receiver", coop_receiver_fn, 0, 2u) == LAB_OK);
    /* one task per priority: a second task at 2 is refused */
    lab_task_t extra;
    LAB_CHECK(lab_coop_task_create(&extra, "extra", coop_receiver_fn, 0, 2u) == LAB_ERR_FAIL);
    LAB_CHECK(lab_coop_queue_create(&coop_fifo, COOP_LENGTH, sizeof(uint32_t), coop_fifo_storage, &coop_sender) == LAB_OK);
    LAB_CHECK(lab_coop_queue_create(&coop_mail, COOP_LENGTH, sizeof(uint32_t), coop_mail_storage, &coop_receiver) == LAB_OK);
    lab_coop_start();
}
