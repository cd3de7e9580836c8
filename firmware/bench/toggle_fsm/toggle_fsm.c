/*
 * toggle_fsm: seed 002's workload as event-driven state machines. Workload:
 * firmware/workloads/toggle (toggle.h describes the rounds and the metrics); model:
 * firmware/workloads/exec_models/fsm.h.
 *
 * Active objects: a coordinator (priority 2) and one object per task (priority 1, all
 * equal, so the dispatcher serves them round-robin, one event each). The coordinator
 * begins a round (probe "origin") and posts GO to every task object. A task object makes
 * TOGGLE_FSM_CHUNK writes per event and posts CONTINUE to itself until its 8000 writes
 * are done: the tasks interleave slice by slice, the cooperative counterpart of time
 * slicing (-DTOGGLE_FSM_CHUNK=8000 makes each task one event: then they run one after
 * the other, like the super loop). The object that finishes the round posts DONE to the
 * coordinator, which starts the next round at once. No timer, no interrupt: the FSM
 * needs none here.
 */
#include <stdint.h>

#include "fsm.h"
#include "lab/bench.h"
#include "toggle.h"

#ifndef TOGGLE_FSM_CHUNK
#define TOGGLE_FSM_CHUNK 1000u
#endif
#if TOGGLE_FSM_CHUNK < 1 || TOGGLE_FSM_CHUNK > TOGGLE_COUNT
#error "TOGGLE_FSM_CHUNK must be 1 .. TOGGLE_COUNT"
#endif

enum { SIG_START = 1, SIG_GO, SIG_CONTINUE, SIG_DONE };

typedef struct {
    fsm_ao_t ao; /* first: handlers cast back */
    uint32_t k;  /* task index */
    uint32_t next; /* next write of this round */
} task_ao_t;

static fsm_ao_t coordinator;
static fsm_evt_t coordinator_queue[4];
static task_ao_t tasks[TOGGLE_TASKS];
static fsm_evt_t task_queues[TOGGLE_TASKS][2];
static uint32_t rounds;

static void task_running(fsm_ao_t *me, const fsm_evt_t *e)
{
    task_ao_t *t = (task_ao_t *)me;
    if (e->sig == SIG_GO) {
        t->next = 0u;
    } else {
        LAB_CHECK(e->sig == SIG_CONTINUE);
    }
    uint32_t n = TOGGLE_COUNT - t->next < TOGGLE_FSM_CHUNK ? TOGGLE_COUNT - t->next : TOGGLE_FSM_CHUNK;
    toggle_result_t r = toggle_part[t->k](t->next, n);
    t->next += n;
    if (r == TOGGLE_MORE) {
        LAB_CHECK(fsm_post(me, SIG_CONTINUE, 0, 0u, 0));
    } else if (r == TOGGLE_ROUND_DONE) {
        LAB_CHECK(fsm_post(&coordinator, SIG_DONE, 0, 0u, 0));
    }
}

static void coordinator_running(fsm_ao_t *me, const fsm_evt_t *e)
{
    (void)me;
    LAB_CHECK(e->sig == SIG_START || e->sig == SIG_DONE);
    if (e->sig == SIG_DONE && !toggle_round_end()) {
        fsm_stop();
        return;
    }
    rounds++;
    toggle_round_begin();
    for (uint32_t k = 0; k < (uint32_t)TOGGLE_TASKS; k++) {
        LAB_CHECK(fsm_post(&tasks[k].ao, SIG_GO, 0, 0u, 0));
    }
}

void lab_bench_run(void)
{
    toggle_init();
    fsm_init();
    fsm_add(&coordinator, coordinator_running, 2u, coordinator_queue, 4u);
    for (uint32_t k = 0; k < (uint32_t)TOGGLE_TASKS; k++) {
        tasks[k].k = k;
        fsm_add(&tasks[k].ao, task_running, 1u, task_queues[k], 2u);
    }
    LAB_CHECK(fsm_post(&coordinator, SIG_START, 0, 0u, 0));
    fsm_run();
    LAB_CHECK(rounds == TOGGLE_ROUNDS);
    toggle_report();
}
