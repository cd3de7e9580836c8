/*
 * Template port: every function of lab/port.h, each failing clearly with
 * LAB_EXIT_UNSUPPORTED, so the port compiles and links with any benchmark. Copy this
 * folder to start a real port (docs/kernel-suite.md, "Adding a kernel port") and replace
 * each body by a call into the kernel, doing what the comment above it says; the full
 * contract of every function is in lab/port.h. Set a capability to 1 in lab_port_caps.h
 * only once every function of its group works.
 */
#include <stdbool.h>
#include <stdint.h>

#include "lab/bench.h"
#include "lab/port.h"

/* Never returns: the run ends with exit status LAB_EXIT_UNSUPPORTED and the name of the
 * missing function on the console. */
__attribute__((noreturn)) static void lab_template_missing(const char *function)
{
    lab_fail_status(LAB_EXIT_UNSUPPORTED, function);
}

/* Initialise the kernel (its data structures, its allocator) without starting it or
 * enabling interrupts. */
void lab_port_init(void)
{
    lab_template_missing("template port: lab_port_init not implemented");
}

/* Start the kernel's scheduler (it must not return); the most urgent created task runs. */
__attribute__((noreturn)) void lab_port_start(void)
{
    lab_template_missing("template port: lab_port_start not implemented");
}

/* Create a task in the caller's storage `task` and `stack`, mapping lab priority (higher
 * = more urgent) to the kernel's; it runs at once if more urgent than the caller. */
int lab_task_create(lab_task_t *task, const char *name, lab_task_fn entry, void *arg,
                    unsigned priority, lab_stack_t *stack, uint32_t stack_words)
{
    (void)task;
    (void)name;
    (void)entry;
    (void)arg;
    (void)priority;
    (void)stack;
    (void)stack_words;
    lab_template_missing("template port: lab_task_create not implemented");
}

/* Delete another task (ready, blocked or suspended) so that its storage can be reused
 * when this returns. */
void lab_task_delete(lab_task_t *task)
{
    (void)task;
    lab_template_missing("template port: lab_task_delete not implemented");
}

/* Yield to the next ready task of the caller's priority. */
void lab_task_yield(void)
{
    lab_template_missing("template port: lab_task_yield not implemented");
}

/* Return the task's current priority in lab numbering, inherited priority included; ISR-
 * safe. */
unsigned lab_task_priority(lab_task_t *task)
{
    (void)task;
    lab_template_missing("template port: lab_task_priority not implemented");
}

/* Suspend a task (NULL = the caller) until lab_task_resume. */
void lab_task_suspend(lab_task_t *task)
{
    (void)task;
    lab_template_missing("template port: lab_task_suspend not implemented");
}

/* Make a suspended task ready; switch to it at once if more urgent than the caller. */
void lab_task_resume(lab_task_t *task)
{
    (void)task;
    lab_template_missing("template port: lab_task_resume not implemented");
}

/* Return the kernel's tick counter; ISR-safe. */
lab_tick_t lab_tick_count(void)
{
    lab_template_missing("template port: lab_tick_count not implemented");
}

/* Return the kernel's tick frequency in Hz. */
uint32_t lab_tick_rate_hz(void)
{
    lab_template_missing("template port: lab_tick_rate_hz not implemented");
}

/* Block the caller for `ticks` ticks (relative delay). */
void lab_task_delay(lab_tick_t ticks)
{
    (void)ticks;
    lab_template_missing("template port: lab_task_delay not implemented");
}

/* Block until *previous_wake + period, then advance *previous_wake (periodic delay). */
void lab_task_delay_until(lab_tick_t *previous_wake, lab_tick_t period)
{
    (void)previous_wake;
    (void)period;
    lab_template_missing("template port: lab_task_delay_until not implemented");
}

/* Create a counting semaphore (max 1: binary) in the caller's storage. */
int lab_sem_create(lab_sem_t *sem, uint32_t initial, uint32_t max)
{
    (void)sem;
    (void)initial;
    (void)max;
    lab_template_missing("template port: lab_sem_create not implemented");
}

/* Give: wake the most urgent waiter (switching to it if more urgent) or add a count. */
int lab_sem_give(lab_sem_t *sem)
{
    (void)sem;
    lab_template_missing("template port: lab_sem_give not implemented");
}

/* Give from an interrupt handler: never switch, set *woken when a more urgent task
 * became ready. */
