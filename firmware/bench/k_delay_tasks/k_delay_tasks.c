/*
 * k_delay_tasks: seed 001's delay experiment. Five tasks Task1..Task5 of descending
 * priority (lab priorities 6..2) each loop: delay 50 ms of the board's time, then a short
 * body (the seed toggled a pin high at the start of the body and low at its end; here the
 * board's output register, lab_target_output_reg(), is written 8 times, high first, low
 * last). All five wake on the same tick, so they run one after the other in priority order.
 *
 * Per task k (1..5), DELAY_TASKS_SAMPLES samples of each:
 *
 *   taskK_delay   since probe 2k+1 (TaskK, just before lab_task_delay(ticks)) ->
 *                 probe 2k+2 (TaskK, first statement after it returns): the delay as the
 *                 task sees it, what the seed's table reports per task. A since-metric
 *                 (one sample per wake-up probe, from the latest call probe) rather than an
 *                 interval, so that the tasks never leave their loop: Task5's body ends the
 *                 run, and the call probes Task1..Task4 hit in that last round simply
 *                 stay without a sample.
 *   taskK_wake    since probe 2 (the tick hook, lab_tick_hook_enter, on every tick) ->
 *                 probe 2k+2: from the expiring tick's handler to TaskK running again; the
 *                 tasks woken before it (and their bodies) are inside it.
 *
 * Every round runs the same code, so every sample is a steady-state one: the start-up
 * wake-up (round 0, from lab_task_delay(1) so that all five wake on one tick) enters the
 * loop at the body after hitting the task's call probe in place of its wake-up probe (the
 * same three instructions; no sample, since the round's own call probe follows before any
 * wake-up probe), and dt_before starts one delay before the start-up tick so the start-up
 * body's checks take the branches of every other round. What remains of the start-up is
 * the loop's back branch, which the start-up path does not take: the first sample of a
 * task reads a few cycles shorter than the others.
 *
 * On the one clock (docs/timing-model.md, "One clock") the tick fires at modelled cycles
 * and the idle task's sleeps (WFI) count as the time they last, so both are measured
 * directly across real ticks. A relative delay of N ticks ends at the Nth tick interrupt
 * after the call, so, sample by sample,
 *   taskK_delay = N x tick period - (call's offset into its tick period) + taskK_wake,
 * and in the steady state a task calls its delay in the tick period it woke in: its call
 * offset is its own taskK_wake plus its body. The wake-up offset then cancels and each
 * task reads N x tick period minus its own body and loop, whatever its rank.
 *
 * The 50 ms are the board's: ticks = DELAY_MS x lab_tick_rate_hz() / 1000, which must be a
 * whole number (checked; 50 at the default 1 kHz). With LAB_LOG_MODE=1 or 2 (lab/log.h)
 * each task logs one line per wake-up in its body, after its probe, as seed 001 did; the
 * deferred logger's drain task takes priority 1, below Task5.
 *
 * Self-checks: each delay spans exactly `ticks` ticks of the kernel's counter (or one more
 * if a tick fell between reading the counter and the call); in every round Task1..Task5
 * wake in priority order, each exactly once (a task runs only after the one above it has
 * taken its sample of the round, and Task1 only after Task5 finished the previous round);
 * the output register reads low after each body; every task took all its samples; no
 * task used more than three quarters of its stack (painted before it was created).
 */
#include "lab/bench.h"
#include "lab/console.h"
#include "lab/log.h"
#include "lab/port.h"
#include "lab/stack.h"
#include "lab/target.h"

#if !LAB_HAS_SCHEDULER || !LAB_HAS_DELAY || !LAB_HAS_TICK || !LAB_HAS_TICK_HOOKS
#error "k_delay_tasks needs a scheduler, delays, the tick and tick hooks"
#endif

#define DT_TASKS 5u
#define DT_PRIO_TASK1 6u /* Task k runs at DT_PRIO_TASK1 + 1 - k: 6..2; lab/log.h's drain task at 1 */
#define DELAY_MS 50u
#define DELAY_TASKS_SAMPLES 100u
#define DT_BODY_WRITES 8u /* output register writes per body: 1, 0, 1, ..., 0 */
#define DT_STACK_WORDS 192u /* 5 stacks fit the 8 KiB of stm32vldiscovery; the peak is checked */

