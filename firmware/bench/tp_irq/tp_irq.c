/*
 * tp_irq: throughput suite, interrupt processing (Thread-Metric's interrupt test).
 *
 * One task raises a software interrupt (lab_target_irq_trigger on a free line, installed
 * at lab_port_irq_prio_kernel()); the handler counts and gives a binary semaphore from the
 * ISR (no task waits on it, so no switch); when the handler has returned the task takes
 * the semaphore (available: no block), counts, and raises the next interrupt. One
 * operation = one interrupt, handled and consumed (the published figure counts the
 * handler's counter).
 *
 *   irq_window  probe 2 (task, before the first trigger) -> probe 3 (after IRQ_OPS rounds)
 *   LAB-KV ops  IRQ_OPS; ticks: tick interrupts inside the window
 *
 * Self-check: every give succeeds and reports no task woken; every take succeeds without
 * waiting (the handler ran before lab_target_irq_trigger returned); a further take fails
 * (the semaphore was given once per interrupt); handler and task counted IRQ_OPS each.
 */
#include "lab/bench.h"
#include "lab/port.h"
#include "lab/target.h"
#include "tp.h"

#if !LAB_HAS_SCHEDULER || !LAB_HAS_IRQ || !LAB_HAS_SEMAPHORE
#error "tp_irq needs LAB_HAS_SCHEDULER, LAB_HAS_IRQ and LAB_HAS_SEMAPHORE"
#endif

#define IRQ_OPS 2000u

LAB_INTERVAL(irq_window, TP_PROBE_START, TP_PROBE_END, "interrupt processing: 2000 x trigger -> handler gives sem -> task takes it");

static lab_sem_t irq_sem;
static uint32_t irq_line;
static volatile uint32_t irq_handler_count;
static volatile uint32_t irq_task_count;
static volatile uint32_t irq_errors;

static void irq_handler(void)
{
    bool woken = false;
    lab_port_isr_enter();
    irq_handler_count = irq_handler_count + 1u;
    if (lab_sem_give_from_isr(&irq_sem, &woken) != LAB_OK || woken) {
        irq_errors = irq_errors + 1u;
    }
    lab_port_isr_exit(woken);
}

static void irq_body(void)
{
    uint32_t t0 = tp_ticks_now();
    LAB_PROBE(TP_PROBE_START);
    for (uint32_t i = 0; i < IRQ_OPS; i++) {
        lab_target_irq_trigger(irq_line);
        if (lab_sem_take(&irq_sem, LAB_NO_WAIT) != LAB_OK) {
            irq_errors = irq_errors + 1u;
        }
        irq_task_count = irq_task_count + 1u;
    }
    LAB_PROBE(TP_PROBE_END);
    uint32_t ticks = tp_ticks_now() - t0;

    LAB_CHECK(irq_errors == 0u);
    LAB_CHECK(irq_handler_count == IRQ_OPS && irq_task_count == IRQ_OPS);
    LAB_CHECK(lab_sem_take(&irq_sem, LAB_NO_WAIT) == LAB_ERR_TIMEOUT);
    lab_target_irq_remove(irq_line);
    tp_report(IRQ_OPS, ticks);
}

void lab_bench_run(void)
{
    lab_port_init();
    irq_line = lab_target_irq_soft(0);
    LAB_CHECK(lab_sem_create(&irq_sem, 0u, 1u) == LAB_OK);
    LAB_CHECK(lab_target_irq_install(irq_line, irq_handler, lab_port_irq_prio_kernel()) == 0);
    tp_run_single(irq_body);
}
