/*
 * k_activate_x: task activation on the OTHER core (seed 003's act_tsk, TOPPERS FMP3 with
 * the activated task on another processor). The same-core activation on an SMP kernel is
 * k_activate itself (lab_task_create pins a task to the caller's core, lab/port.h
 * "several cores").
 *
 *   activate_switch_x  probe 2 (controller C on core 0, priority 2, just before
 *                      lab_task_create_on(core 1) of a priority-3 task)
 *                   -> probe 3 (first statement of the new task's entry, on core 1)
 *                      = creation, the kernel's cross-core yield request (the doorbell),
 *                      core 1's interrupt entry and its dispatch to the new task.
 *
 * The two probes run on different cores, so the host measures the interval on the
 * shared clock (docs/timing-model.md "Two cores": all cores' work between the stores, in
 * the order the emulator interleaved it). Core 1 idles (WFI) until the doorbell; core 0
 * hands the emulator to core 1 as soon as its create returns (XCORE_HAND_OVER), so
 * that is the work along the causal path: core 0's whole create (it rings core 1 while it
 * holds the kernel lock) and core 1's wake-up, interrupt entry, wait for that lock and
 * dispatch, the two cores' work added, never overlapped.
 *
 * Each round C then sleeps one tick (unmeasured): while core 0 idles, core 1 finishes the
 * round (the new task suspends itself, core 1 goes idle), so every round starts with core
 * 1 idle and no work of the previous round left in the next interval. C then deletes the
 * suspended task and reuses its storage. ACTIVATE_X_ROUNDS samples.
 *
 * Self-check: the new task records the round C published and the core it ran on; after
 * the tick each round it must have run exactly once, in this round, on core 1, and C must
 * be on core 0. A kernel configuration that schedules one core only (lab_port_cores() < 2)
 * cannot activate a task on another core: the run ends LAB_EXIT_UNSUPPORTED with the
 * reason (the host reports n/a), never a number.
 */
#include "lab/bench.h"
#include "lab/port.h"
#include "lab/target.h"
#include "xcore.h" /* XCORE_HAND_OVER (firmware/workloads/xcore) */

#include <stddef.h>

#if !LAB_HAS_SCHEDULER || !LAB_HAS_TASK_CREATE_DELETE || !LAB_HAS_SUSPEND || !LAB_HAS_DELAY || !LAB_HAS_SMP
#error "k_activate_x needs LAB_HAS_SCHEDULER, LAB_HAS_TASK_CREATE_DELETE, LAB_HAS_SUSPEND, LAB_HAS_DELAY and LAB_HAS_SMP"
#endif

#define ACTIVATE_X_ROUNDS 1000u
#define ACTIVATE_X_STACK_WORDS 256u
#define ACTIVATE_X_PRIO_CONTROLLER 2u
#define ACTIVATE_X_CORE_OTHER 1u

LAB_INTERVAL(activate_switch_x, 2, 3,
             "create a higher-prio task on the other core -> first statement of its entry there");

static lab_task_t activate_x_controller, activate_x_new;
static LAB_STACK_DEFINE(activate_x_controller_stack, ACTIVATE_X_STACK_WORDS);
static LAB_STACK_DEFINE(activate_x_new_stack, ACTIVATE_X_STACK_WORDS);

static volatile uint32_t activate_x_round;
static volatile uint32_t activate_x_seen;
static volatile uint32_t activate_x_runs;
static volatile uint32_t activate_x_core;

static void activate_x_high_entry(void *arg)
{
    (void)arg;
    LAB_PROBE(3);
    activate_x_core = lab_target_core_id();
    activate_x_seen = activate_x_round;
    activate_x_runs = activate_x_runs + 1u;
    lab_task_suspend(NULL); /* the controller deletes it from here */
    lab_fail(__FILE__, __LINE__, "activated task resumed after it was deleted");
}

static void activate_x_controller_task(void *arg)
{
    (void)arg;
    for (uint32_t i = 1; i <= ACTIVATE_X_ROUNDS; i++) {
        activate_x_round = i;
        activate_x_core = 0xFFFFFFFFu;
        LAB_PROBE(2);
        int rc = lab_task_create_on(&activate_x_new, "act_x", activate_x_high_entry, 0,
                                    ACTIVATE_X_PRIO_CONTROLLER + 1u, activate_x_new_stack,
                                    ACTIVATE_X_STACK_WORDS, ACTIVATE_X_CORE_OTHER);
        XCORE_HAND_OVER();
        LAB_CHECK(rc == LAB_OK);
        lab_task_delay(1); /* core 1 finishes the round while core 0 idles */
        LAB_CHECK(activate_x_runs == i && activate_x_seen == i);
        LAB_CHECK(activate_x_core == ACTIVATE_X_CORE_OTHER);
        LAB_CHECK(lab_target_core_id() == 0u);
        lab_task_delete(&activate_x_new);
    }
    lab_finish();
}

void lab_bench_run(void)
{
    lab_port_init();
    if (lab_port_cores() < 2u) {
        lab_fail_status(LAB_EXIT_UNSUPPORTED, "the kernel schedules 1 core in this configuration "
                                              "(lab_port_cores() = 1): activating a task on another core needs 2");
    }
    LAB_CHECK(lab_task_create(&activate_x_controller, "ctrl", activate_x_controller_task, 0,
                              ACTIVATE_X_PRIO_CONTROLLER, activate_x_controller_stack,
                              ACTIVATE_X_STACK_WORDS) == LAB_OK);
    lab_port_start();
}