_Static_assert(LAB_PORT_PRIO_MAX >= DT_PRIO_TASK1, "k_delay_tasks needs task priorities 1..6");
_Static_assert((DT_BODY_WRITES & 1u) == 0u, "the body must end with the output low");

LAB_SINCE(task1_delay, 3, 4, "Task1 (prio 6): lab_task_delay(50 ms) called -> first statement after it returns");
LAB_SINCE(task2_delay, 5, 6, "Task2 (prio 5): lab_task_delay(50 ms) called -> first statement after it returns");
LAB_SINCE(task3_delay, 7, 8, "Task3 (prio 4): lab_task_delay(50 ms) called -> first statement after it returns");
LAB_SINCE(task4_delay, 9, 10, "Task4 (prio 3): lab_task_delay(50 ms) called -> first statement after it returns");
LAB_SINCE(task5_delay, 11, 12, "Task5 (prio 2): lab_task_delay(50 ms) called -> first statement after it returns");
LAB_SINCE(task1_wake, 2, 4, "expiring tick's handler -> Task1's first statement after its delay returns");
LAB_SINCE(task2_wake, 2, 6, "expiring tick's handler -> Task2's first statement after its delay returns");
LAB_SINCE(task3_wake, 2, 8, "expiring tick's handler -> Task3's first statement after its delay returns");
LAB_SINCE(task4_wake, 2, 10, "expiring tick's handler -> Task4's first statement after its delay returns");
LAB_SINCE(task5_wake, 2, 12, "expiring tick's handler -> Task5's first statement after its delay returns");

static lab_task_t dt_task[DT_TASKS];
static LAB_STACK_DEFINE(dt_stack1, DT_STACK_WORDS);
static LAB_STACK_DEFINE(dt_stack2, DT_STACK_WORDS);
static LAB_STACK_DEFINE(dt_stack3, DT_STACK_WORDS);
static LAB_STACK_DEFINE(dt_stack4, DT_STACK_WORDS);
static LAB_STACK_DEFINE(dt_stack5, DT_STACK_WORDS);
static lab_stack_t *const dt_stack[DT_TASKS] = {dt_stack1, dt_stack2, dt_stack3, dt_stack4, dt_stack5};

static lab_tick_t dt_ticks;                     /* the delay in ticks: 50 ms of the board */
static volatile lab_output_t *dt_out;               /* the board's output register (the "pin") */
static volatile lab_tick_t dt_before[DT_TASKS]; /* tick count read before each delay call */
static volatile uint32_t dt_rounds[DT_TASKS];   /* bodies run, per task (round 0: start-up) */
static volatile uint32_t dt_late;               /* delays that spanned ticks + 1 */

void lab_tick_hook_enter(void)
{
    LAB_PROBE(2);
}

void lab_tick_hook_exit(void) {}

/* Ends the run (Task5, in the body of its last measured wake-up). */
__attribute__((noreturn, noinline)) static void dt_finish(void)
{
    uint32_t stack_peak = 0;
    for (uint32_t j = 0; j < DT_TASKS; j++) {
        LAB_CHECK(dt_rounds[j] == DELAY_TASKS_SAMPLES + 1u);
        uint32_t peak = lab_stack_peak_bytes((uintptr_t)dt_stack[j], (uintptr_t)(dt_stack[j] + DT_STACK_WORDS));
        stack_peak = peak > stack_peak ? peak : stack_peak;
    }
    LAB_CHECK(stack_peak <= DT_STACK_WORDS * sizeof(lab_stack_t) * 3u / 4u); /* a quarter to spare */
    lab_console_put_kv("stack_peak_tasks", stack_peak);
    lab_console_put_kv("delay_ms", DELAY_MS);
    lab_console_put_kv("delay_ticks", dt_ticks);
    lab_console_put_kv("tick_rate_hz", lab_tick_rate_hz());
    lab_console_put_kv("target_clock_hz", lab_target_clock_hz());
    lab_console_put_kv("tick_cycles", lab_target_clock_hz() / lab_tick_rate_hz());
    lab_console_put_kv("late_delays", dt_late);
    lab_finish();
}

