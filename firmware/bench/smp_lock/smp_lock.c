/*
 * smp_lock: critical sections of an SMP port exclude tasks on every core (lab/port.h,
 * "several cores"). A task on each core adds 1 to a shared counter LOCK_ROUNDS times, each
 * time as a read, a short wait and a write inside lab_critical_enter/exit: without mutual
 * exclusion across cores an update is lost whenever the other core writes between the
 * read and the write (under QEMU the vCPUs take turns mid-section, so that happens
 * within a few rounds). The sum must be exactly 2 * LOCK_ROUNDS. The cores also meet in
 * the kernel: each ends with a lab_task_delay, and core 0's task waits for core 1's.
 */
#include "lab/bench.h"
#include "lab/port.h"
#include "lab/target.h"

#if !LAB_HAS_SMP || !LAB_HAS_SCHEDULER || !LAB_HAS_CRITICAL || !LAB_HAS_DELAY
#error "smp_lock needs LAB_HAS_SMP, LAB_HAS_SCHEDULER, LAB_HAS_CRITICAL, LAB_HAS_DELAY"
#endif

#define LOCK_ROUNDS 20000u
#define LOCK_STACK_WORDS 256u

LAB_PERIOD(lock_round, 2, "one locked increment on core 0 (with the other core contending)");

static lab_task_t lock_tasks[2];
static LAB_STACK_DEFINE(lock_stack0, LOCK_STACK_WORDS);
static LAB_STACK_DEFINE(lock_stack1, LOCK_STACK_WORDS);
static volatile uint32_t lock_counter;
static volatile uint32_t lock_done[2];

static void lock_entry(void *arg)
{
    uint32_t core = (uint32_t)(uintptr_t)arg;
    LAB_CHECK(lab_target_core_id() == core);
    for (uint32_t i = 0; i < LOCK_ROUNDS; i++) {
        if (core == 0u) {
            LAB_PROBE(2);
        }
        lab_critical_enter();
        uint32_t v = lock_counter;
        for (volatile uint32_t w = 0; w < 4u; w++) {
        }
        lock_counter = v + 1u;
        lab_critical_exit();
    }
    lock_done[core] = 1u;
    if (core == 0u) {
        while (lock_done[1] == 0u) {
            lab_task_delay(1u);
        }
        LAB_CHECK(lock_counter == 2u * LOCK_ROUNDS);
        lab_finish();
    }
    for (;;) {
        lab_task_delay(1000u);
    }
}

void lab_bench_run(void)
{
    lab_port_init();
    if (lab_port_cores() < 2u) {
        lab_fail_status(LAB_EXIT_UNSUPPORTED, "smp_lock: the kernel schedules one core (labSMP_START_CORES = 1)");
    }
    LAB_CHECK(lab_task_create_on(&lock_tasks[0], "lock0", lock_entry, (void *)0u, 2u, lock_stack0, LOCK_STACK_WORDS,
                                 0u) == LAB_OK);
    LAB_CHECK(lab_task_create_on(&lock_tasks[1], "lock1", lock_entry, (void *)1u, 2u, lock_stack1, LOCK_STACK_WORDS,
                                 1u) == LAB_OK);
    lab_port_start();
}
