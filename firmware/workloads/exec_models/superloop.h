/*
 * superloop.h - the super-loop execution model: timer-registered jobs polled from main,
 * run to completion (the Arduino "TimerObject" structure of seed 002).
 *
 *   job table   { function, argument, period, next due time, armed } per job, in the
 *               order the jobs were added (that order is also the order in which jobs
 *               that are due at the same time run)
 *   time        sl_now(): a tick counter incremented by the target's benchmark timer
 *               interrupt at SL_TICK_HZ (Arduino's millis()); the only interrupt
 *   main loop   sl_run(): for each job in table order, if it is armed and its due time
 *               has come, re-arm it (due += period) or disarm it (one-shot, period 0) and
 *               call it; repeat until sl_stop()
 *
 * No preemption, no stacks besides main's, no queues: a job that runs long delays every
 * job behind it, which is exactly what this model costs. Nothing here masks interrupts.
 * Jobs run in thread mode from sl_run(); the timer interrupt only advances the tick, so
 * the table needs no locking. Not for use on a port with a running scheduler.
 */
#ifndef MODELS_SUPERLOOP_H
#define MODELS_SUPERLOOP_H

#include <stdbool.h>
#include <stdint.h>

/* Tick rate of sl_now() in Hz (Arduino's millis() ticks at 1 kHz). */
#ifndef SL_TICK_HZ
#define SL_TICK_HZ 1000u
#endif

/* Most jobs the table holds. */
#ifndef SL_MAX_JOBS
#define SL_MAX_JOBS 8u
#endif

typedef void (*sl_job_fn)(void *arg);

/* One job: caller-owned storage, registered with sl_add(). Fields are the framework's. */
typedef struct sl_job {
    sl_job_fn fn;
    void *arg;
    uint32_t period; /* ticks between runs; 0 = one-shot (disarmed after it runs) */
    uint32_t due;    /* tick at which it runs next, when armed */
    bool armed;
} sl_job_t;

/* Empty job table, tick 0; starts the tick timer (interrupts at the port's kernel level).
 * Call once before anything else. */
void sl_init(void);

/* Adds `job` to the end of the table: it calls fn(arg) every `period` ticks (0 = once),
 * the first time `first_delay` ticks from now; SL_NOT_ARMED leaves it disarmed until
 * sl_schedule(). Fails the run when the table is full. */
#define SL_NOT_ARMED 0xFFFFFFFFu
void sl_add(sl_job_t *job, sl_job_fn fn, void *arg, uint32_t period, uint32_t first_delay);

/* Arms `job` to run `delay` ticks from now (0: at the next poll of its table slot).
 * Callable from jobs. */
void sl_schedule(sl_job_t *job, uint32_t delay);

/* Disarms `job`. */
void sl_cancel(sl_job_t *job);

/* Ticks since sl_init() (wraps at 2^32). */
uint32_t sl_now(void);

/* Polls the table until a job calls sl_stop(); then stops the tick timer and returns. */
void sl_run(void);

/* Makes sl_run() return at the end of the current pass over the table. */
void sl_stop(void);

#endif /* MODELS_SUPERLOOP_H */
