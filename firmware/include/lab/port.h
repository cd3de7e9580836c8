/*
 * lab/port.h - the kernel porting API. Kernel benchmarks are written once against these
 * functions; each folder under firmware/ports/ implements them for one kernel.
 *
 * Rules
 *   - This header declares; it never selects a kernel. A port implements the functions
 *     of the capabilities it has (LAB_HAS_... = 1 in its lab_port_caps.h) and
 *     nothing else. A benchmark lists the capabilities it needs in bench.toml `requires`;
 *     rtoslab builds it only for ports that have them all and reports it "n/a" (with the
 *     reason written beside the 0 in lab_port_caps.h) everywhere else.
 *   - Storage is the caller's. Every kernel object is a port-defined type from the port's
 *     lab_port_types.h (lab_task_t, lab_sem_t, ...) that the caller allocates, normally as
 *     a static variable, so no function here needs malloc where the kernel allows it. The
 *     types are opaque: benchmarks never look inside them.
 *   - Units. Time is in kernel ticks (lab_tick_t); lab_tick_rate_hz() converts. Priorities
 *     are integers where a HIGHER number is MORE urgent: 1 .. LAB_PORT_PRIO_MAX (at least
 *     LAB_PRIO_NEEDED); 0 belongs to the kernel's idle activity, benchmarks never use it.
 *   - Context. Unless a function says "ISR-safe", call it from a task only (and, where it
 *     says so, also before lab_port_start()). The *_from_isr functions are for interrupt
 *     handlers running at lab_port_irq_prio_kernel() or less urgent; they never block.
 *   - Timeouts: LAB_NO_WAIT (0) returns at once, LAB_WAIT_FOREVER blocks without limit,
 *     anything else is a number of ticks.
 *   - Results: LAB_OK on success, LAB_ERR_TIMEOUT when the operation could not complete
 *     within the timeout (with LAB_NO_WAIT: it would have had to block), LAB_ERR_FAIL for
 *     anything else (bad argument, kernel refused). Benchmarks check them with LAB_CHECK.
 *   - "woken" flags: the *_from_isr functions set *woken to true when they made a task
 *     ready that is more urgent than the one the interrupt preempted; they never set it to
 *     false, so one flag can collect several calls. Pass it to lab_port_isr_exit().
 *
 * Capabilities (each port's lab_port_caps.h defines every one of them, 0 or 1):
 *   LAB_HAS_SCHEDULER           lab_port_start, lab_task_create before start, yield, priority
 *   LAB_HAS_TASK_CREATE_DELETE  lab_task_create after lab_port_start, lab_task_delete
 *   LAB_HAS_SUSPEND             lab_task_suspend, lab_task_resume
 *   LAB_HAS_DELAY               lab_task_delay, lab_task_delay_until
 *   LAB_HAS_TICK                lab_tick_count, lab_tick_rate_hz
 *   LAB_HAS_TICK_HOOKS          the port calls lab_tick_hook_enter/exit around its tick
 *   LAB_HAS_SEMAPHORE           lab_sem_* (counting and binary, give from ISR)
 *   LAB_HAS_MUTEX               lab_mutex_*
 *   LAB_HAS_MUTEX_PI            the mutexes inherit priority
 *   LAB_HAS_QUEUE               lab_queue_* (send from ISR)
 *   LAB_HAS_NOTIFY              lab_notify, lab_notify_from_isr, lab_notify_wait
 *   LAB_HAS_CRITICAL            lab_critical_*
 *   LAB_HAS_IRQ                 lab_port_irq_prio_*, lab_port_isr_enter / _exit
 *   LAB_HAS_SMP                 the kernel schedules tasks on more than one core:
 *                               lab_port_cores, lab_task_create_on (see "Several cores")
 *   LAB_HAS_COOP                run-to-completion tasks without stacks, called by the
 *                               kernel's loop when a message arrives: lab_coop_* (see
 *                               "run-to-completion tasks")
 * lab_port_init exists in every port.
 */
#ifndef LAB_PORT_H
#define LAB_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "lab_port_caps.h"  /* the port's LAB_HAS_* capabilities */
#include "lab_port_types.h" /* the port's object types, LAB_PORT_PRIO_MAX, LAB_STACK_DEFINE */

/* ------------------------------------------------------------------ common definitions */

typedef uint32_t lab_tick_t;
typedef void (*lab_task_fn)(void *arg);

#define LAB_OK 0
#define LAB_ERR_TIMEOUT (-1)
#define LAB_ERR_FAIL (-2)

