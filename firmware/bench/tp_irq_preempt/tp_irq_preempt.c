/*
 * tp_irq_preempt: throughput suite, interrupt preemption processing (Thread-Metric's
 * interrupt preemption test).
 *
 * Task L (priority 2) raises a software interrupt (installed at
 * lab_port_irq_prio_kernel()) and counts. The handler counts and wakes task H
 * (priority 3), which waits on a binary semaphore: lab_sem_give_from_isr and
 * lab_port_isr_exit(woken) make the kernel switch to H when the handler returns. H counts
 * and blocks again on the semaphore, and L continues after its trigger. Thread-Metric's
 * handler resumes a suspended thread instead; lab/port.h has no resume from an ISR, so the
 * semaphore is the wake-up (docs/throughput.md). One operation = one interrupt with the
 * preemption it causes (the published figure counts the handler's counter).
 *
 *   irq_preempt_window  probe 2 (L, before the first trigger)
 *                    -> probe 3 (L, after IRQP_OPS rounds)
 *   LAB-KV ops          IRQP_OPS; ticks: tick interrupts inside the window
 *
 * Self-check: every give succeeds and reports a more urgent task woken; after each trigger
 * returns H has counted exactly once more (the switch happened before L resumed), checked
 * once per operation; handler, H and L counted IRQP_OPS each.
 */
#include "lab/bench.h"
#include "lab/port.h"
#include "lab/target.h"
#include "tp.h"

#if !LAB_HAS_SCHEDULER || !LAB_HAS_IRQ || !LAB_HAS_SEMAPHORE
#error "tp_irq_preempt needs LAB_HAS_SCHEDULER, LAB_HAS_IRQ and LAB_HAS_SEMAPHORE"
#endif

#define IRQP_OPS 2000u

LAB_INTERVAL(irq_preempt_window, TP_PROBE_START, TP_PROBE_END, "interrupt preemption: 2000 x trigger -> handler wakes higher-prio task -> back");

static lab_task_t irqp_high, irqp_low;
static LAB_STACK_DEFINE(irqp_high_stack, TP_STACK_WORDS);
static LAB_STACK_DEFINE(irqp_low_stack, TP_STACK_WORDS);
static lab_sem_t irqp_sem;
static uint32_t irqp_line;
static volatile uint32_t irqp_handler_count;
static volatile uint32_t irqp_high_count;
static volatile uint32_t irqp_low_count;
static volatile uint32_t irqp_errors;

static void irqp_handler(void)
{
    bool woken = false;
    lab_port_isr_enter();
    irqp_handler_count = irqp_handler_count + 1u;
    if (lab_sem_give_from_isr(&irqp_sem, &woken) != LAB_OK || !woken) {
        irqp_errors = irqp_errors + 1u;
    }
    lab_port_isr_exit(woken);
}

static void irqp_high_task(void *arg)
{
    (void)arg;
    for (;;) {
        if (lab_sem_take(&irqp_sem, LAB_WAIT_FOREVER) != LAB_OK) {
            irqp_errors = irqp_errors + 1u;
        }
        irqp_high_count = irqp_high_count + 1u;
    }
}

static void irqp_low_task(void *arg)
{
    (void)arg;
    uint32_t t0 = tp_ticks_now();
    LAB_PROBE(TP_PROBE_START);
    for (uint32_t i = 1; i <= IRQP_OPS; i++) {
        lab_target_irq_trigger(irqp_line);
        irqp_low_count = irqp_low_count + 1u;
        if (irqp_high_count != i) {
            irqp_errors = irqp_errors + 1u;
        }
    }
    LAB_PROBE(TP_PROBE_END);
    uint32_t ticks = tp_ticks_now() - t0;

    LAB_CHECK(irqp_errors == 0u);
    LAB_CHECK(irqp_handler_count == IRQP_OPS && irqp_high_count == IRQP_OPS && irqp_low_count == IRQP_OPS);
    lab_target_irq_remove(irqp_line);
    tp_report(IRQP_OPS, ticks);
    lab_finish();
}

void lab_bench_run(void)
{
    lab_port_init();
    irqp_line = lab_target_irq_soft(0);
    LAB_CHECK(lab_sem_create(&irqp_sem, 0u, 1u) == LAB_OK);
    LAB_CHECK(lab_target_irq_install(irqp_line, irqp_handler, lab_port_irq_prio_kernel()) == 0);
    LAB_CHECK(lab_task_create(&irqp_high, "high", irqp_high_task, 0, 3u, irqp_high_stack, TP_STACK_WORDS) == LAB_OK);
    LAB_CHECK(lab_task_create(&irqp_low, "low", irqp_low_task, 0, 2u, irqp_low_stack, TP_STACK_WORDS) == LAB_OK);
    lab_port_start();
}
