/*
 * k_coro_switch: seed 001's context-switch kinds in a system that has both preemptive
 * threads and async coroutines: a stackless-coroutine executor (workloads/coro/coro.h)
 * runs in kernel thread E beside preemptive threads (docs/execution-models.md, "Threads
 * with coroutines").
 *
 * The seed timed each switch from its kernel's scheduler entry (IntCtxSW, called once a
 * more urgent context was made ready) to the end of the context switch (PendSV done, the
 * next context running). Here the scheduler entry is the call that hands the decision to
 * the kernel once the wake-up is done: lab_port_isr_exit(woken) in an interrupt handler
 * (the kernel's deferred switch, PendSV on Cortex-M), or the executor's blocking wait when
 * it has nothing left to poll; the end is the next context's first statement.
 *
 * Threads: H1 and H2 (priority 4) wait for notifications; E (priority 3) runs the
 * executor with coroutine C; L (priority 2) runs the rounds. A software interrupt at
 * lab_port_irq_prio_kernel() does the wake-ups:
 *
 *   thread_to_thread     L runs; the handler notifies H1 (lab_notify_from_isr),
 *                        probe 2 just before lab_port_isr_exit -> probe 3, H1's first
 *                        statement after its lab_notify_wait returns
 *   thread_to_coroutine  L runs; the handler wakes C (coro_wake_from_isr: C queued,
 *                        E notified), probe 4 just before lab_port_isr_exit -> probe 5,
 *                        C's first statement after its CORO_AWAIT (the kernel's switch
 *                        to E, E's return from its wait, the run-queue pop, the poll and
 *                        the jump to C's resume point)
 *   coroutine_to_thread  C awaits again and E finds nothing to poll: probe 6 in the
 *                        executor's idle path, just before its lab_notify_wait (E blocks)
 *                        -> probe 7, L's first statement after the lab_target_irq_trigger
 *                        that started the thread_to_coroutine round (the seed's case: the
 *                        coroutine has finished its poll and gives the processor back)
 *   coroutine_preempted_to_thread  while C runs it raises the interrupt, whose handler
 *                        notifies H2: probe 8 just before lab_port_isr_exit -> probe 9,
 *                        H2's first statement after its wait (C, inside E, is preempted
 *                        like any thread; it keeps E's stack)
 *
 * Stacks: no switch allocates or releases one. C has no stack of its own: it runs on E's
 * (allocated once, at creation), and between polls its state is its frame (coro_t, 16
 * bytes). After the measured part the image prints coro_frame_bytes and the stack peaks
 * (stack_peak_executor, _l, _h1, _h2).
 *
 * CORO_ROUNDS samples of each. Self-check: every handler call reported a more urgent
 * thread woken; after each trigger returns to L the woken context has run exactly once
 * more (H1 for thread_to_thread; C, which itself made H2 run once, for the coroutine
 * round).
 */
#include <stdbool.h>
#include <stdint.h>

#include "lab/bench.h"
#include "lab/console.h"
#include "lab/port.h"
#include "lab/stack.h"
#include "lab/target.h"

#if !LAB_HAS_SCHEDULER || !LAB_HAS_IRQ || !LAB_HAS_NOTIFY || !LAB_HAS_CRITICAL
#error "k_coro_switch needs LAB_HAS_SCHEDULER, LAB_HAS_IRQ, LAB_HAS_NOTIFY and LAB_HAS_CRITICAL"
#endif

/* The executor's idle path: probe 6 once per round, armed by C before it awaits (the
 * executor also idles once at start, before any round). The test is before the probe. */
static volatile uint32_t coro_idle_armed;
#define CORO_IDLE_HOOK()              \
    do {                              \
        if (coro_idle_armed != 0u) {  \
            coro_idle_armed = 0u;     \
            LAB_PROBE(6);             \
        }                             \
    } while (0)
#include "coro.h"

#define CORO_ROUNDS 1000u
#define CORO_STACK_WORDS 256u

LAB_INTERVAL(thread_to_thread, 2, 3, "ISR woke a thread: lab_port_isr_exit -> its first statement");
LAB_INTERVAL(thread_to_coroutine, 4, 5, "ISR woke a coroutine: lab_port_isr_exit -> its first statement after the await");
LAB_INTERVAL(coroutine_to_thread, 6, 7, "coroutine awaited, executor idle: its wait -> the thread's first statement");
LAB_INTERVAL(coroutine_preempted_to_thread, 8, 9, "ISR woke a thread during a coroutine: isr_exit -> its first statement");

enum { MODE_TT = 1, MODE_TC = 2, MODE_CT = 3 };

static lab_task_t th_h1, th_h2, th_exec, th_l;
static LAB_STACK_DEFINE(stack_h1, CORO_STACK_WORDS);
static LAB_STACK_DEFINE(stack_h2, CORO_STACK_WORDS);
static LAB_STACK_DEFINE(stack_exec, CORO_STACK_WORDS);
static LAB_STACK_DEFINE(stack_l, CORO_STACK_WORDS);

static coro_exec_t exec;
static coro_t coro_c;
static uint32_t irq;

