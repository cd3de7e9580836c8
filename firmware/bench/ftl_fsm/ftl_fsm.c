/*
 * ftl_fsm: seed 000's FTL firmware as event-driven state machines (framework:
 * firmware/workloads/exec_models/fsm.h). The FTL engine is firmware/workloads/ftl/core, the
 * scenario, checks and metrics firmware/workloads/ftl/app (ftl_app.h); ftl_os runs the
 * same code as tasks.
 *
 * Three active objects, the same roles and priorities as ftl_os's tasks:
 *   host  (priority 1)  on START / HOST_CPL: check the completion, post HOST_CMD events
 *                       for the commands it may issue (ftl_app_host_next)
 *   FTL   (priority 2)  the only caller of the engine: HOST_CMD -> ftl_submit; NAND_DONE
 *                       -> ftl_complete; then pump ftl_step until it must wait: NAND ->
 *                       post NAND_REQ; DONE -> ftl_poll, post HOST_CPL
 *   NAND  (priority 3)  NAND_REQ -> ftl_nand_execute, post NAND_DONE
 * Events carry pointers (commands, NAND requests) and a completion's tag and status.
 * Everything runs on main's stack; fsm_run() returns when the host has checked the last
 * completion.
 */
#include <stdint.h>

#include "fsm.h"
#include "ftl_app.h"
#include "lab/bench.h"

enum { SIG_START = 1, SIG_HOST_CMD, SIG_HOST_CPL, SIG_NAND_REQ, SIG_NAND_DONE };

#define QUEUE_LEN (FTL_HOST_QUEUE_DEPTH + 2u)

static fsm_ao_t host_ao, ftl_ao, nand_ao;
static fsm_evt_t host_queue[QUEUE_LEN], ftl_queue[QUEUE_LEN], nand_queue[2];

static void host_running(fsm_ao_t *me, const fsm_evt_t *e)
{
    (void)me;
    if (e->sig == SIG_HOST_CPL) {
        ftl_app_host_complete(e->param, e->arg);
    } else {
        LAB_CHECK(e->sig == SIG_START);
    }
    const ftl_cmd_t *cmd;
    while ((cmd = ftl_app_host_next()) != 0) {
        LAB_CHECK(fsm_post(&ftl_ao, SIG_HOST_CMD, 0, 0u, (void *)(uintptr_t)cmd));
    }
    if (ftl_app_host_done()) {
        fsm_stop();
    }
}

/* Advance the engine until it has to wait for the NAND or for a command. */
static void ftl_pump(void)
{
    for (;;) {
        ftl_nand_req_t *req;
        ftl_step_t step = ftl_step(&req);
        if (step == FTL_STEP_NAND) {
            LAB_CHECK(fsm_post(&nand_ao, SIG_NAND_REQ, 0, 0u, req));
            return;
        }
        if (step == FTL_STEP_DONE) {
            ftl_cpl_t cpl;
            LAB_CHECK(ftl_poll(&cpl));
            LAB_CHECK(fsm_post(&host_ao, SIG_HOST_CPL, cpl.status, cpl.tag, 0));
            continue;
        }
        LAB_CHECK(step == FTL_STEP_IDLE || step == FTL_STEP_WAIT); /* HALTED must not happen */
        return;
    }
}

static void ftl_running(fsm_ao_t *me, const fsm_evt_t *e)
{
    (void)me;
    if (e->sig == SIG_HOST_CMD) {
        LAB_CHECK(ftl_submit((const ftl_cmd_t *)e->ptr) == FTL_OK);
    } else {
        LAB_CHECK(e->sig == SIG_NAND_DONE);
        LAB_CHECK(ftl_complete((ftl_nand_req_t *)e->ptr) == FTL_OK);
    }
    ftl_pump();
}

static void nand_running(fsm_ao_t *me, const fsm_evt_t *e)
{
    (void)me;
    LAB_CHECK(e->sig == SIG_NAND_REQ);
    (void)ftl_nand_execute((ftl_nand_req_t *)e->ptr);
    LAB_CHECK(fsm_post(&ftl_ao, SIG_NAND_DONE, 0, 0u, e->ptr));
}

void lab_bench_run(void)
{
    ftl_app_setup(); /* format: not timed */
    fsm_init();
    fsm_add(&host_ao, host_running, 1u, host_queue, QUEUE_LEN);
    fsm_add(&ftl_ao, ftl_running, 2u, ftl_queue, QUEUE_LEN);
    fsm_add(&nand_ao, nand_running, 3u, nand_queue, 2u);
    LAB_CHECK(fsm_post(&host_ao, SIG_START, 0, 0u, 0));
    fsm_run();
    ftl_app_report();
}
