/*
 * smp_pin: where tasks run on an SMP port (lab/port.h, "several cores"), checked on the
 * cores themselves with lab_target_core_id().
 *
 * Per round (PIN_ROUNDS), controller C (core 0 by lab_task_create before the start,
 * priority 2):
 *   probe 2  just before lab_task_create_on(O, core 1, priority 3)
 *   probe 3  first statement of O, on core 1            -> metric create_on_other_core
 * O records its core, then creates G with lab_task_create at priority 4: G must land on
 * O's core (1) and, being more urgent there, run before the create returns. O gives the
 * semaphore C waits on (a wake across cores) and suspends itself; C checks everything and
 * deletes G and O. lab_task_create_on with a core beyond lab_port_cores() must fail.
 *
 * A kernel that schedules one core (labSMP_START_CORES = 1) cannot place a task on core 1:
 * the run ends as unsupported, with the reason.
 */
#include "lab/bench.h"
#include "lab/port.h"
#include "lab/target.h"

#if !LAB_HAS_SMP || !LAB_HAS_SCHEDULER || !LAB_HAS_TASK_CREATE_DELETE || !LAB_HAS_SUSPEND || !LAB_HAS_SEMAPHORE
#error "smp_pin needs LAB_HAS_SMP, LAB_HAS_SCHEDULER, LAB_HAS_TASK_CREATE_DELETE, LAB_HAS_SUSPEND, LAB_HAS_SEMAPHORE"
#endif

#define PIN_ROUNDS 50u
#define PIN_STACK_WORDS 256u

LAB_INTERVAL(create_on_other_core, 2, 3, "create a task on core 1 from core 0 -> its first statement on core 1");

static lab_task_t pin_controller, pin_other, pin_grand;
static LAB_STACK_DEFINE(pin_controller_stack, PIN_STACK_WORDS);
static LAB_STACK_DEFINE(pin_other_stack, PIN_STACK_WORDS);
static LAB_STACK_DEFINE(pin_grand_stack, PIN_STACK_WORDS);
static lab_sem_t pin_done;

static volatile uint32_t pin_other_core;
static volatile uint32_t pin_grand_core;
static volatile uint32_t pin_other_runs;
static volatile uint32_t pin_grand_runs;
static volatile uint32_t pin_grand_before_return;

static void pin_grand_entry(void *arg)
{
    (void)arg;
    pin_grand_core = lab_target_core_id();
    pin_grand_runs = pin_grand_runs + 1u;
    lab_task_suspend(NULL);
    lab_fail(__FILE__, __LINE__, "grandchild resumed after it was deleted");
}

static void pin_other_entry(void *arg)
{
    (void)arg;
    LAB_PROBE(3);
    pin_other_core = lab_target_core_id();
    pin_other_runs = pin_other_runs + 1u;
    uint32_t before = pin_grand_runs;
    LAB_CHECK(lab_task_create(&pin_grand, "grand", pin_grand_entry, 0, 4u, pin_grand_stack, PIN_STACK_WORDS) ==
              LAB_OK);
    pin_grand_before_return = pin_grand_runs - before;
    LAB_CHECK(lab_sem_give(&pin_done) == LAB_OK);
    lab_task_suspend(NULL);
    lab_fail(__FILE__, __LINE__, "task on core 1 resumed after it was deleted");
}

static void pin_controller_task(void *arg)
{
    (void)arg;
    if (lab_port_cores() < 2u) {
        lab_fail_status(LAB_EXIT_UNSUPPORTED, "smp_pin: the kernel schedules one core (labSMP_START_CORES = 1)");
    }
    LAB_CHECK(lab_target_core_id() == 0u);
    LAB_CHECK(lab_task_create_on(&pin_other, "bad", pin_other_entry, 0, 3u, pin_other_stack, PIN_STACK_WORDS,
                                 lab_port_cores()) == LAB_ERR_FAIL);
    for (uint32_t i = 1; i <= PIN_ROUNDS; i++) {
        pin_other_core = 99u;
        pin_grand_core = 99u;
        LAB_PROBE(2);
        LAB_CHECK(lab_task_create_on(&pin_other, "other", pin_other_entry, 0, 3u, pin_other_stack, PIN_STACK_WORDS,
                                     1u) == LAB_OK);
        LAB_CHECK(lab_sem_take(&pin_done, LAB_WAIT_FOREVER) == LAB_OK);
        LAB_CHECK(pin_other_runs == i && pin_grand_runs == i);
        LAB_CHECK(pin_other_core == 1u);
        LAB_CHECK(pin_grand_core == 1u);
        LAB_CHECK(pin_grand_before_return == 1u);
        LAB_CHECK(lab_target_core_id() == 0u);
        lab_task_delete(&pin_grand);
        lab_task_delete(&pin_other);
    }
    lab_finish();
}

void lab_bench_run(void)
{
    lab_port_init();
    LAB_CHECK(lab_sem_create(&pin_done, 0u, 1u) == LAB_OK);
    LAB_CHECK(lab_task_create(&pin_controller, "ctrl", pin_controller_task, 0, 2u, pin_controller_stack,
                              PIN_STACK_WORDS) == LAB_OK);
    lab_port_start();
}
