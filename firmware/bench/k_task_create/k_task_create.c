/*
 * k_task_create: the cost of creating and of deleting a task, neither causing a switch.
 *
 * The controller C (priority 3) creates a priority-1 task (less urgent: it never runs)
 * and deletes it again, TC_ROUNDS times, reusing the same storage and stack:
 *
 *   task_create  probe 2 (C, just before lab_task_create) -> probe 3 (right after it returns)
 *   task_delete  probe 4 (C, just before lab_task_delete of the ready, never-run task)
 *             -> probe 5 (right after it returns)
 *
 * With the port's static allocation (FreeRTOS default) neither allocates memory; the
 * FreeRTOS option labSTATIC_ALLOCATION = false measures the heap_4 paths instead.
 * task_create measures the same call as k_activate's activate_noswitch (a cross-check).
 *
 * Self-check: every create returns LAB_OK and no deleted child ever runs; and a created
 * task must really be ready: after the last round C creates one more child and
 * suspends itself, and that child must run (it ends the run).
 */
#include "lab/bench.h"
#include "lab/port.h"

#if !LAB_HAS_SCHEDULER || !LAB_HAS_TASK_CREATE_DELETE || !LAB_HAS_SUSPEND
#error "k_task_create needs LAB_HAS_SCHEDULER, LAB_HAS_TASK_CREATE_DELETE and LAB_HAS_SUSPEND"
#endif

#define TC_ROUNDS 1000u
#define TC_STACK_WORDS 256u

LAB_INTERVAL(task_create, 2, 3, "create a lower-prio task (no switch): call -> return");
LAB_INTERVAL(task_delete, 4, 5, "delete that ready, never-run task: call -> return");

static lab_task_t tc_controller, tc_child;
static LAB_STACK_DEFINE(tc_controller_stack, TC_STACK_WORDS);
static LAB_STACK_DEFINE(tc_child_stack, TC_STACK_WORDS);

static volatile uint32_t tc_child_runs;

static void tc_child_task(void *arg)
{
    (void)arg;
    tc_child_runs = tc_child_runs + 1u;
    if (arg != 0) {
        lab_finish(); /* the final, surviving child: proof it was really ready */
    }
    lab_fail(__FILE__, __LINE__, "a child task ran before it was deleted");
}

static void tc_controller_task(void *arg)
{
    (void)arg;
    for (uint32_t i = 0; i < TC_ROUNDS; i++) {
        LAB_PROBE(2);
        int rc = lab_task_create(&tc_child, "child", tc_child_task, 0, 1u, tc_child_stack, TC_STACK_WORDS);
        LAB_PROBE(3);
        LAB_CHECK(rc == LAB_OK);
        LAB_PROBE(4);
        lab_task_delete(&tc_child);
        LAB_PROBE(5);
    }
    LAB_CHECK(tc_child_runs == 0u);
    /* One last child, left alive: when the controller stops competing it must run. */
    LAB_CHECK(lab_task_create(&tc_child, "child", tc_child_task, (void *)1, 1u, tc_child_stack, TC_STACK_WORDS) ==
              LAB_OK);
    lab_task_suspend(NULL);
    lab_fail(__FILE__, __LINE__, "controller resumed");
}

void lab_bench_run(void)
{
    lab_port_init();
    LAB_CHECK(lab_task_create(&tc_controller, "ctrl", tc_controller_task, 0, 3u, tc_controller_stack,
                              TC_STACK_WORDS) == LAB_OK);
    lab_port_start();
}