#define LAB_NO_WAIT ((lab_tick_t)0u)
#define LAB_WAIT_FOREVER ((lab_tick_t)0xFFFFFFFFu)

/* Benchmarks use priorities 1 .. LAB_PRIO_NEEDED; a port with a scheduler provides them. */
#define LAB_PRIO_NEEDED 4
#if LAB_HAS_SCHEDULER
_Static_assert(LAB_PORT_PRIO_MAX >= LAB_PRIO_NEEDED,
               "the kernel configuration offers fewer task priorities than benchmarks need");
#endif

/*
 * Every port's lab_port_types.h provides:
 *   lab_task_t, lab_sem_t, lab_mutex_t, lab_queue_t  object storage (opaque)
 *   lab_stack_t                                      one stack word
 *   LAB_STACK_DEFINE(name, words)                    defines a suitably aligned and placed
 *                                                    stack `lab_stack_t name[words]`
 *   LAB_PORT_STACK_MIN_WORDS                         smallest stack a task may have that
 *                                                    calls the functions below (no printing)
 *   LAB_PORT_PRIO_MAX                                most urgent task priority
 * (ports without tasks or objects define placeholder types so this header compiles).
 */

/* ------------------------------------------------------------------ kernel (LAB_HAS_SCHEDULER) */

/* Prepare the kernel. Call once, from lab_bench_run(), before creating any object or task.
 * Interrupts stay disabled. Does not block. Every port implements it (no-op if nothing). */
void lab_port_init(void);

/* Start the scheduler: the most urgent task created so far runs. Never returns; the run
 * ends when some task calls lab_finish() or lab_fail(). Requires LAB_HAS_SCHEDULER. */
__attribute__((noreturn)) void lab_port_start(void);

/* ------------------------------------------------------------------ tasks (LAB_HAS_SCHEDULER) */

/* Create a task that runs entry(arg) at `priority` (1 .. LAB_PORT_PRIO_MAX) on the stack
 * `stack` of `stack_words` words (from LAB_STACK_DEFINE, >= LAB_PORT_STACK_MIN_WORDS).
 * `name` is for debuggers only. Before lab_port_start() always allowed; after it only with
 * LAB_HAS_TASK_CREATE_DELETE. If the new task is more urgent than the caller it runs
 * before this function returns. Does not block otherwise. entry must never return: a task
 * ends by being deleted (lab_task_delete) or by ending the run. Returns LAB_OK or
 * LAB_ERR_FAIL. */
int lab_task_create(lab_task_t *task, const char *name, lab_task_fn entry, void *arg,
                    unsigned priority, lab_stack_t *stack, uint32_t stack_words);

/* Delete `task`, which must not be the calling task. It may be ready, blocked or
 * suspended. When this returns, its storage and stack may be reused for a new task.
 * Never switches to another task. Requires LAB_HAS_TASK_CREATE_DELETE. */
void lab_task_delete(lab_task_t *task);

/* Give the processor to the next ready task of the caller's priority, if any; returns when
 * the caller runs again (at once if no such task is ready). Requires LAB_HAS_SCHEDULER. */
void lab_task_yield(void);

/* Scheduler lock: until lab_sched_unlock no other task runs (interrupts stay enabled;
 * their handlers run, any switch they request waits). Nestable; not from an ISR. Blocking
 * while locked is not allowed. Requires LAB_HAS_SCHEDULER. */
void lab_sched_lock(void);
void lab_sched_unlock(void);

/* The current priority of `task` (1 .. LAB_PORT_PRIO_MAX), including any priority it
 * inherited through a mutex. ISR-safe. Requires LAB_HAS_SCHEDULER. */
unsigned lab_task_priority(lab_task_t *task);

/* Suspend `task`, or the caller when task is NULL (then this returns only after some other
 * task resumed it). Requires LAB_HAS_SUSPEND. */
void lab_task_suspend(lab_task_t *task);

/* Make the suspended `task` ready again; if it is more urgent than the caller it runs
 * before this returns. No effect on a task that is not suspended. Requires LAB_HAS_SUSPEND. */
void lab_task_resume(lab_task_t *task);

/* ------------------------------------------------------------------ time (LAB_HAS_TICK, LAB_HAS_DELAY) */

/* Ticks since lab_port_start() (wraps at 2^32). ISR-safe. Requires LAB_HAS_TICK. */
lab_tick_t lab_tick_count(void);

/* Tick frequency in Hz (a constant of the build). ISR-safe. Requires LAB_HAS_TICK. */
uint32_t lab_tick_rate_hz(void);

