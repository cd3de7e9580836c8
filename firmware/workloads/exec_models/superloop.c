/* The super-loop execution model (superloop.h). */
#include "superloop.h"

#include "lab/bench.h"
#include "lab/port.h"
#include "lab/target.h"

static sl_job_t *sl_table[SL_MAX_JOBS];
static uint32_t sl_count;
static volatile uint32_t sl_ticks;
static volatile bool sl_stopped;

static void sl_tick_isr(void) { sl_ticks = sl_ticks + 1u; }

void sl_init(void)
{
    sl_count = 0u;
    sl_ticks = 0u;
    sl_stopped = false;
    LAB_CHECK(lab_target_timer_start(lab_target_clock_hz() / SL_TICK_HZ, sl_tick_isr, lab_port_irq_prio_kernel()) ==
              0);
}

uint32_t sl_now(void) { return sl_ticks; }

void sl_add(sl_job_t *job, sl_job_fn fn, void *arg, uint32_t period, uint32_t first_delay)
{
    LAB_CHECK(sl_count < SL_MAX_JOBS && fn != 0);
    job->fn = fn;
    job->arg = arg;
    job->period = period;
    job->armed = false;
    if (first_delay != SL_NOT_ARMED) {
        sl_schedule(job, first_delay);
    }
    sl_table[sl_count++] = job;
}

void sl_schedule(sl_job_t *job, uint32_t delay)
{
    job->due = sl_now() + delay;
    job->armed = true;
}

void sl_cancel(sl_job_t *job) { job->armed = false; }

void sl_stop(void) { sl_stopped = true; }

void sl_run(void)
{
    while (!sl_stopped) {
        for (uint32_t i = 0; i < sl_count; i++) {
            sl_job_t *job = sl_table[i];
            /* Due when the tick has reached job->due (wrap-safe difference). */
            if (job->armed && (int32_t)(sl_now() - job->due) >= 0) {
                if (job->period != 0u) {
                    job->due += job->period;
                } else {
                    job->armed = false;
                }
                job->fn(job->arg);
            }
        }
    }
    lab_target_timer_stop();
}
