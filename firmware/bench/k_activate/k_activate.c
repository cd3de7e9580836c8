/*
 * k_activate: task activation as in TOPPERS act_tsk (the ASP3/FMP3 study, seed 003): a
 * task that does not run yet is made to start from its entry function. In the porting
 * API that is lab_task_create (FreeRTOS has no dormant state: a task that does not exist
 * yet is the dormant task). Two metrics, as in the study's "with / without dispatch":
 *
 *   activate_switch    probe 2 (controller C, priority 2, just before lab_task_create
 *                      of a priority-3 task)
 *                   -> probe 3 (first statement of the new task's entry function)
 *                      = creation and the dispatch to the new task.
 *   activate_noswitch  probe 4 (C, just before lab_task_create of a priority-1 task)
 *                   -> probe 5 (C, right after lab_task_create returns)
 *                      = creation only: the new task is less urgent and does not run.
 *
 * After each switch sample the new task suspends itself and C deletes it (unmeasured),
 * reusing the same storage; after each no-switch sample C deletes the never-run task.
 * ACTIVATE_ROUNDS samples of each.
 *
 * Self-check: the activated task records the round C published; after the switch
 * variant's create returns it must have run exactly once in this round, and after the
 * no-switch variant's create it must not have run at all.
 */
#include "lab/bench.h"
#include "lab/port.h"

#if !LAB_HAS_SCHEDULER || !LAB_HAS_TASK_CREATE_DELETE || !LAB_HAS_SUSPEND
#error "k_activate needs LAB_HAS_SCHEDULER, LAB_HAS_TASK_CREATE_DELETE and LAB_HAS_SUSPEND"
#endif

#define ACTIVATE_ROUNDS 1000u
#define ACTIVATE_STACK_WORDS 256u
#define ACTIVATE_PRIO_CONTROLLER 2u

LAB_INTERVAL(activate_switch, 2, 3, "create a higher-prio task -> first statement of its entry function");
LAB_INTERVAL(activate_noswitch, 4, 5, "create a lower-prio task (it does not run) -> create returns");

static lab_task_t activate_controller, activate_new;
static LAB_STACK_DEFINE(activate_controller_stack, ACTIVATE_STACK_WORDS);
static LAB_STACK_DEFINE(activate_new_stack, ACTIVATE_STACK_WORDS);

static volatile uint32_t activate_round;
static volatile uint32_t activate_seen;
static volatile uint32_t activate_runs;

static void activate_high_entry(void *arg)
{
    (void)arg;
    LAB_PROBE(3);
    activate_seen = activate_round;
    activate_runs = activate_runs + 1u;
    lab_task_suspend(NULL); /* the controller deletes it from here */
    lab_fail(__FILE__, __LINE__, "activated task resumed after it was deleted");
}

static void activate_low_entry(void *arg)
{
    (void)arg;
    activate_runs = activate_runs + 1u; /* must never happen: the controller deletes it first */
    lab_task_suspend(NULL);
    lab_fail(__FILE__, __LINE__, "low-priority activated task ran");
}

static void activate_controller_task(void *arg)
{
    (void)arg;
    for (uint32_t i = 1; i <= ACTIVATE_ROUNDS; i++) {
        activate_round = i;
        LAB_PROBE(2);
        int rc = lab_task_create(&activate_new, "act_hi", activate_high_entry, 0, ACTIVATE_PRIO_CONTROLLER + 1u,
                                 activate_new_stack, ACTIVATE_STACK_WORDS);
        LAB_CHECK(rc == LAB_OK);
        LAB_CHECK(activate_runs == i && activate_seen == i);
        lab_task_delete(&activate_new);

        LAB_PROBE(4);
        rc = lab_task_create(&activate_new, "act_lo", activate_low_entry, 0, ACTIVATE_PRIO_CONTROLLER - 1u,
                             activate_new_stack, ACTIVATE_STACK_WORDS);
        LAB_PROBE(5);
        LAB_CHECK(rc == LAB_OK);
        LAB_CHECK(activate_runs == i);
        lab_task_delete(&activate_new);
    }
    lab_finish();
}

void lab_bench_run(void)
{
    lab_port_init();
    LAB_CHECK(lab_task_create(&activate_controller, "ctrl", activate_controller_task, 0, ACTIVATE_PRIO_CONTROLLER,
                              activate_controller_stack, ACTIVATE_STACK_WORDS) == LAB_OK);
    lab_port_start();
}