/* Block the caller for `ticks` ticks, measured from the call: it becomes ready on the
 * `ticks`-th tick interrupt after the call, so the real delay is between ticks - 1 and
 * ticks tick periods. ticks = 0 behaves like lab_task_yield(). Requires LAB_HAS_DELAY. */
void lab_task_delay(lab_tick_t ticks);

/* Periodic delay: block until tick *previous_wake + period, then set *previous_wake to
 * that tick. Returns at once (still updating *previous_wake) if that tick has passed.
 * Initialise *previous_wake with lab_tick_count(). Requires LAB_HAS_DELAY. */
void lab_task_delay_until(lab_tick_t *previous_wake, lab_tick_t period);

/* Tick hooks (LAB_HAS_TICK_HOOKS): a port with this capability calls
 * lab_tick_hook_enter() as the first thing its tick interrupt handler does and
 * lab_tick_hook_exit() as the last, with the kernel's tick processing (tick count
 * increment, waking delayed tasks, time slicing, requesting a switch) between them. The
 * port provides empty weak definitions; a benchmark that wants them (k_tick) defines its
 * own. They run in the tick interrupt: they may only use ISR-safe functions. */
void lab_tick_hook_enter(void);
void lab_tick_hook_exit(void);

/* ------------------------------------------------------------------ semaphores (LAB_HAS_SEMAPHORE) */

/* Counting semaphore holding `initial` (<= max) of at most `max` counts; max = 1 makes a
 * binary semaphore. Allowed before lab_port_start(). Returns LAB_OK or LAB_ERR_FAIL. */
int lab_sem_create(lab_sem_t *sem, uint32_t initial, uint32_t max);

/* Add one count, or wake the most urgent waiting task (which then runs before this
 * returns if it is more urgent than the caller). LAB_ERR_FAIL if already at max. Never
 * blocks. */
int lab_sem_give(lab_sem_t *sem);

/* ISR-safe give: as lab_sem_give, never switches; see "woken flags" above. */
int lab_sem_give_from_isr(lab_sem_t *sem, bool *woken);

/* Take one count, blocking up to `timeout` ticks while there is none. Returns LAB_OK or
 * LAB_ERR_TIMEOUT. */
int lab_sem_take(lab_sem_t *sem, lab_tick_t timeout);

/* ------------------------------------------------------------------ mutexes (LAB_HAS_MUTEX, LAB_HAS_MUTEX_PI) */

/* A non-recursive mutex, initially unlocked. With LAB_HAS_MUTEX_PI a task holding it is
 * raised to the priority of the most urgent task blocked on it until it unlocks.
 * Allowed before lab_port_start(). Returns LAB_OK or LAB_ERR_FAIL. */
int lab_mutex_create(lab_mutex_t *mutex);

/* Lock, blocking up to `timeout` ticks while another task holds it. Task context only;
 * the caller must not hold it already. Returns LAB_OK or LAB_ERR_TIMEOUT. */
int lab_mutex_lock(lab_mutex_t *mutex, lab_tick_t timeout);

/* Unlock (the caller must hold it): drops any inherited priority and hands the mutex to
 * the most urgent waiter, which runs before this returns if it is more urgent than the
 * caller's base priority. Returns LAB_OK or LAB_ERR_FAIL (not the holder). */
int lab_mutex_unlock(lab_mutex_t *mutex);

/* ------------------------------------------------------------------ queues (LAB_HAS_QUEUE) */

/* A FIFO of `length` items of `item_size` bytes each, copied in and out. `storage` holds
 * length * item_size bytes, 4-byte aligned, and belongs to the queue from now on.
 * Allowed before lab_port_start(). Returns LAB_OK or LAB_ERR_FAIL. */
int lab_queue_create(lab_queue_t *queue, uint32_t length, uint32_t item_size, void *storage);

/* Copy `item` to the back, blocking up to `timeout` ticks while the queue is full. A
 * more urgent task waiting to receive runs before this returns. Returns LAB_OK or
 * LAB_ERR_TIMEOUT. */
int lab_queue_send(lab_queue_t *queue, const void *item, lab_tick_t timeout);

/* ISR-safe send: never blocks or switches; LAB_ERR_TIMEOUT when full. */
int lab_queue_send_from_isr(lab_queue_t *queue, const void *item, bool *woken);

/* Copy the front item to `item` and remove it, blocking up to `timeout` ticks while the
 * queue is empty. Returns LAB_OK or LAB_ERR_TIMEOUT. */
int lab_queue_receive(lab_queue_t *queue, void *item, lab_tick_t timeout);

/* ------------------------------------------------------------------ direct notification (LAB_HAS_NOTIFY) */

