/* Capabilities of the rtic port (see lab/port.h and docs/rust-models.md). RTIC is
 * measured through Rust versions of the benchmarks (bench/<b>/rust/rtic/), each an RTIC
 * app; none of lab/port.h's C API is offered, so every capability but CRITICAL is 0 and a C benchmark
 * that needs one is "n/a" for this reason; only critical sections (PRIMASK, as the model's own)
 * exist, for C workload code linked into Rust images. */
#ifndef LAB_PORT_CAPS_H
#define LAB_PORT_CAPS_H

#define LAB_HAS_SCHEDULER 0          /* rtic: tasks are RTIC software and hardware tasks of an app, not lab/port.h threads; the Rust version of a benchmark runs where one exists */
#define LAB_HAS_TASK_CREATE_DELETE 0 /* rtic: the task set is fixed at compile time */
#define LAB_HAS_SUSPEND 0            /* rtic: a task cannot be suspended from outside; it awaits */
#define LAB_HAS_DELAY 0              /* rtic: tasks are RTIC software and hardware tasks of an app, not lab/port.h threads; the Rust version of a benchmark runs where one exists */
#define LAB_HAS_TICK 0               /* rtic: no tick; time comes from a monotonic timer */
#define LAB_HAS_TICK_HOOKS 0         /* rtic: no tick interrupt */
#define LAB_HAS_SEMAPHORE 0          /* rtic: tasks are RTIC software and hardware tasks of an app, not lab/port.h threads; the Rust version of a benchmark runs where one exists */
#define LAB_HAS_MUTEX 0              /* rtic: tasks are RTIC software and hardware tasks of an app, not lab/port.h threads; the Rust version of a benchmark runs where one exists */
#define LAB_HAS_MUTEX_PI 0           /* rtic: resources use priority ceilings, no inheritance */
#define LAB_HAS_QUEUE 0              /* rtic: tasks are RTIC software and hardware tasks of an app, not lab/port.h threads; the Rust version of a benchmark runs where one exists */
#define LAB_HAS_NOTIFY 0             /* rtic: tasks are RTIC software and hardware tasks of an app, not lab/port.h threads; the Rust version of a benchmark runs where one exists */
#define LAB_HAS_CRITICAL 1
#define LAB_HAS_IRQ 0                /* rtic: tasks are RTIC software and hardware tasks of an app, not lab/port.h threads; the Rust version of a benchmark runs where one exists */
#define LAB_HAS_SMP 0                /* rtic: RTIC 2 apps run on one core */
#define LAB_HAS_COOP 0               /* rtic: software tasks are RTIC's own, written in Rust (bench/<b>/rust/rtic) */

#endif /* LAB_PORT_CAPS_H */
