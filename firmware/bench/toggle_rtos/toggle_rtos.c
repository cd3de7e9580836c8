/*
 * toggle_rtos: seed 002's FreeRTOS version, through lab/port.h. Workload:
 * firmware/workloads/toggle (toggle.h describes the rounds and the metrics).
 *
 * Tasks: a coordinator (priority 3) and one task per toggling task (priority 2, all
 * equal: the kernel time-slices them, round-robin at every tick). The coordinator begins
 * a round (probe "origin"), notifies every task (they become ready but cannot run: the
 * coordinator is more urgent) and waits for its own notification; the tasks then run.
 * The task that finishes the round notifies the coordinator, which preempts it and starts
 * the next round at once, so rounds run back to back and the tick falls at a different
 * point in each.
 *
 * Scale: with -icount shift=0 one instruction is 1 ns of virtual time and SysTick counts
 * the 25 MHz board clock, so a 1 kHz tick (configTICK_RATE_HZ=1000, the default) is one
 * time slice of 1,000,000 instructions, while one task's 8000 writes take about 40,000
 * instructions at -O2 and 90,000 at -O0. At 1 kHz the tasks therefore mostly run one
 * after the other, as in the super loop, with the kernel's switching cost added; raise
 * configTICK_RATE_HZ (10000: 100,000-instruction slices; 100000: 10,000) to see time
 * slicing interleave them.
 */
#include <stdint.h>

#include "lab/bench.h"
#include "lab/port.h"
#include "toggle.h"

#if !LAB_HAS_SCHEDULER || !LAB_HAS_NOTIFY
#error "toggle_rtos needs LAB_HAS_SCHEDULER and LAB_HAS_NOTIFY"
#endif

#define COORD_PRIO 3u
#define TASK_PRIO 2u
/* Each task's stack, in the port's stack words (bytes on the AVR): -DTOGGLE_STACK_WORDS=N
 * for a small part (examples/superloop-vs-rtos-uno.toml: 2 KiB of SRAM). A multiple of 8
 * keeps the slices 8-aligned. */
#ifndef TOGGLE_STACK_WORDS
#define TOGGLE_STACK_WORDS 256u
#endif
#define STACK_WORDS (TOGGLE_STACK_WORDS)
_Static_assert(STACK_WORDS % 8u == 0u, "TOGGLE_STACK_WORDS must be a multiple of 8");

static lab_task_t coordinator;
static LAB_STACK_DEFINE(coordinator_stack, STACK_WORDS);
static lab_task_t tasks[TOGGLE_TASKS];
/* One stack area cut into TOGGLE_TASKS stacks (STACK_WORDS keeps each slice 8-aligned). */
static LAB_STACK_DEFINE(task_stacks, TOGGLE_TASKS * STACK_WORDS);

static void toggle_task(void *arg)
{
    uint32_t k = (uint32_t)(uintptr_t)arg;
    for (;;) {
        (void)lab_notify_wait(LAB_WAIT_FOREVER);
        if (toggle_part[k](0u, TOGGLE_COUNT) == TOGGLE_ROUND_DONE) {
            lab_notify(&coordinator);
        }
    }
}

static void coordinator_task(void *arg)
{
    (void)arg;
    for (;;) {
        toggle_round_begin();
        for (uint32_t k = 0; k < (uint32_t)TOGGLE_TASKS; k++) {
            lab_notify(&tasks[k]);
        }
        LAB_CHECK(lab_notify_wait(LAB_WAIT_FOREVER) == 1u);
        if (!toggle_round_end()) {
            toggle_report();
            lab_finish();
        }
    }
}

void lab_bench_run(void)
{
    lab_port_init();
    toggle_init();
    for (uint32_t k = 0; k < (uint32_t)TOGGLE_TASKS; k++) {
        LAB_CHECK(lab_task_create(&tasks[k], "toggle", toggle_task, (void *)(uintptr_t)k, TASK_PRIO,
                                  &task_stacks[k * STACK_WORDS], STACK_WORDS) == LAB_OK);
    }
    LAB_CHECK(lab_task_create(&coordinator, "coord", coordinator_task, 0, COORD_PRIO, coordinator_stack,
                              STACK_WORDS) == LAB_OK);
    lab_port_start();
}