int lab_sem_give_from_isr(lab_sem_t *sem, bool *woken)
{
    (void)sem;
    (void)woken;
    lab_template_missing("template port: lab_sem_give_from_isr not implemented");
}

/* Take a count, blocking up to `timeout` ticks; LAB_ERR_TIMEOUT when none came. */
int lab_sem_take(lab_sem_t *sem, lab_tick_t timeout)
{
    (void)sem;
    (void)timeout;
    lab_template_missing("template port: lab_sem_take not implemented");
}

/* Create a mutex with priority inheritance in the caller's storage. */
int lab_mutex_create(lab_mutex_t *mutex)
{
    (void)mutex;
    lab_template_missing("template port: lab_mutex_create not implemented");
}

/* Lock, blocking up to `timeout` ticks; the holder inherits the priority of blocked
 * waiters. */
int lab_mutex_lock(lab_mutex_t *mutex, lab_tick_t timeout)
{
    (void)mutex;
    (void)timeout;
    lab_template_missing("template port: lab_mutex_lock not implemented");
}

/* Unlock: drop inherited priority, hand over to the most urgent waiter (switching if
 * needed). */
int lab_mutex_unlock(lab_mutex_t *mutex)
{
    (void)mutex;
    lab_template_missing("template port: lab_mutex_unlock not implemented");
}

/* Create a FIFO of `length` items of `item_size` bytes in the caller's storage. */
int lab_queue_create(lab_queue_t *queue, uint32_t length, uint32_t item_size, void *storage)
{
    (void)queue;
    (void)length;
    (void)item_size;
    (void)storage;
    lab_template_missing("template port: lab_queue_create not implemented");
}

/* Copy an item in, blocking up to `timeout` ticks while full; a more urgent receiver
 * runs at once. */
int lab_queue_send(lab_queue_t *queue, const void *item, lab_tick_t timeout)
{
    (void)queue;
    (void)item;
    (void)timeout;
    lab_template_missing("template port: lab_queue_send not implemented");
}

/* Send from an interrupt handler: never block or switch, set *woken as for semaphores. */
int lab_queue_send_from_isr(lab_queue_t *queue, const void *item, bool *woken)
{
    (void)queue;
    (void)item;
    (void)woken;
    lab_template_missing("template port: lab_queue_send_from_isr not implemented");
}

/* Copy the front item out and remove it, blocking up to `timeout` ticks while empty. */
int lab_queue_receive(lab_queue_t *queue, void *item, lab_tick_t timeout)
{
    (void)queue;
    (void)item;
    (void)timeout;
    lab_template_missing("template port: lab_queue_receive not implemented");
}

/* Add one to a task's notification count (waking it, switching if more urgent). */
void lab_notify(lab_task_t *task)
{
    (void)task;
    lab_template_missing("template port: lab_notify not implemented");
}

/* Notify from an interrupt handler: never switch, set *woken as for semaphores. */
void lab_notify_from_isr(lab_task_t *task, bool *woken)
{
    (void)task;
    (void)woken;
    lab_template_missing("template port: lab_notify_from_isr not implemented");
}

/* Wait for the caller's notification count to be non-zero; return it and reset it to 0
 * (0 on timeout). */
uint32_t lab_notify_wait(lab_tick_t timeout)
{
    (void)timeout;
    lab_template_missing("template port: lab_notify_wait not implemented");
}

/* Lock the scheduler: no other task runs until lab_sched_unlock (nestable). */
void lab_sched_lock(void)
{
    lab_template_missing("template port: lab_sched_lock not implemented");
}

/* Unlock it; a switch requested meanwhile happens now. */
void lab_sched_unlock(void)
{
    lab_template_missing("template port: lab_sched_unlock not implemented");
}

/* Enter a nestable critical section from task code (no switch, kernel-level interrupts
 * masked). */
void lab_critical_enter(void)
{
    lab_template_missing("template port: lab_critical_enter not implemented");
}

/* Leave it; the outermost exit restores interrupts. */
void lab_critical_exit(void)
{
    lab_template_missing("template port: lab_critical_exit not implemented");
}

/* Enter a critical section from an interrupt handler; return the previous mask. */
uint32_t lab_critical_enter_from_isr(void)
{
    lab_template_missing("template port: lab_critical_enter_from_isr not implemented");
}

/* Restore the mask returned by lab_critical_enter_from_isr. */
void lab_critical_exit_from_isr(uint32_t saved)
{
    (void)saved;
    lab_template_missing("template port: lab_critical_exit_from_isr not implemented");
}

