/*
 * coop: a run-to-completion cooperative kernel, the light non-real-time kind of OS that
 * seed 000's firmware ran on (docs/execution-models.md). The whole kernel is this file.
 *
 *   tasks      functions, one per priority (1 .. 31), registered before the loop starts;
 *              a task is ready while it is activated or has messages waiting (lab/port.h,
 *              "run-to-completion tasks")
 *   ready set  one word, bit p = the task at priority p; the loop takes the highest set
 *              bit (CLZ), calls the task's function and, when it returns, chooses again
 *   queues     rings of fixed-size items copied in and out under PRIMASK; each has one
 *              receiving task, whose pending count and ready bit a send sets
 *   idle       WFI with PRIMASK set, so an interrupt that makes a task ready is not lost
 *              between the test and the sleep
 *
 * No tick, no timers, no per-task stack, no context switch: every task runs on main's
 * stack and a "switch" is a return to the loop and a call.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lab/bench.h"
#include "lab/port.h"

/* Critical sections: PRIMASK, nestable (shared with bare metal and the Rust models). Its
 * lab_primask_disable / lab_primask_restore are the kernel's own short locks too. */
#include "lab/port_critical_primask.h"

/* The task at each priority (NULL: none) and the ready set. */
static lab_task_t *coop_task_at[LAB_PORT_PRIO_MAX + 1];
static volatile uint32_t coop_ready;
static bool coop_started;

#if LAB_TRACE
#include "lab/console.h"

static const char *coop_trace_names[LAB_TRACE_TASKS];
static uint32_t coop_trace_count;

void lab_trace_task_name(uint32_t task, const char *name)
{
    lab_console_puts("LAB-TASK ");
    lab_console_put_dec(task);
    lab_console_puts(" ");
    lab_console_puts(name != NULL ? name : "?");
    lab_console_puts("\n");
}
#endif

void lab_port_init(void)
{
    for (unsigned p = 0u; p <= (unsigned)LAB_PORT_PRIO_MAX; p++) {
        coop_task_at[p] = NULL;
    }
    coop_ready = 0u;
    coop_started = false;
}

/* ------------------------------------------------------------------ interrupts */

/* Nothing masks by priority: "kernel" handlers get a middle level so that a more urgent
 * level (0) exists above them, as on bare metal. */
uint32_t lab_port_irq_prio_kernel(void) { return 0x80u; }

uint32_t lab_port_irq_prio_unmanaged(void) { return 0x00u; }

void lab_port_isr_enter(void) {}

/* A handler's send or activation has set the ready bit already; nothing is preempted,
 * so the loop calls the task when the function running now returns. */
void lab_port_isr_exit(bool woken) { (void)woken; }

/* ------------------------------------------------------------------ tasks */

int lab_coop_task_create(lab_task_t *task, const char *name, lab_task_fn fn, void *arg,
                         unsigned priority)
{
    if (coop_started || task == NULL || fn == NULL || priority < 1u ||
        priority > (unsigned)LAB_PORT_PRIO_MAX || coop_task_at[priority] != NULL) {
        return LAB_ERR_FAIL;
    }
    task->fn = fn;
    task->arg = arg;
    task->pending = 0u;
    task->activated = 1u;
    task->prio = (uint8_t)priority;
    task->trace = 0u;
#if LAB_TRACE
    if (coop_trace_count + 1u < LAB_TRACE_TASKS) {
        coop_trace_count++;
        coop_trace_names[coop_trace_count] = name;
        task->trace = (uint8_t)coop_trace_count;
    }
#else
    (void)name;
#endif
    coop_task_at[priority] = task;
    coop_ready |= 1u << priority;
    return LAB_OK;
}

void lab_coop_activate(lab_task_t *task)
{
    uint32_t primask = lab_primask_disable();
    task->activated = 1u;
    coop_ready |= 1u << task->prio;
    lab_primask_restore(primask);
}

/* ------------------------------------------------------------------ message queues */

int lab_coop_queue_create(lab_queue_t *queue, uint32_t length, uint32_t item_size,
                          void *storage, lab_task_t *receiver)
{
    if (coop_started || queue == NULL || storage == NULL || receiver == NULL || length == 0u ||
        item_size == 0u || ((uintptr_t)storage & 3u) != 0u || receiver->prio == 0u ||
        coop_task_at[receiver->prio] != receiver) {
        return LAB_ERR_FAIL;
    }
    queue->storage = storage;
    queue->item_size = item_size;
    queue->length = length;
    queue->head = 0u;
    queue->count = 0u;
    queue->receiver = receiver;
    return LAB_OK;
}

int lab_coop_send(lab_queue_t *queue, const void *item)
{
    uint32_t primask = lab_primask_disable();
    if (queue->count == queue->length) {
        lab_primask_restore(primask);
        return LAB_ERR_TIMEOUT;
    }
    uint32_t tail = queue->head + queue->count;
    if (tail >= queue->length) {
        tail -= queue->length;
    }
    memcpy(queue->storage + tail * queue->item_size, item, queue->item_size);
    queue->count++;
    lab_task_t *receiver = queue->receiver;
    receiver->pending++;
    coop_ready |= 1u << receiver->prio;
    lab_primask_restore(primask);
    return LAB_OK;
}

int lab_coop_receive(lab_queue_t *queue, void *item)
{
    uint32_t primask = lab_primask_disable();
    if (queue->count == 0u) {
        lab_primask_restore(primask);
        return LAB_ERR_TIMEOUT;
    }
    memcpy(item, queue->storage + queue->head * queue->item_size, queue->item_size);
    queue->head++;
    if (queue->head == queue->length) {
        queue->head = 0u;
    }
    queue->count--;
    lab_task_t *receiver = queue->receiver;
    receiver->pending--;
    if (receiver->pending == 0u && receiver->activated == 0u) {
        coop_ready &= ~(1u << receiver->prio);
    }
    lab_primask_restore(primask);
    return LAB_OK;
}

/* ------------------------------------------------------------------ the loop */

__attribute__((noreturn)) void lab_coop_start(void)
{
#if LAB_TRACE
    for (uint32_t i = 1u; i <= coop_trace_count; i++) {
        lab_trace_task_name(i, coop_trace_names[i]);
    }
#endif
    coop_started = true;
    for (;;) {
        uint32_t primask = lab_primask_disable();
        uint32_t ready = coop_ready;
        if (ready == 0u) {
            /* Sleep until an interrupt is pending (WFI wakes with PRIMASK set), then let
             * its handler run and look again. */
            __asm__ volatile("wfi" : : : "memory");
            lab_primask_restore(primask);
            continue;
        }
        unsigned prio = 31u - (unsigned)__builtin_clz(ready);
        lab_task_t *task = coop_task_at[prio];
        task->activated = 0u;
        if (task->pending == 0u) {
            coop_ready = ready & ~(1u << prio);
        }
        lab_primask_restore(primask);
#if LAB_TRACE
        LAB_TRACE_TASK_IN(task->trace);
#endif
        task->fn(task->arg);
    }
}
