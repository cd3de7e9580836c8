/*
 * ftl_coop: seed 000's FTL firmware on a cooperative OS (lab/port.h, "run-to-completion
 * tasks": the coop kernel). The FTL engine is firmware/workloads/ftl/core, the scenario,
 * checks and metrics firmware/workloads/ftl/app (ftl_app.h); ftl_os runs the same code as
 * FreeRTOS tasks and ftl_fsm as state machines.
 *
 * ftl_os's layout, as run-to-completion tasks: three tasks with its priorities joined by
 * its four queues, with the same items (command and NAND-request pointers, completions by
 * value). A task takes ONE message per call and returns; the kernel calls it again while
 * it has messages, after any more urgent task, so the order of work is ftl_os's except
 * that a send never preempts the sender:
 *   host task   (priority 2)  a completion -> check it; then issue every command it may
 *                             (ftl_app_host_next) to the command queue
 *   FTL task    (priority 3)  the only caller of the engine: a command -> ftl_submit, a
 *                             NAND request back -> ftl_complete; then pump ftl_step until
 *                             it must wait: NAND -> send the request to the NAND task and
 *                             return (ftl_os blocks there); DONE -> ftl_poll, send the
 *                             completion to the host
 *   NAND task   (priority 4)  a request -> ftl_nand_execute, send it back
 * Everything runs on main's stack (the harness reports main_stack_peak_bytes), as in
 * ftl_fsm; the run ends in the host task once the last completion was checked.
 */
#include <stdbool.h>
#include <stdint.h>

#include "ftl_app.h"
#include "lab/bench.h"
#include "lab/port.h"

#if !LAB_HAS_COOP
#error "ftl_coop needs LAB_HAS_COOP (run-to-completion tasks)"
#endif

#define HOST_PRIO 2u
#define FTL_PRIO 3u
#define NAND_PRIO 4u

static lab_task_t host_task, ftl_task, nand_task;

static lab_queue_t cmd_queue;       /* host -> FTL: const ftl_cmd_t * */
static lab_queue_t cpl_queue;       /* FTL -> host: ftl_cpl_t */
static lab_queue_t nand_queue;      /* FTL -> NAND: ftl_nand_req_t * */
static lab_queue_t nand_done_queue; /* NAND -> FTL: ftl_nand_req_t * */
static const ftl_cmd_t *cmd_storage[FTL_HOST_QUEUE_DEPTH];
static ftl_cpl_t cpl_storage[FTL_HOST_QUEUE_DEPTH];
static ftl_nand_req_t *nand_storage[1];
static ftl_nand_req_t *nand_done_storage[1];

/* The FTL task waits for the NAND task between sending a request and getting it back:
 * ftl_os's FTL task is blocked there; here it takes no command meanwhile. */
static bool ftl_waits_for_nand;

static void host_fn(void *arg)
{
    (void)arg;
    ftl_cpl_t cpl;
    if (lab_coop_receive(&cpl_queue, &cpl) == LAB_OK) {
        ftl_app_host_complete(cpl.tag, cpl.status);
    }
    const ftl_cmd_t *cmd;
    while ((cmd = ftl_app_host_next()) != 0) {
        LAB_CHECK(lab_coop_send(&cmd_queue, &cmd) == LAB_OK);
    }
    if (ftl_app_host_done()) {
        ftl_app_report();
        lab_finish();
    }
}

/* Advance the engine until it has to wait for the NAND or for a command. */
static void ftl_pump(void)
{
    for (;;) {
        ftl_nand_req_t *req;
        ftl_step_t step = ftl_step(&req);
        if (step == FTL_STEP_NAND) {
            LAB_CHECK(lab_coop_send(&nand_queue, &req) == LAB_OK);
            ftl_waits_for_nand = true;
            return;
        }
        if (step == FTL_STEP_DONE) {
            ftl_cpl_t cpl;
            LAB_CHECK(ftl_poll(&cpl));
            LAB_CHECK(lab_coop_send(&cpl_queue, &cpl) == LAB_OK);
            continue;
        }
        LAB_CHECK(step == FTL_STEP_IDLE); /* WAIT cannot happen here, HALTED must not */
        return;
    }
}

static void ftl_fn(void *arg)
{
    (void)arg;
    if (ftl_waits_for_nand) {
        ftl_nand_req_t *req;
        /* The NAND task is more urgent, so it has run and sent the request back before
         * the loop calls this task again (were it not, this task would be called for
         * its waiting commands while the NAND queue held nothing). */
        LAB_CHECK(lab_coop_receive(&nand_done_queue, &req) == LAB_OK);
        ftl_waits_for_nand = false;
        LAB_CHECK(ftl_complete(req) == FTL_OK);
    } else {
        const ftl_cmd_t *cmd;
        if (lab_coop_receive(&cmd_queue, &cmd) != LAB_OK) {
            return; /* the first call, activated by lab_coop_start with nothing to do */
        }
        LAB_CHECK(ftl_submit(cmd) == FTL_OK);
    }
    ftl_pump();
}

static void nand_fn(void *arg)
{
    (void)arg;
    ftl_nand_req_t *req;
    if (lab_coop_receive(&nand_queue, &req) != LAB_OK) {
        return; /* the first call: nothing sent yet */
    }
    (void)ftl_nand_execute(req);
    LAB_CHECK(lab_coop_send(&nand_done_queue, &req) == LAB_OK);
}

void lab_bench_run(void)
{
    lab_port_init();
    ftl_app_setup(); /* format: not timed */
    LAB_CHECK(lab_coop_task_create(&nand_task, "nand", nand_fn, 0, NAND_PRIO) == LAB_OK);
    LAB_CHECK(lab_coop_task_create(&ftl_task, "ftl", ftl_fn, 0, FTL_PRIO) == LAB_OK);
    LAB_CHECK(lab_coop_task_create(&host_task, "host", host_fn, 0, HOST_PRIO) == LAB_OK);
    LAB_CHECK(lab_coop_queue_create(&cmd_queue, FTL_HOST_QUEUE_DEPTH, sizeof(const ftl_cmd_t *), cmd_storage, &ftl_task) == LAB_OK);
    LAB_CHECK(lab_coop_queue_create(&cpl_queue, FTL_HOST_QUEUE_DEPTH, sizeof(ftl_cpl_t), cpl_storage, &host_task) == LAB_OK);
    LAB_CHECK(lab_coop_queue_create(&nand_queue, 1u, sizeof(ftl_nand_req_t *), nand_storage, &nand_task) == LAB_OK);
    LAB_CHECK(lab_coop_queue_create(&nand_done_queue, 1u, sizeof(ftl_nand_req_t *), nand_done_storage, &ftl_task) == LAB_OK);
    lab_coop_start();
}
