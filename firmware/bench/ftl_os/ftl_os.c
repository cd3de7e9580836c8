/*
 * ftl_os: seed 000's FTL firmware on an OS, through lab/port.h. The FTL engine is
 * firmware/workloads/ftl/core, the scenario, checks and metrics firmware/workloads/ftl/app
 * (ftl_app.h); ftl_fsm runs the same code as state machines.
 *
 * Three tasks joined by four queues, the layout ftl.h describes:
 *   host task   (priority 2)  issues commands (ftl_app_host_next) to the command queue,
 *                             checks completions from the completion queue
 *   FTL task    (priority 3)  the only caller of the engine: IDLE -> take a command and
 *                             ftl_submit; NAND -> hand the request to the NAND task and
 *                             block until it comes back, ftl_complete; DONE -> ftl_poll
 *                             and send the completion to the host
 *   NAND task   (priority 4)  executes each request (ftl_nand_execute) and sends it back
 * Queue items are pointers (commands, NAND requests) and completions by value.
 * After the measured part each task's stack high-water mark is printed (LAB-KV
 * stack_peak_host/ftl/nand): the FSM build runs all three roles on main's stack.
 */
#include <stdint.h>

#include "ftl_app.h"
#include "lab/bench.h"
#include "lab/port.h"
#include "lab/stack.h"

#if !LAB_HAS_SCHEDULER || !LAB_HAS_QUEUE
#error "ftl_os needs LAB_HAS_SCHEDULER and LAB_HAS_QUEUE"
#endif

#define HOST_PRIO 2u
#define FTL_PRIO 3u
#define NAND_PRIO 4u
/* 1 KiB per task: the measured peaks (stack_peak_*) are below 400 bytes even at -O0. */
#define STACK_WORDS 256u

static lab_task_t host_task, ftl_task, nand_task;
static LAB_STACK_DEFINE(host_stack, STACK_WORDS);
static LAB_STACK_DEFINE(ftl_stack, STACK_WORDS);
static LAB_STACK_DEFINE(nand_stack, STACK_WORDS);

static lab_queue_t cmd_queue;       /* host -> FTL: const ftl_cmd_t * */
static lab_queue_t cpl_queue;       /* FTL -> host: ftl_cpl_t */
static lab_queue_t nand_queue;      /* FTL -> NAND: ftl_nand_req_t * */
static lab_queue_t nand_done_queue; /* NAND -> FTL: ftl_nand_req_t * */
static const ftl_cmd_t *cmd_storage[FTL_HOST_QUEUE_DEPTH];
static ftl_cpl_t cpl_storage[FTL_HOST_QUEUE_DEPTH];
static ftl_nand_req_t *nand_storage[1];
static ftl_nand_req_t *nand_done_storage[1];

static void host_main(void *arg)
{
    (void)arg;
    for (;;) {
        const ftl_cmd_t *cmd;
        while ((cmd = ftl_app_host_next()) != 0) {
            LAB_CHECK(lab_queue_send(&cmd_queue, &cmd, LAB_WAIT_FOREVER) == LAB_OK);
        }
        if (ftl_app_host_done()) {
            break;
        }
        ftl_cpl_t cpl;
        LAB_CHECK(lab_queue_receive(&cpl_queue, &cpl, LAB_WAIT_FOREVER) == LAB_OK);
        ftl_app_host_complete(cpl.tag, cpl.status);
    }
    ftl_app_report();
    lab_stack_report("host", (uintptr_t)host_stack, (uintptr_t)(host_stack + STACK_WORDS));
    lab_stack_report("ftl", (uintptr_t)ftl_stack, (uintptr_t)(ftl_stack + STACK_WORDS));
    lab_stack_report("nand", (uintptr_t)nand_stack, (uintptr_t)(nand_stack + STACK_WORDS));
    lab_finish();
}

static void ftl_main(void *arg)
{
    (void)arg;
    for (;;) {
        ftl_nand_req_t *req;
        ftl_step_t step = ftl_step(&req);
        if (step == FTL_STEP_NAND) {
            LAB_CHECK(lab_queue_send(&nand_queue, &req, LAB_WAIT_FOREVER) == LAB_OK);
            LAB_CHECK(lab_queue_receive(&nand_done_queue, &req, LAB_WAIT_FOREVER) == LAB_OK);
            LAB_CHECK(ftl_complete(req) == FTL_OK);
        } else if (step == FTL_STEP_DONE) {
            ftl_cpl_t cpl;
            LAB_CHECK(ftl_poll(&cpl));
            LAB_CHECK(lab_queue_send(&cpl_queue, &cpl, LAB_WAIT_FOREVER) == LAB_OK);
        } else {
            LAB_CHECK(step == FTL_STEP_IDLE); /* WAIT cannot happen here, HALTED must not */
            const ftl_cmd_t *cmd;
            LAB_CHECK(lab_queue_receive(&cmd_queue, &cmd, LAB_WAIT_FOREVER) == LAB_OK);
            LAB_CHECK(ftl_submit(cmd) == FTL_OK);
        }
    }
}

static void nand_main(void *arg)
{
    (void)arg;
    for (;;) {
        ftl_nand_req_t *req;
        LAB_CHECK(lab_queue_receive(&nand_queue, &req, LAB_WAIT_FOREVER) == LAB_OK);
        (void)ftl_nand_execute(req);
        LAB_CHECK(lab_queue_send(&nand_done_queue, &req, LAB_WAIT_FOREVER) == LAB_OK);
    }
}

void lab_bench_run(void)
{
    lab_port_init();
    ftl_app_setup(); /* format: not timed */
    LAB_CHECK(lab_queue_create(&cmd_queue, FTL_HOST_QUEUE_DEPTH, sizeof(const ftl_cmd_t *), cmd_storage) == LAB_OK);
    LAB_CHECK(lab_queue_create(&cpl_queue, FTL_HOST_QUEUE_DEPTH, sizeof(ftl_cpl_t), cpl_storage) == LAB_OK);
    LAB_CHECK(lab_queue_create(&nand_queue, 1u, sizeof(ftl_nand_req_t *), nand_storage) == LAB_OK);
    LAB_CHECK(lab_queue_create(&nand_done_queue, 1u, sizeof(ftl_nand_req_t *), nand_done_storage) == LAB_OK);
    lab_stack_paint((uintptr_t)host_stack, (uintptr_t)(host_stack + STACK_WORDS));
    lab_stack_paint((uintptr_t)ftl_stack, (uintptr_t)(ftl_stack + STACK_WORDS));
    lab_stack_paint((uintptr_t)nand_stack, (uintptr_t)(nand_stack + STACK_WORDS));
    LAB_CHECK(lab_task_create(&nand_task, "nand", nand_main, 0, NAND_PRIO, nand_stack, STACK_WORDS) == LAB_OK);
    LAB_CHECK(lab_task_create(&ftl_task, "ftl", ftl_main, 0, FTL_PRIO, ftl_stack, STACK_WORDS) == LAB_OK);
    LAB_CHECK(lab_task_create(&host_task, "host", host_main, 0, HOST_PRIO, host_stack, STACK_WORDS) == LAB_OK);
    lab_port_start();
}
