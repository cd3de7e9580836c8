/* Capabilities of the template port (see lab/port.h). 1 = supported, 0 = not; the comment
 * after a 0 is the reason rtoslab reports for benchmarks that need it. A real port sets a
 * capability to 1 only when every function of that group works as lab/port.h says. */
#ifndef LAB_PORT_CAPS_H
#define LAB_PORT_CAPS_H

#define LAB_HAS_SCHEDULER 0          /* template port: no kernel behind it */
#define LAB_HAS_TASK_CREATE_DELETE 0 /* template port: no kernel behind it */
#define LAB_HAS_SUSPEND 0            /* template port: no kernel behind it */
#define LAB_HAS_DELAY 0              /* template port: no kernel behind it */
#define LAB_HAS_TICK 0               /* template port: no kernel behind it */
#define LAB_HAS_TICK_HOOKS 0         /* template port: no kernel behind it */
#define LAB_HAS_SEMAPHORE 0          /* template port: no kernel behind it */
#define LAB_HAS_MUTEX 0              /* template port: no kernel behind it */
#define LAB_HAS_MUTEX_PI 0           /* template port: no kernel behind it */
#define LAB_HAS_QUEUE 0              /* template port: no kernel behind it */
#define LAB_HAS_NOTIFY 0             /* template port: no kernel behind it */
#define LAB_HAS_CRITICAL 0           /* template port: no kernel behind it */
#define LAB_HAS_IRQ 0                /* template port: no kernel behind it */
#define LAB_HAS_SMP 0                /* template port: no kernel behind it */
#define LAB_HAS_COOP 0               /* template port: no kernel behind it */

#endif /* LAB_PORT_CAPS_H */
