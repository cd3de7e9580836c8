/*
 * coro.h - a small stackless-coroutine executor hosted in one RTOS thread, beside the
 * kernel's preemptive threads (docs/execution-models.md, "Threads with coroutines").
 *
 * The model of an async executor inside an RTOS task (embassy's design in C):
 *   coroutine   a function with its resume point in its frame (coro_t, embedded first in
 *               a struct of the coroutine's own state); CORO_AWAIT returns to the executor
 *               and the next poll continues after it. No stack of its own: while it runs
 *               it uses the executor thread's stack, and between polls it holds none (its
 *               locals do not survive an await: keep state in its struct or statics)
 *   run queue   a FIFO of woken coroutines (a link in each frame, so waking allocates
 *               nothing), changed in short critical sections
 *   waking      coro_wake (thread) / coro_wake_from_isr (interrupt handler) queue the
 *               coroutine and notify the executor thread when the queue was empty (the
 *               "pender"), through lab/port.h's direct notification
 *   executor    coro_exec_run, the body of its thread: poll each queued coroutine once, in
 *               FIFO order; when the queue is empty, CORO_IDLE_HOOK() (the benchmark's, or
 *               nothing) and block in lab_notify_wait until a wake
 * The executor thread is an ordinary kernel thread: more urgent threads preempt it, and
 * with it whichever coroutine it is polling; a coroutine woken from an interrupt runs when
 * the kernel switches to the executor thread.
 *
 * Header-only (static inline): the benchmark that includes it may define CORO_IDLE_HOOK()
 * first, so its probes sit in the executor's idle path without a call.
 */
#ifndef WORKLOADS_CORO_H
#define WORKLOADS_CORO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lab/port.h"

#if !LAB_HAS_SCHEDULER || !LAB_HAS_NOTIFY || !LAB_HAS_CRITICAL
#error "coro.h needs LAB_HAS_SCHEDULER, LAB_HAS_NOTIFY and LAB_HAS_CRITICAL (an executor thread and its pender)"
#endif

#ifndef CORO_IDLE_HOOK
#define CORO_IDLE_HOOK() ((void)0)
#endif

enum { CORO_PENDING = 0, CORO_DONE = 1 };

struct coro;
typedef int (*coro_fn)(struct coro *co);

/* A coroutine's frame: what the executor needs. */
typedef struct coro {
    coro_fn fn;        /* polled with the frame; returns CORO_PENDING or CORO_DONE */
    struct coro *next; /* run-queue link */
    uint32_t resume;   /* where the next poll continues (0: the start) */
    uint32_t queued;   /* 1 while in the run queue */
} coro_t;

/* An executor: its thread and run queue. */
typedef struct coro_exec {
    lab_task_t *thread;
    coro_t *head;
    coro_t *tail;
} coro_exec_t;

/* The body of a coroutine function: CORO_BEGIN(co); ... CORO_AWAIT(co); ... CORO_END(co); */
#define CORO_BEGIN(co)        \
    switch ((co)->resume) {   \
    case 0:
#define CORO_AWAIT(co)                  \
    do {                                \
        (co)->resume = __LINE__;        \
        return CORO_PENDING;            \
    case __LINE__:;                     \
    } while (0)
#define CORO_END(co)     \
    }                    \
    (co)->resume = 0u;   \
    return CORO_DONE

/* Queue `co` (critical section held by the caller); true if the queue was empty. */
static inline bool coro_enqueue(coro_exec_t *ex, coro_t *co)
{
    if (co->queued != 0u) {
        return false;
    }
    bool was_empty = ex->head == NULL;
    co->queued = 1u;
    co->next = NULL;
    if (ex->tail != NULL) {
        ex->tail->next = co;
    } else {
        ex->head = co;
    }
    ex->tail = co;
    return was_empty;
}

/* An executor run by `thread` (created by the caller, its body calling coro_exec_run). */
static inline void coro_exec_init(coro_exec_t *ex, lab_task_t *thread)
{
    ex->thread = thread;
    ex->head = NULL;
    ex->tail = NULL;
}

/* A coroutine polled first when its executor runs. Before lab_port_start() only. */
static inline void coro_spawn(coro_exec_t *ex, coro_t *co, coro_fn fn)
{
    co->fn = fn;
    co->resume = 0u;
    co->queued = 0u;
    (void)coro_enqueue(ex, co);
}

/* Wake `co` from a thread (or a coroutine): it is polled when the executor thread runs. */
static inline void coro_wake(coro_exec_t *ex, coro_t *co)
{
    lab_critical_enter();
    bool pend = coro_enqueue(ex, co);
    lab_critical_exit();
    if (pend) {
        lab_notify(ex->thread);
    }
}

/* Wake `co` from an interrupt handler; see lab/port.h's "woken" flags. */
static inline void coro_wake_from_isr(coro_exec_t *ex, coro_t *co, bool *woken)
{
    uint32_t saved = lab_critical_enter_from_isr();
    bool pend = coro_enqueue(ex, co);
    lab_critical_exit_from_isr(saved);
    if (pend) {
        lab_notify_from_isr(ex->thread, woken);
    }
}

/* The executor thread's body: never returns. */
__attribute__((noreturn)) static inline void coro_exec_run(coro_exec_t *ex)
{
    for (;;) {
        lab_critical_enter();
        coro_t *co = ex->head;
        if (co != NULL) {
            ex->head = co->next;
            if (ex->head == NULL) {
                ex->tail = NULL;
            }
            co->queued = 0u;
        }
        lab_critical_exit();
        if (co == NULL) {
            CORO_IDLE_HOOK();
            (void)lab_notify_wait(LAB_WAIT_FOREVER);
            continue;
        }
        (void)co->fn(co);
    }
}

#endif /* WORKLOADS_CORO_H */