/* Return the most urgent NVIC priority at which a handler may call the *_from_isr
 * functions. */
uint32_t lab_port_irq_prio_kernel(void)
{
    lab_template_missing("template port: lab_port_irq_prio_kernel not implemented");
}

/* Return an NVIC priority the kernel never masks (its handlers must not call the
 * kernel). */
uint32_t lab_port_irq_prio_unmanaged(void)
{
    lab_template_missing("template port: lab_port_irq_prio_unmanaged not implemented");
}

/* Tell the kernel an interrupt handler that uses it has started (no-op for many
 * kernels). */
void lab_port_isr_enter(void)
{
    lab_template_missing("template port: lab_port_isr_enter not implemented");
}

/* Request a switch to the most urgent ready task when the handler returns if `woken`. */
void lab_port_isr_exit(bool woken)
{
    (void)woken;
    lab_template_missing("template port: lab_port_isr_exit not implemented");
}

/* Several cores (LAB_HAS_SMP): how many cores the kernel schedules on (a constant), and
 * task creation on a chosen core (or LAB_CORE_ANY); see lab/port.h, "several cores". */
uint32_t lab_port_cores(void)
{
    lab_template_missing("template port: lab_port_cores not implemented");
}

int lab_task_create_on(lab_task_t *task, const char *name, lab_task_fn entry, void *arg,
                       unsigned priority, lab_stack_t *stack, uint32_t stack_words, uint32_t core)
{
    (void)task;
    (void)name;
    (void)entry;
    (void)arg;
    (void)priority;
    (void)stack;
    (void)stack_words;
    (void)core;
    lab_template_missing("template port: lab_task_create_on not implemented");
}

/* Run-to-completion tasks (LAB_HAS_COOP): a kernel whose tasks are functions its loop
 * calls, without stacks of their own (the coop port is one). Register `fn` at a
 * priority no other task has, activated. */
int lab_coop_task_create(lab_task_t *task, const char *name, lab_task_fn fn, void *arg,
                         unsigned priority)
{
    (void)task;
    (void)name;
    (void)fn;
    (void)arg;
    (void)priority;
    lab_template_missing("template port: lab_coop_task_create not implemented");
}

/* A message queue whose messages make `receiver` ready. */
int lab_coop_queue_create(lab_queue_t *queue, uint32_t length, uint32_t item_size,
                          void *storage, lab_task_t *receiver)
{
    (void)queue;
    (void)length;
    (void)item_size;
    (void)storage;
    (void)receiver;
    lab_template_missing("template port: lab_coop_queue_create not implemented");
}

/* Copy a message in (never blocking) and make the receiver ready; ISR-safe. */
int lab_coop_send(lab_queue_t *queue, const void *item)
{
    (void)queue;
    (void)item;
    lab_template_missing("template port: lab_coop_send not implemented");
}

/* Copy the front message out, or LAB_ERR_TIMEOUT at once when there is none. */
int lab_coop_receive(lab_queue_t *queue, void *item)
{
    (void)queue;
    (void)item;
    lab_template_missing("template port: lab_coop_receive not implemented");
}

/* Make a task ready once more; ISR-safe. */
void lab_coop_activate(lab_task_t *task)
{
    (void)task;
    lab_template_missing("template port: lab_coop_activate not implemented");
}

/* The kernel's loop: call the most urgent ready task, forever. */
__attribute__((noreturn)) void lab_coop_start(void)
{
    lab_template_missing("template port: lab_coop_start not implemented");
}

/* Tick hooks: a port with LAB_HAS_TICK_HOOKS calls lab_tick_hook_enter() first and
 * lab_tick_hook_exit() last in its tick interrupt handler and provides these empty weak
 * defaults (benchmarks such as k_tick override them). They must not fail. */
__attribute__((weak)) void lab_tick_hook_enter(void) {}
__attribute__((weak)) void lab_tick_hook_exit(void) {}

#if LAB_TRACE
/* Timeline hook (lab/port.h, "trace hook"; docs/timeline.md), only in builds with
 * LAB_TRACE=1: call LAB_TRACE_TASK_IN(n) from the kernel's task-switch hook with the
 * switched-in task's number, and print each task's name here, off the measured path
 * (e.g. from lab_port_start, before the scheduler runs). */
void lab_trace_task_name(uint32_t task, const char *name)
{
    (void)task;
    (void)name;
    lab_template_missing("template port: lab_trace_task_name not implemented");
}
#endif
