/*
 * k_irq_latency_loaded: interrupt latency while tasks keep the kernel busy. The same
 * measurement as k_irq_latency (read its header), with a real background load, so the
 * trigger often lands while the kernel (or a task) has the measured level masked:
 *
 *   irq_latency_loaded  probe 2 (timer handler, just before lab_target_irq_trigger)
 *                    -> probe 3 (first statement of the measured handler)
 *   = the same floor as irq_latency_idle plus, when the trigger lands in a critical
 *     section (a kernel call's, the tick's, the context switch's, or a task's own
 *     lab_critical_enter), the rest of that section.
 *
 * Background (never measured):
 *   producer (priority 2)  sends a counter to queue q (the consumer preempts it), takes
 *                          the consumer's acknowledgement semaphore, then updates shared
 *                          state inside lab_critical_enter / lab_critical_exit;
 *   consumer (priority 3)  receives from q, updates shared state in a critical section,
 *                          gives the acknowledgement;
 *   controller (priority 4) sleeps one tick at a time (a wake-up and two switches per
 *                          tick) until enough samples are in, then ends the run.
 * The timer runs at lab_port_irq_prio_unmanaged(), above every kernel mask, so its
 * triggers land anywhere in that mix. IRQ_SAMPLES samples, one every LOAD_TIMER_PERIOD
 * cycles: 4999 (200 us at 25 MHz, a 5 kHz interrupt load) leaves the background several
 * round trips between two triggers on the one clock (k_irq_latency's 499 left it less
 * than one, so the triggers mostly landed in the same few places), and is no divisor of a
 * 1 kHz tick's period, so the triggers drift across the tick.
 *
 * Self-check: the measured handler ran once per trigger (triggers skipped because the
 * previous one was still masked are reported as LAB-KV irq_triggers_skipped); the
 * consumer received every
 * counter in order; the background completed at least LOAD_MIN_ROUNDS round trips while
 * the samples were taken (it really ran).
 */
#include "lab/bench.h"
#include "lab/console.h"
#include "lab/port.h"
#include "lab/target.h"

#include "bg_load.h"
#include "irq_latency.h" /* the trigger and the measured handler (workloads/irq_latency) */

#if !LAB_HAS_SCHEDULER || !LAB_HAS_IRQ || !LAB_HAS_DELAY || !LAB_HAS_QUEUE || !LAB_HAS_SEMAPHORE || \
    !LAB_HAS_CRITICAL
#error "k_irq_latency_loaded needs a scheduler, IRQs, delays, queues, semaphores and critical sections"
#endif

#define LOAD_STACK_WORDS 256u
#define LOAD_MIN_ROUNDS 1000u
#define LOAD_TIMER_PERIOD 4999u

LAB_INTERVAL(irq_latency_loaded, 2, 3, "timer ISR raises IRQ (tasks busy in kernel calls) -> first statement of its handler");

static lab_task_t load_controller;
static LAB_STACK_DEFINE(load_controller_stack, LOAD_STACK_WORDS);

static void load_controller_task(void *arg)
{
    (void)arg;
    irq_line = lab_target_irq_soft(0);
    LAB_CHECK(lab_target_irq_install(irq_line, irq_measured_handler, lab_port_irq_prio_kernel()) == 0);
    uint32_t rounds_at_start = bg_load_rounds();
    LAB_CHECK(lab_target_timer_start(LOAD_TIMER_PERIOD, irq_timer_handler, lab_port_irq_prio_unmanaged()) == 0);
    while (irq_handled < IRQ_SAMPLES) {
        lab_task_delay(1);
    }
    lab_target_timer_stop();
    uint32_t rounds = bg_load_rounds() - rounds_at_start;
    LAB_CHECK(irq_handled == IRQ_SAMPLES && irq_triggered == IRQ_SAMPLES);
    LAB_CHECK(bg_load_out_of_order() == 0u);
    LAB_CHECK(rounds >= LOAD_MIN_ROUNDS);
    lab_target_irq_remove(irq_line);
    lab_console_put_kv("irq_triggers_skipped", irq_skipped);
    lab_console_put_kv("background_rounds", rounds);
    lab_finish();
}

void lab_bench_run(void)
{
    lab_port_init();
    bg_load_start(2u, 3u); /* producer below consumer, both below the controller */
    LAB_CHECK(lab_task_create(&load_controller, "ctrl", load_controller_task, 0, 4u, load_controller_stack,
                              LOAD_STACK_WORDS) == LAB_OK);
    lab_port_start();
}