/* Add one to `task`'s notification count (a per-task counting semaphore with no object),
 * waking it if it waits in lab_notify_wait(); it runs before this returns if it is more
 * urgent than the caller. Never blocks. */
void lab_notify(lab_task_t *task);

/* ISR-safe lab_notify: never switches; see "woken flags" above. */
void lab_notify_from_isr(lab_task_t *task, bool *woken);

/* Wait up to `timeout` ticks until the caller's notification count is non-zero, then
 * return the count and reset it to 0. Returns 0 on timeout. */
uint32_t lab_notify_wait(lab_tick_t timeout);

/* ------------------------------------------------------------------ critical sections (LAB_HAS_CRITICAL) */

/* Enter / leave a critical section from task code (or, without a scheduler, from main):
 * while inside, no task switch happens and no interrupt at lab_port_irq_prio_kernel() or
 * less urgent runs (more urgent ones may, on ports that mask by priority). Nestable;
 * interrupts are restored by the outermost exit. Never block inside. */
void lab_critical_enter(void);
void lab_critical_exit(void);

/* The same from an interrupt handler: returns the previous mask for the matching exit.
 * ISR-safe (these two only). */
uint32_t lab_critical_enter_from_isr(void);
void lab_critical_exit_from_isr(uint32_t saved);

/* ------------------------------------------------------------------ interrupts (LAB_HAS_IRQ) */

/* NVIC priority (the raw value for lab_target_irq_install) for an interrupt whose handler
 * calls the *_from_isr functions: the most urgent level the kernel allows them at. */
uint32_t lab_port_irq_prio_kernel(void);

/* NVIC priority for an interrupt the kernel never delays: on ports that mask by priority
 * (BASEPRI), above every kernel critical section. Its handler must not call the kernel.
 * On ports whose critical sections mask all interrupts it is simply the most urgent
 * level (and critical sections still mask it). */
uint32_t lab_port_irq_prio_unmanaged(void);

/* First and last thing a handler at lab_port_irq_prio_kernel() does when it calls the
 * kernel. enter tells kernels that track interrupt nesting (no-op elsewhere). exit(woken)
 * requests a task switch if woken is true: it happens when the handler returns, to the
 * most urgent ready task, before any other task code runs. ISR-safe (ISR-only). */
void lab_port_isr_enter(void);
void lab_port_isr_exit(bool woken);

/* ------------------------------------------------------------------ several cores (LAB_HAS_SMP)
 *
 * On a port with LAB_HAS_SMP the kernel schedules tasks on lab_port_cores() cores of a
 * multi-core target (lab/target.h, LAB_TARGET_CORES). What changes for the functions above:
 *   - lab_task_create places the new task on the CALLING core (core 0 before
 *     lab_port_start()) and it never runs elsewhere, so a benchmark written for one core
 *     keeps its meaning on an SMP kernel. lab_task_create_on chooses the core.
 *   - "runs before this returns" (give, send, notify, resume, create) holds when the woken
 *     task belongs to the caller's core. A task woken for another core starts there (the
 *     kernel interrupts that core) while the caller carries on.
 *   - Critical sections and the scheduler lock exclude tasks and kernel-managed interrupt
 *     handlers on every core, not only the caller's.
 *   - lab_target_core_id() (lab/target.h) says where the caller runs.
 */

/* The number of cores the kernel schedules tasks on (1 .. LAB_TARGET_CORES). A constant
 * of the build and its configuration. ISR-safe. Requires LAB_HAS_SMP. */
uint32_t lab_port_cores(void);

/* Task affinity for lab_task_create_on: run on any core the kernel chooses. */
#define LAB_CORE_ANY 0xFFFFFFFFu

/* As lab_task_create, and the task runs only on core `core` (0 .. lab_port_cores() - 1),
 * or on whichever core the kernel chooses with LAB_CORE_ANY. If the new task is more
 * urgent than the caller and placed on the caller's core it runs before this returns; on
 * another core it starts there at once if it is more urgent than what that core runs.
 * Returns LAB_OK, or LAB_ERR_FAIL (bad core or argument). Requires LAB_HAS_SMP. */
int lab_task_create_on(lab_task_t *task, const char *name, lab_task_fn entry, void *arg,
                       unsigned priority, lab_stack_t *stack, uint32_t stack_words,
                       uint32_t core);

