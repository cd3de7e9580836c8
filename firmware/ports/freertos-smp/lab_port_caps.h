/* Capabilities of the freertos-smp port (see lab/port.h): everything the single-core
 * freertos port has, and several cores. 1 = supported, 0 = not; the comment after a 0 is
 * the reason rtoslab reports for benchmarks that need it. */
#ifndef LAB_PORT_CAPS_H
#define LAB_PORT_CAPS_H

#define LAB_HAS_SCHEDULER 1
#define LAB_HAS_TASK_CREATE_DELETE 1
#define LAB_HAS_SUSPEND 1
#define LAB_HAS_DELAY 1
#define LAB_HAS_TICK 1
#define LAB_HAS_TICK_HOOKS 1
#define LAB_HAS_SEMAPHORE 1
#define LAB_HAS_MUTEX 1
#define LAB_HAS_MUTEX_PI 1
#define LAB_HAS_QUEUE 1
#define LAB_HAS_NOTIFY 1
#define LAB_HAS_CRITICAL 1
#define LAB_HAS_IRQ 1
#define LAB_HAS_SMP 1
#define LAB_HAS_COOP 0               /* FreeRTOS tasks are threads with their own stacks; run-to-completion tasks are the coop kernel's */

#endif /* LAB_PORT_CAPS_H */
