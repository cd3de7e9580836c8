/*
 * toggle_superloop: seed 002's super loop. Workload: firmware/workloads/toggle (toggle.h
 * describes the rounds and the metrics); model: firmware/workloads/exec_models/superloop.h.
 *
 * The job table holds a coordinator job and one job per task (table order: coordinator,
 * task 1 .. task N). The coordinator begins a round (probe "origin") and arms every task
 * job to run at once; the main loop then runs them in table order, each to completion:
 * task k starts only after task k-1 made all its 8000 writes. The job that finishes the
 * round re-arms the coordinator, so the next round starts on the next pass (rounds run
 * back to back). The 1 kHz tick interrupt (millis) keeps running throughout; with
 * -icount shift=0 one tick is 1,000,000 instructions, far longer than a round, so it
 * falls inside a round only now and then.
 */
#include <stdint.h>

#include "lab/bench.h"
#include "superloop.h"
#include "toggle.h"

static sl_job_t coordinator;
static sl_job_t task_jobs[TOGGLE_TASKS];

static void task_job(void *arg)
{
    uint32_t k = (uint32_t)(uintptr_t)arg;
    if (toggle_part[k](0u, TOGGLE_COUNT) == TOGGLE_ROUND_DONE) {
        sl_schedule(&coordinator, 0u);
    }
}

static void coordinator_job(void *arg)
{
    uint32_t *rounds = arg;
    if (*rounds != 0u && !toggle_round_end()) {
        sl_stop();
        return;
    }
    *rounds += 1u;
    toggle_round_begin();
    for (uint32_t k = 0; k < (uint32_t)TOGGLE_TASKS; k++) {
        sl_schedule(&task_jobs[k], 0u);
    }
}

void lab_bench_run(void)
{
    static uint32_t rounds;
    toggle_init();
    sl_init();
    sl_add(&coordinator, coordinator_job, &rounds, 0u, 0u);
    for (uint32_t k = 0; k < (uint32_t)TOGGLE_TASKS; k++) {
        sl_add(&task_jobs[k], task_job, (void *)(uintptr_t)k, 0u, SL_NOT_ARMED);
    }
    sl_run();
    toggle_report();
}
