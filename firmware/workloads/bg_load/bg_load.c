/* Background load (bg_load.h). */
#include "bg_load.h"

#include "lab/bench.h"
#include "lab/port.h"

static lab_task_t load_producer, load_consumer;
static LAB_STACK_DEFINE(load_producer_stack, LAB_BG_LOAD_STACK_WORDS);
static LAB_STACK_DEFINE(load_consumer_stack, LAB_BG_LOAD_STACK_WORDS);
static lab_queue_t load_q;
static uint32_t load_q_storage[4];
static lab_sem_t load_ack;
static volatile uint32_t load_state[LAB_BG_LOAD_WORK];
static volatile uint32_t load_rounds;
static volatile uint32_t load_out_of_order;

/* A short critical section with real work in it: mix `seed` into the shared state. */
static void load_work(uint32_t seed)
{
    lab_critical_enter();
    for (uint32_t k = 0; k < LAB_BG_LOAD_WORK; k++) {
        load_state[k] = load_state[k] * 1664525u + seed + k;
    }
    lab_critical_exit();
}

static void load_consumer_task(void *arg)
{
    (void)arg;
    uint32_t expected = 0;
    for (;;) {
        uint32_t v = 0;
        LAB_CHECK(lab_queue_receive(&load_q, &v, LAB_WAIT_FOREVER) == LAB_OK);
        if (v != expected) {
            load_out_of_order = load_out_of_order + 1u;
        }
        expected = v + 1u;
        load_work(v);
        LAB_CHECK(lab_sem_give(&load_ack) == LAB_OK);
    }
}

static void load_producer_task(void *arg)
{
    (void)arg;
    for (uint32_t n = 0;; n++) {
        LAB_CHECK(lab_queue_send(&load_q, &n, LAB_WAIT_FOREVER) == LAB_OK);
        LAB_CHECK(lab_sem_take(&load_ack, LAB_WAIT_FOREVER) == LAB_OK);
        load_work(~n);
        load_rounds = n + 1u;
    }
}

void bg_load_start(unsigned producer_prio, unsigned consumer_prio)
{
    LAB_CHECK(lab_queue_create(&load_q, 4u, sizeof(uint32_t), load_q_storage) == LAB_OK);
    LAB_CHECK(lab_sem_create(&load_ack, 0u, 1u) == LAB_OK);
    LAB_CHECK(lab_task_create(&load_consumer, "cons", load_consumer_task, 0, consumer_prio,
                              load_consumer_stack, LAB_BG_LOAD_STACK_WORDS) == LAB_OK);
    LAB_CHECK(lab_task_create(&load_producer, "prod", load_producer_task, 0, producer_prio,
                              load_producer_stack, LAB_BG_LOAD_STACK_WORDS) == LAB_OK);
}

uint32_t bg_load_rounds(void) { return load_rounds; }

uint32_t bg_load_out_of_order(void) { return load_out_of_order; }
