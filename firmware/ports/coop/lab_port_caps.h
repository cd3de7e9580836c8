/* Capabilities of the coop kernel (see lab/port.h). 1 = supported, 0 = not; the comment
 * after a 0 is the reason rtoslab reports for benchmarks that need it. Its tasks are
 * functions that run to completion on main's stack, so nothing that blocks, waits for
 * time or switches in the middle of a task exists here. */
#ifndef LAB_PORT_CAPS_H
#define LAB_PORT_CAPS_H

#define LAB_HAS_SCHEDULER 0          /* coop: tasks are run-to-completion functions without stacks, so a task that never returns, yields or is preempted cannot exist (lab_coop_* instead) */
#define LAB_HAS_TASK_CREATE_DELETE 0 /* coop: tasks are registered before lab_coop_start and live for the whole run */
#define LAB_HAS_SUSPEND 0            /* coop: a task runs when it has messages; there is no state to suspend it in */
#define LAB_HAS_DELAY 0              /* coop: no tick and no per-task stack, so a task cannot wait for time */
#define LAB_HAS_TICK 0               /* coop: the kernel keeps no time (no tick interrupt) */
#define LAB_HAS_TICK_HOOKS 0         /* coop: no tick interrupt */
#define LAB_HAS_SEMAPHORE 0          /* coop: a task cannot block on a semaphore; messages (lab_coop_send) make tasks ready */
#define LAB_HAS_MUTEX 0              /* coop: tasks never interleave, so there is nothing to lock against; no blocking */
#define LAB_HAS_MUTEX_PI 0           /* coop: no mutexes, no preemption */
#define LAB_HAS_QUEUE 0              /* coop: lab_queue_* block with a timeout, which a run-to-completion task cannot; its queues are lab_coop_send/receive */
#define LAB_HAS_NOTIFY 0             /* coop: a task cannot wait for a notification; lab_coop_activate makes it ready instead */
#define LAB_HAS_CRITICAL 1
#define LAB_HAS_IRQ 1
#define LAB_HAS_SMP 0                /* coop: one loop on core 0 */
#define LAB_HAS_COOP 1

#endif /* LAB_PORT_CAPS_H */
