/*
 * k_irq_latency: interrupt latency when the system is idle (seed 001's interrupt
 * response time). Runs on every port with LAB_HAS_IRQ, bare metal included, so kernel
 * numbers have a baseline; k_irq_latency_loaded is the same measurement with busy tasks.
 *
 * The trigger must come at times unrelated to the interrupted code, so it comes from the
 * target's periodic benchmark timer (lab_target_timer_start, every IRQ_TIMER_PERIOD
 * target clock cycles) at lab_port_irq_prio_unmanaged(), which no kernel critical
 * section masks. Its handler hits probe 2 and raises the measured interrupt, a free line
 * installed at lab_port_irq_prio_kernel() (the level of interrupts that use the kernel),
 * whose handler hits probe 3 first thing:
 *
 *   irq_latency_idle  probe 2 (timer handler, just before lab_target_irq_trigger)
 *                  -> probe 3 (first statement of the measured handler)
 *   = raising the IRQ (NVIC STIR write and barriers), the return from the timer handler
 *     (tail-chained into the measured one), plus whatever masks the measured level at
 *     that moment. Exception entry itself costs no instructions. The floor (the mode on
 *     bare metal) is this path's own cost.
 *
 * Idle means: on a port with a scheduler and delays, one task waits in lab_task_delay
 * while the kernel idles (its idle task and its tick interrupt run); on bare metal (or
 * without delays) main() spins on a counter. IRQ_SAMPLES samples.
 *
 * Self-check: the measured handler ran exactly once per trigger. A timer tick that finds
 * the previous trigger still pending (masked for a whole timer period) raises nothing; the
 * run reports how many as LAB-KV irq_triggers_skipped.
 */
#include "lab/bench.h"
#include "lab/console.h"
#include "lab/port.h"
#include "lab/target.h"

#include "irq_latency.h" /* the trigger and the measured handler (workloads/irq_latency) */

#if !LAB_HAS_IRQ
#error "k_irq_latency needs LAB_HAS_IRQ"
#endif

#define IRQ_STACK_WORDS 256u

LAB_INTERVAL(irq_latency_idle, 2, 3, "timer ISR raises IRQ (idle system) -> first statement of that IRQ's handler");

static void irq_start(void)
{
    irq_line = lab_target_irq_soft(0);
    LAB_CHECK(lab_target_irq_install(irq_line, irq_measured_handler, lab_port_irq_prio_kernel()) == 0);
    LAB_CHECK(lab_target_timer_start(IRQ_TIMER_PERIOD, irq_timer_handler, lab_port_irq_prio_unmanaged()) == 0);
}

static void irq_stop_and_check(void)
{
    lab_target_timer_stop();
    LAB_CHECK(irq_handled == IRQ_SAMPLES && irq_triggered == IRQ_SAMPLES);
    lab_target_irq_remove(irq_line);
    lab_console_put_kv("irq_triggers_skipped", irq_skipped);
    lab_finish();
}

#if LAB_HAS_SCHEDULER && LAB_HAS_DELAY

static lab_task_t irq_waiter;
static LAB_STACK_DEFINE(irq_waiter_stack, IRQ_STACK_WORDS);

static void irq_waiter_task(void *arg)
{
    (void)arg;
    irq_start();
    while (irq_handled < IRQ_SAMPLES) {
        lab_task_delay(1);
    }
    irq_stop_and_check();
}

void lab_bench_run(void)
{
    lab_port_init();
    LAB_CHECK(lab_task_create(&irq_waiter, "waiter", irq_waiter_task, 0, 1u, irq_waiter_stack, IRQ_STACK_WORDS) ==
              LAB_OK);
    lab_log_start(); /* LAB_LOG_MODE=2: the drain task; otherwise no code */
    lab_port_start();
}

#else /* no scheduler: main() is the idle loop */

void lab_bench_run(void)
{
    lab_port_init();
    irq_start();
    while (irq_handled < IRQ_SAMPLES) {
        LAB_BARRIER();
    }
    irq_stop_and_check();
}

#endif