static volatile uint32_t mode;
static volatile uint32_t not_woken;
static volatile uint32_t h1_wakeups;
static volatile uint32_t h2_wakeups;
static volatile uint32_t c_resumes;

static void irq_handler(void)
{
    bool woken = false;
    lab_port_isr_enter();
    uint32_t m = mode;
    if (m == MODE_TT) {
        lab_notify_from_isr(&th_h1, &woken);
        not_woken = not_woken + (woken ? 0u : 1u);
        LAB_PROBE(2);
    } else if (m == MODE_TC) {
        coro_wake_from_isr(&exec, &coro_c, &woken);
        not_woken = not_woken + (woken ? 0u : 1u);
        LAB_PROBE(4);
    } else {
        lab_notify_from_isr(&th_h2, &woken);
        not_woken = not_woken + (woken ? 0u : 1u);
        LAB_PROBE(8);
    }
    lab_port_isr_exit(woken);
}

static void h1_main(void *arg)
{
    (void)arg;
    for (;;) {
        uint32_t n = lab_notify_wait(LAB_WAIT_FOREVER);
        LAB_PROBE(3);
        LAB_CHECK(n == 1u);
        h1_wakeups = h1_wakeups + 1u;
    }
}

static void h2_main(void *arg)
{
    (void)arg;
    for (;;) {
        uint32_t n = lab_notify_wait(LAB_WAIT_FOREVER);
        LAB_PROBE(9);
        LAB_CHECK(n == 1u);
        h2_wakeups = h2_wakeups + 1u;
    }
}

/* Coroutine C: each poll after the first is one thread_to_coroutine sample; it then
 * raises the interrupt that preempts it (coroutine_preempted_to_thread), and arms the
 * executor's idle probe before it awaits (coroutine_to_thread). */
static int c_body(coro_t *co)
{
    CORO_BEGIN(co);
    for (;;) {
        CORO_AWAIT(co);
        LAB_PROBE(5);
        c_resumes = c_resumes + 1u;
        mode = MODE_CT;
        lab_target_irq_trigger(irq);
        LAB_CHECK(h2_wakeups == c_resumes); /* H2 ran inside the trigger */
        coro_idle_armed = 1u;
    }
    CORO_END(co);
}

static void exec_main(void *arg)
{
    (void)arg;
    coro_exec_run(&exec);
}

static void l_main(void *arg)
{
    (void)arg;
    for (uint32_t i = 1; i <= CORO_ROUNDS; i++) {
        mode = MODE_TT;
        lab_target_irq_trigger(irq);
        LAB_CHECK(h1_wakeups == i);

        mode = MODE_TC;
        lab_target_irq_trigger(irq);
        LAB_PROBE(7);
        LAB_CHECK(c_resumes == i && h2_wakeups == i && coro_idle_armed == 0u);
    }
    LAB_CHECK(not_woken == 0u && h1_wakeups == CORO_ROUNDS);
    lab_target_irq_remove(irq);
    lab_console_put_kv("coro_frame_bytes", (uint32_t)sizeof(coro_t));
    lab_stack_report("executor", (uintptr_t)stack_exec, (uintptr_t)(stack_exec + CORO_STACK_WORDS));
    lab_stack_report("l", (uintptr_t)stack_l, (uintptr_t)(stack_l + CORO_STACK_WORDS));
    lab_stack_report("h1", (uintptr_t)stack_h1, (uintptr_t)(stack_h1 + CORO_STACK_WORDS));
    lab_stack_report("h2", (uintptr_t)stack_h2, (uintptr_t)(stack_h2 + CORO_STACK_WORDS));
    lab_finish();
}

void lab_bench_run(void)
{
    lab_port_init();
    irq = lab_target_irq_soft(0);
    LAB_CHECK(lab_target_irq_install(irq, irq_handler, lab_port_irq_prio_kernel()) == 0);
    coro_exec_init(&exec, &th_exec);
    coro_spawn(&exec, &coro_c, c_body);
    lab_stack_paint((uintptr_t)stack_exec, (uintptr_t)(stack_exec + CORO_STACK_WORDS));
    lab_stack_paint((uintptr_t)stack_l, (uintptr_t)(stack_l + CORO_STACK_WORDS));
    lab_stack_paint((uintptr_t)stack_h1, (uintptr_t)(stack_h1 + CORO_STACK_WORDS));
    lab_stack_paint((uintptr_t)stack_h2, (uintptr_t)(stack_h2 + CORO_STACK_WORDS));
    LAB_CHECK(lab_task_create(&th_h1, "h1", h1_main, 0, 4u, stack_h1, CORO_STACK_WORDS) == LAB_OK);
    LAB_CHECK(lab_task_create(&th_h2, "h2", h2_main, 0, 4u, stack_h2, CORO_STACK_WORDS) == LAB_OK);
    LAB_CHECK(lab_task_create(&th_exec, "executor", exec_main, 0, 3u, stack_exec, CORO_STACK_WORDS) == LAB_OK);
    LAB_CHECK(lab_task_create(&th_l, "l", l_main, 0, 2u, stack_l, CORO_STACK_WORDS) == LAB_OK);
    lab_port_start();
}
