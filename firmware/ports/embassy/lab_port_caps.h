/* Capabilities of the embassy port (see lab/port.h and docs/rust-models.md). embassy is
 * measured through Rust versions of the benchmarks (bench/<b>/rust/embassy/), which use
 * embassy's own API; none of lab/port.h's task API is offered, so every capability but CRITICAL is 0 and a
 * C benchmark that needs one is "n/a" for this reason; only critical sections (PRIMASK, as the model's own)
 * exist, for C workload code linked into Rust images. */
#ifndef LAB_PORT_CAPS_H
#define LAB_PORT_CAPS_H

#define LAB_HAS_SCHEDULER 0          /* embassy: tasks are async futures polled by an executor, not lab/port.h threads; the Rust version of a benchmark runs where one exists */
#define LAB_HAS_TASK_CREATE_DELETE 0 /* embassy: tasks are async futures polled by an executor, not lab/port.h threads; the Rust version of a benchmark runs where one exists */
#define LAB_HAS_SUSPEND 0            /* embassy: a future cannot be suspended from outside; it awaits */
#define LAB_HAS_DELAY 0              /* embassy: tasks are async futures polled by an executor, not lab/port.h threads; the Rust version of a benchmark runs where one exists */
#define LAB_HAS_TICK 0               /* embassy: tasks are async futures polled by an executor, not lab/port.h threads; the Rust version of a benchmark runs where one exists */
#define LAB_HAS_TICK_HOOKS 0         /* embassy: its time driver is ours in Rust; no C tick hooks */
#define LAB_HAS_SEMAPHORE 0          /* embassy: tasks are async futures polled by an executor, not lab/port.h threads; the Rust version of a benchmark runs where one exists */
#define LAB_HAS_MUTEX 0              /* embassy: tasks are async futures polled by an executor, not lab/port.h threads; the Rust version of a benchmark runs where one exists */
#define LAB_HAS_MUTEX_PI 0           /* embassy-sync Mutex has no priority inheritance */
#define LAB_HAS_QUEUE 0              /* embassy: tasks are async futures polled by an executor, not lab/port.h threads; the Rust version of a benchmark runs where one exists */
#define LAB_HAS_NOTIFY 0             /* embassy: tasks are async futures polled by an executor, not lab/port.h threads; the Rust version of a benchmark runs where one exists */
#define LAB_HAS_CRITICAL 1
#define LAB_HAS_IRQ 0                /* embassy: tasks are async futures polled by an executor, not lab/port.h threads; the Rust version of a benchmark runs where one exists */
#define LAB_HAS_SMP 0                /* embassy: one executor on one core */
#define LAB_HAS_COOP 0               /* embassy: async tasks are futures polled by its executor, written in Rust (bench/<b>/rust/embassy) */

#endif /* LAB_PORT_CAPS_H */
