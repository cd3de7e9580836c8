/* Capabilities of the bare-metal port (see lab/port.h). 1 = supported, 0 = not; the
 * comment after a 0 is the reason rtoslab reports for benchmarks that need it. */
#ifndef LAB_PORT_CAPS_H
#define LAB_PORT_CAPS_H

#define LAB_HAS_SCHEDULER 0          /* no kernel: there are no tasks to schedule */
#define LAB_HAS_TASK_CREATE_DELETE 0 /* no kernel: there are no tasks */
#define LAB_HAS_SUSPEND 0            /* no kernel: there are no tasks to suspend */
#define LAB_HAS_DELAY 0              /* no kernel: no tick and nothing to block */
#define LAB_HAS_TICK 0               /* no kernel: no tick interrupt */
#define LAB_HAS_TICK_HOOKS 0         /* no kernel: no tick interrupt */
#define LAB_HAS_SEMAPHORE 0          /* no kernel: no blocking objects */
#define LAB_HAS_MUTEX 0              /* no kernel: no blocking objects */
#define LAB_HAS_MUTEX_PI 0           /* no kernel: no tasks, so no priority inheritance */
#define LAB_HAS_QUEUE 0              /* no kernel: no blocking objects */
#define LAB_HAS_NOTIFY 0             /* no kernel: there are no tasks to notify */
#define LAB_HAS_CRITICAL 1
#define LAB_HAS_IRQ 1
#define LAB_HAS_SMP 0                /* bare metal: no scheduler, main runs on core 0 only */
#define LAB_HAS_COOP 0               /* no kernel: there are no tasks to call (the FSM framework, workloads/exec_models/fsm.h, is the bare-metal form) */

#endif /* LAB_PORT_CAPS_H */