/* ------------------------------------------------------------------ run-to-completion tasks (LAB_HAS_COOP)
 *
 * The cooperative model of a light non-real-time OS: a task is a FUNCTION, not a thread.
 * The kernel's loop calls the most urgent ready task's function, which runs to completion
 * on the one stack (main's) and returns; nothing is preempted, nothing blocks, no task has
 * a stack of its own. Tasks talk through message queues: each queue has one receiving
 * task, and a message sent to it makes that task ready. The functions above that block
 * or switch (LAB_HAS_SCHEDULER and what needs it) do not exist in such a kernel; these do.
 *   - A task is ready while it is activated (lab_coop_task_create and lab_coop_activate
 *     activate it; the kernel clears it when it calls the function) or while any queue it
 *     receives from holds a message. The loop always calls the most urgent ready task;
 *     one task per priority (1 .. LAB_PORT_PRIO_MAX), as in uC/OS-II.
 *   - A task's function should take the messages it can handle with lab_coop_receive and
 *     return; whatever it leaves keeps it ready, so it is called again (after any more
 *     urgent task). A send never runs the receiver before the sender returns.
 *   - When no task is ready the loop sleeps (WFI) until an interrupt makes one ready.
 * lab_task_t and lab_queue_t are the port's types, as above. */

/* Create a task whose function `fn(arg)` the kernel calls when it is ready, at `priority`
 * (1 .. LAB_PORT_PRIO_MAX, not used by another task). It starts activated, so it is
 * called once after lab_coop_start() even if no message comes. Before lab_coop_start()
 * only. Returns LAB_OK or LAB_ERR_FAIL (priority out of range or taken). */
int lab_coop_task_create(lab_task_t *task, const char *name, lab_task_fn fn, void *arg,
                         unsigned priority);

/* A FIFO of `length` items of `item_size` bytes, copied in and out, in `storage`
 * (length * item_size bytes, 4-byte aligned, the queue's from now on), whose messages go
 * to `receiver` (a task created already). Before lab_coop_start() only. Returns LAB_OK
 * or LAB_ERR_FAIL. */
int lab_coop_queue_create(lab_queue_t *queue, uint32_t length, uint32_t item_size,
                          void *storage, lab_task_t *receiver);

/* Copy `item` to the back of `queue` and make its receiver ready. Never blocks, never
 * calls a task. Returns LAB_OK, or LAB_ERR_TIMEOUT when the queue is full. ISR-safe. */
int lab_coop_send(lab_queue_t *queue, const void *item);

/* Copy the front item of `queue` to `item` and remove it. Never blocks. Returns LAB_OK,
 * or LAB_ERR_TIMEOUT when the queue is empty. From the receiving task only. */
int lab_coop_receive(lab_queue_t *queue, void *item);

/* Make `task` ready once more (a message with no content). ISR-safe. */
void lab_coop_activate(lab_task_t *task);

/* Run the kernel's loop: call the most urgent ready task, again and again. Never returns;
 * the run ends when some task calls lab_finish() or lab_fail(). */
__attribute__((noreturn)) void lab_coop_start(void);

/* ------------------------------------------------------------------ trace hook (LAB_TRACE) */

/* The timeline hook (docs/timeline.md). Off unless the build defines LAB_TRACE=1
 * (`rtoslab run --trace`); with it off nothing below is compiled into any image.
 *   LAB_TRACE_TASK_IN(task)  a port calls it each time the kernel switches a task in, with
 *                            the task's trace number (1 .. LAB_TRACE_TASKS - 1 for tasks
 *                            made by lab_task_create, in creation order; 0 for the kernel's
 *                            own tasks such as idle). It is one probe-region store whose
 *                            id is LAB_TRACE_TASK_FIRST_ID + (task mod LAB_TRACE_TASKS):
 *                            those ids are reserved for it, benchmarks never use them. It
 *                            never prints and never blocks; it costs guest cycles, which
 *                            the timeline reports as the cost of tracing.
 *   lab_trace_task_name(task, name)  what the port tells the host about a task's name,
 *                            as one console line `LAB-TASK <task> <name>` (docs/formats.md
 *                            section 7). Call it only off the measured path (before
 *                            lab_port_start()). */
#ifndef LAB_TRACE
#define LAB_TRACE 0
#endif
#define LAB_TRACE_TASKS 64u
#define LAB_TRACE_TASK_FIRST_ID (LAB_PROBE_REGION_SIZE / 4u - LAB_TRACE_TASKS)
#if LAB_TRACE
#include "lab/probe.h"
#define LAB_TRACE_TASK_IN(task) \
    LAB_PROBE_VAR(LAB_TRACE_TASK_FIRST_ID + ((uint32_t)(task) & (LAB_TRACE_TASKS - 1u)))
void lab_trace_task_name(uint32_t task, const char *name);
#endif

#endif /* LAB_PORT_H */
