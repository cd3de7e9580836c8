/*
 * k_irq_from_task: seed 001's interrupt response measured its way. Its task cleared a
 * timer, raised EXTI0 by software and the EXTI0 handler read the timer; here a task hits
 * probe 2, raises a free interrupt line (lab_target_irq_trigger: an NVIC STIR write,
 * then DSB and ISB) and the line's handler hits probe 3 first thing:
 *
 *   irq_from_task  probe 2 (the task, thread mode, just before lab_target_irq_trigger)
 *               -> probe 3 (first statement of the raised interrupt's handler)
 *   = the trigger write and barriers, the exception entry from thread mode (the
 *     processor stacks eight registers and fetches the vector) and the handler's
 *     prologue. The probes' own cost is calibrated out (the seed's timer clear and read
 *     stay in its figure).
 *
 * k_irq_latency triggers from a handler instead (a tail-chain, no stacking). With a
 * scheduler and delays the task waits one tick between samples, as the seed's task did
 * (OSTimeDly), so every trigger comes from a task that has just been switched in; on bare
 * metal (or without delays) main() raises the line back to back. The line is installed at
 * lab_port_irq_prio_kernel(). IRQ_SAMPLES samples.
 *
 * Self-check: the handler ran once per trigger, before lab_target_irq_trigger returned
 * (the line's priority is above thread mode and nothing masks it then).
 */
#include "lab/bench.h"
#include "lab/port.h"
#include "lab/target.h"

#if !LAB_HAS_IRQ
#error "k_irq_from_task needs LAB_HAS_IRQ"
#endif

#define IRQ_SAMPLES 1000u
#define IRQ_STACK_WORDS 256u

LAB_INTERVAL(irq_from_task, 2, 3, "a task raises an IRQ (thread mode) -> first statement of its handler");

static uint32_t irq_line;
static volatile uint32_t irq_handled;

static void irq_handler(void)
{
    LAB_PROBE(3);
    irq_handled = irq_handled + 1u;
}

static void irq_one(uint32_t i)
{
    LAB_PROBE(2);
    lab_target_irq_trigger(irq_line);
    LAB_CHECK(irq_handled == i + 1u); /* after probe 3: outside the interval */
}

static void irq_setup(void)
{
    irq_line = lab_target_irq_soft(0);
    LAB_CHECK(lab_target_irq_install(irq_line, irq_handler, lab_port_irq_prio_kernel()) == 0);
}

static void irq_done(void)
{
    LAB_CHECK(irq_handled == IRQ_SAMPLES);
    lab_target_irq_remove(irq_line);
    lab_finish();
}

#if LAB_HAS_SCHEDULER && LAB_HAS_DELAY

static lab_task_t irq_task;
static LAB_STACK_DEFINE(irq_task_stack, IRQ_STACK_WORDS);

static void irq_task_body(void *arg)
{
    (void)arg;
    irq_setup();
    for (uint32_t i = 0u; i < IRQ_SAMPLES; i++) {
        lab_task_delay(1);
        irq_one(i);
    }
    irq_done();
}

void lab_bench_run(void)
{
    lab_port_init();
    LAB_CHECK(lab_task_create(&irq_task, "trigger", irq_task_body, 0, 1u, irq_task_stack, IRQ_STACK_WORDS) ==
              LAB_OK);
    lab_port_start();
}

#else /* no scheduler: main() raises the line */

void lab_bench_run(void)
{
    lab_port_init();
    irq_setup();
    for (uint32_t i = 0u; i < IRQ_SAMPLES; i++) {
        irq_one(i);
    }
    irq_done();
}

#endif