/* Everything TaskK (k = 0..4 here) does after a wake-up: checks, the body, the log. The
 * same code runs after the start-up wake (round 0) as after every measured one, and takes
 * the same branches (dt_before starts one delay before the start-up tick). */
static void dt_body(uint32_t k)
{
    lab_tick_t elapsed = lab_tick_count() - dt_before[k];
    if (elapsed != dt_ticks) {
        LAB_CHECK(elapsed == dt_ticks + 1u);
        dt_late = dt_late + 1u;
    }
    /* Priority order within the round: Task1 after Task5's previous round, TaskK after
     * Task(K-1)'s body of this round. */
    uint32_t above = k == 0u ? dt_rounds[DT_TASKS - 1u] : dt_rounds[k - 1u] - 1u;
    LAB_CHECK(dt_rounds[k] == above);
    dt_rounds[k] = dt_rounds[k] + 1u;
    for (uint32_t w = 0; w < DT_BODY_WRITES; w++) {
        *dt_out = (w & 1u) ^ 1u; /* high first, low last */
    }
    LAB_LOG("task %lu woke\n", k + 1u); /* LAB_LOG_MODE=0: no code */
    LAB_CHECK((*dt_out & 1u) == 0u);
    if (k == DT_TASKS - 1u && dt_rounds[k] == DELAY_TASKS_SAMPLES + 1u) {
        dt_finish(); /* Task5's last measured wake-up: every task has taken its samples */
    }
}

/* One task. The probe ids must be constants, so each task is its own function. The loop
 * never ends (Task5's body ends the run), so every round, the last included, runs the
 * same code; taskK_delay is a since-metric (one sample per wake-up probe, from the latest
 * call probe), so the call probe of a round that never completes is no error. The
 * start-up wake-up (round 0) hits the call probe in place of the wake-up probe: the same
 * three instructions, and no sample, since the round's own call probe comes after it. */
#define DT_TASK(K, CALL_ID, WOKE_ID)                                              \
    static void dt_task##K(void *arg)                                             \
    {                                                                             \
        (void)arg;                                                                \
        lab_task_delay(1u); /* start-up: all five wake on one tick */             \
        LAB_PROBE(CALL_ID);                                                       \
        for (;;) {                                                                \
            dt_body((K) - 1u);                                                    \
            dt_before[(K) - 1u] = lab_tick_count();                               \
            LAB_PROBE(CALL_ID);                                                   \
            lab_task_delay(dt_ticks);                                             \
            LAB_PROBE(WOKE_ID);                                                   \
        }                                                                         \
    }

DT_TASK(1, 3, 4)
DT_TASK(2, 5, 6)
DT_TASK(3, 7, 8)
DT_TASK(4, 9, 10)
DT_TASK(5, 11, 12)

void lab_bench_run(void)
{
    lab_port_init();
    const uint32_t rate = lab_tick_rate_hz();
    LAB_CHECK(rate > 0u && (DELAY_MS * rate) % 1000u == 0u); /* 50 ms is a whole number of ticks */
    dt_ticks = DELAY_MS * rate / 1000u;
    LAB_CHECK(dt_ticks >= 1u);
    dt_out = lab_target_output_reg();
    *dt_out = 0u;
    LAB_CHECK((*dt_out & 1u) == 0u);
    for (uint32_t k = 0; k < DT_TASKS; k++) {
        dt_before[k] = 1u - dt_ticks; /* the start-up wake-up, at tick 1, reads as a full delay */
    }
    static const lab_task_fn entry[DT_TASKS] = {dt_task1, dt_task2, dt_task3, dt_task4, dt_task5};
    static const char *const name[DT_TASKS] = {"task1", "task2", "task3", "task4", "task5"};
    for (uint32_t k = 0; k < DT_TASKS; k++) {
        lab_stack_paint((uintptr_t)dt_stack[k], (uintptr_t)(dt_stack[k] + DT_STACK_WORDS));
        LAB_CHECK(lab_task_create(&dt_task[k], name[k], entry[k], 0, DT_PRIO_TASK1 - k, dt_stack[k],
                                  DT_STACK_WORDS) == LAB_OK);
    }
    lab_log_start(); /* LAB_LOG_MODE=2: the drain task at priority 1; otherwise no code */
    lab_port_start();
}
