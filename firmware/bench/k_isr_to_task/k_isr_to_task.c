/*
 * k_isr_to_task: waking a task from an interrupt handler (seed 001's ISR -> task path).
 *
 * Task H (priority 3) alternately waits on binary semaphore `sem` and for a direct
 * notification. Task L (priority 2) raises a software interrupt (lab_target_irq_trigger
 * on a free line, installed at lab_port_irq_prio_kernel()) whose handler wakes H one way
 * or the other; the handler's lab_port_isr_exit(woken) makes the kernel switch to H when
 * the handler returns:
 *
 *   isr_sem_to_task     probe 2 (handler, just before lab_sem_give_from_isr)
 *                    -> probe 3 (H, first statement after its lab_sem_take returns)
 *   isr_notify_to_task  probe 4 (handler, just before lab_notify_from_isr)
 *                    -> probe 5 (H, first statement after its lab_notify_wait returns)
 *   Both = the from-ISR call, lab_port_isr_exit, the handler's return, the kernel's
 *   deferred switch (PendSV on Cortex-M) and H's return from its blocking call.
 *
 * ISR_ROUNDS samples of each. Self-check: the give succeeds and reports a more urgent
 * task woken; H counts its wake-ups per kind and when lab_target_irq_trigger returns to L
 * (the handler and the switch happen before L's next instruction) H must have woken
 * exactly once more in the expected way; the notification count H receives is 1.
 */
#include "lab/bench.h"
#include "lab/log.h"
#include "lab/port.h"
#include "lab/target.h"

#if !LAB_HAS_SCHEDULER || !LAB_HAS_IRQ || !LAB_HAS_SEMAPHORE || !LAB_HAS_NOTIFY
#error "k_isr_to_task needs LAB_HAS_SCHEDULER, LAB_HAS_IRQ, LAB_HAS_SEMAPHORE and LAB_HAS_NOTIFY"
#endif

#define ISR_ROUNDS 1000u
#define ISR_STACK_WORDS 256u

LAB_INTERVAL(isr_sem_to_task, 2, 3, "ISR: lab_sem_give_from_isr -> first statement of the woken task after its take");
LAB_INTERVAL(isr_notify_to_task, 4, 5, "ISR: lab_notify_from_isr -> first statement of the woken task after its wait");

enum { ISR_MODE_SEM = 1, ISR_MODE_NOTIFY = 2 };

static lab_task_t isr_high, isr_low;
static LAB_STACK_DEFINE(isr_high_stack, ISR_STACK_WORDS);
static LAB_STACK_DEFINE(isr_low_stack, ISR_STACK_WORDS);
static lab_sem_t isr_sem;
static uint32_t isr_irq;

static volatile uint32_t isr_mode;
static volatile uint32_t isr_handled;
static volatile uint32_t isr_give_failed;
static volatile uint32_t isr_not_woken;
static volatile uint32_t isr_sem_wakeups;
static volatile uint32_t isr_notify_wakeups;
static volatile uint32_t isr_bad_count;

static void isr_handler(void)
{
    bool woken = false;
    lab_port_isr_enter();
    if (isr_mode == ISR_MODE_SEM) {
        LAB_PROBE(2);
        LAB_LOG("isr give %lu\n", isr_handled); /* LAB_LOG_MODE=0: no code */
        if (lab_sem_give_from_isr(&isr_sem, &woken) != LAB_OK) {
            isr_give_failed = isr_give_failed + 1u;
        }
    } else {
        LAB_PROBE(4);
        LAB_LOG("isr notify %lu\n", isr_handled);
        lab_notify_from_isr(&isr_high, &woken);
    }
    if (!woken) {
        isr_not_woken = isr_not_woken + 1u;
    }
    isr_handled = isr_handled + 1u;
    lab_port_isr_exit(woken);
}

static void isr_high_task(void *arg)
{
    (void)arg;
    for (;;) {
        int rc = lab_sem_take(&isr_sem, LAB_WAIT_FOREVER);
        LAB_PROBE(3);
        LAB_CHECK(rc == LAB_OK);
        isr_sem_wakeups = isr_sem_wakeups + 1u;

        uint32_t count = lab_notify_wait(LAB_WAIT_FOREVER);
        LAB_PROBE(5);
        if (count != 1u) {
            isr_bad_count = isr_bad_count + 1u;
        }
        isr_notify_wakeups = isr_notify_wakeups + 1u;
    }
}

static void isr_low_task(void *arg)
{
    (void)arg;
    for (uint32_t i = 1; i <= ISR_ROUNDS; i++) {
        isr_mode = ISR_MODE_SEM;
        lab_target_irq_trigger(isr_irq);
        LAB_CHECK(isr_sem_wakeups == i && isr_notify_wakeups == i - 1u);

        isr_mode = ISR_MODE_NOTIFY;
        lab_target_irq_trigger(isr_irq);
        LAB_CHECK(isr_notify_wakeups == i);
    }
    LAB_CHECK(isr_handled == 2u * ISR_ROUNDS);
    LAB_CHECK(isr_give_failed == 0u && isr_not_woken == 0u && isr_bad_count == 0u);
    lab_target_irq_remove(isr_irq);
    lab_finish();
}

void lab_bench_run(void)
{
    lab_port_init();
    isr_irq = lab_target_irq_soft(0);
    LAB_CHECK(lab_sem_create(&isr_sem, 0u, 1u) == LAB_OK);
    LAB_CHECK(lab_target_irq_install(isr_irq, isr_handler, lab_port_irq_prio_kernel()) == 0);
    LAB_CHECK(lab_task_create(&isr_high, "high", isr_high_task, 0, 3u, isr_high_stack, ISR_STACK_WORDS) == LAB_OK);
    LAB_CHECK(lab_task_create(&isr_low, "low", isr_low_task, 0, 2u, isr_low_stack, ISR_STACK_WORDS) == LAB_OK);
    lab_log_start(); /* LAB_LOG_MODE=2: the drain task; otherwise no code */
    lab_port_start();
}
