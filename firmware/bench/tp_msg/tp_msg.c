/*
 * tp_msg: throughput suite, message processing (Thread-Metric's message test).
 *
 * One task sends a 16-byte message (four 32-bit words) to a queue of one message with
 * lab_queue_send, receives it back with lab_queue_receive (neither blocks: the queue is
 * empty before the send and full before the receive), checks it and changes the last
 * word for the next round. One operation = one send plus one receive.
 *
 *   msg_window  probe 2 (before the first send) -> probe 3 (after MSG_OPS rounds)
 *   LAB-KV ops  MSG_OPS; ticks: tick interrupts inside the window
 *
 * Self-check: every send and receive returns LAB_OK; every received message equals the one
 * just sent in all four words (contents and, across rounds, order: the last word counts
 * up); afterwards a LAB_NO_WAIT receive times out (nothing left over).
 */
#include "lab/bench.h"
#include "lab/port.h"
#include "tp.h"

#if !LAB_HAS_SCHEDULER || !LAB_HAS_QUEUE
#error "tp_msg needs LAB_HAS_SCHEDULER and LAB_HAS_QUEUE"
#endif

#define MSG_OPS 2000u
#define MSG_WORDS 4u

LAB_INTERVAL(msg_window, TP_PROBE_START, TP_PROBE_END, "message processing: 2000 x send + receive of a 16-byte message, one task");

static lab_queue_t msg_queue;
static uint32_t msg_storage[MSG_WORDS];
static volatile uint32_t msg_errors;

static void msg_body(void)
{
    uint32_t sent[MSG_WORDS] = {0x11112222u, 0x33334444u, 0x55556666u, 0u};
    uint32_t got[MSG_WORDS];

    uint32_t t0 = tp_ticks_now();
    LAB_PROBE(TP_PROBE_START);
    for (uint32_t i = 0; i < MSG_OPS; i++) {
        if (lab_queue_send(&msg_queue, sent, LAB_NO_WAIT) != LAB_OK ||
            lab_queue_receive(&msg_queue, got, LAB_NO_WAIT) != LAB_OK || got[0] != sent[0] || got[1] != sent[1] ||
            got[2] != sent[2] || got[3] != i) {
            msg_errors = msg_errors + 1u;
        }
        sent[3] = i + 1u;
    }
    LAB_PROBE(TP_PROBE_END);
    uint32_t ticks = tp_ticks_now() - t0;

    LAB_CHECK(msg_errors == 0u);
    LAB_CHECK(sent[3] == MSG_OPS);
    LAB_CHECK(lab_queue_receive(&msg_queue, got, LAB_NO_WAIT) == LAB_ERR_TIMEOUT);
    tp_report(MSG_OPS, ticks);
}

void lab_bench_run(void)
{
    lab_port_init();
    LAB_CHECK(lab_queue_create(&msg_queue, 1u, sizeof msg_storage, msg_storage) == LAB_OK);
    tp_run_single(msg_body);
}
