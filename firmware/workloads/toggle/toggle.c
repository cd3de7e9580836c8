/* Workload 1, model-independent part (toggle.h). */
#include "toggle.h"

#include "lab/bench.h"
#include "lab/console.h"
#include "lab/port.h"
#include "lab/target.h"

#if !LAB_HAS_CRITICAL
#error "the toggle workload needs LAB_HAS_CRITICAL (completion bookkeeping)"
#endif

/* Probe ids. */
#define TOGGLE_ID_ORIGIN 2
#define TOGGLE_ID_FIRST_DONE 3
#define TOGGLE_ID_LAST_DONE 4
#define TOGGLE_ID_FIRST_1 11
#define TOGGLE_ID_FIRST_2 12
#define TOGGLE_ID_FIRST_3 13
#define TOGGLE_ID_FIRST_4 14
#define TOGGLE_ID_FIRST_5 15
#define TOGGLE_ID_DONE_1 21
#define TOGGLE_ID_DONE_2 22
#define TOGGLE_ID_DONE_3 23
#define TOGGLE_ID_DONE_4 24
#define TOGGLE_ID_DONE_5 25

/* Metrics, listed in this order (probe.h keeps declaration order). */
LAB_INTERVAL(start_1, TOGGLE_ID_ORIGIN, TOGGLE_ID_FIRST_1, "origin -> task 1's first output write");
#if TOGGLE_TASKS >= 2
LAB_INTERVAL(start_2, TOGGLE_ID_ORIGIN, TOGGLE_ID_FIRST_2, "origin -> task 2's first output write");
#endif
#if TOGGLE_TASKS >= 3
LAB_INTERVAL(start_3, TOGGLE_ID_ORIGIN, TOGGLE_ID_FIRST_3, "origin -> task 3's first output write");
#endif
#if TOGGLE_TASKS >= 4
LAB_INTERVAL(start_4, TOGGLE_ID_ORIGIN, TOGGLE_ID_FIRST_4, "origin -> task 4's first output write");
#endif
#if TOGGLE_TASKS >= 5
LAB_INTERVAL(start_5, TOGGLE_ID_ORIGIN, TOGGLE_ID_FIRST_5, "origin -> task 5's first output write");
#endif
LAB_INTERVAL(done_1, TOGGLE_ID_ORIGIN, TOGGLE_ID_DONE_1, "origin -> task 1's last output write");
#if TOGGLE_TASKS >= 2
LAB_INTERVAL(done_2, TOGGLE_ID_ORIGIN, TOGGLE_ID_DONE_2, "origin -> task 2's last output write");
#endif
#if TOGGLE_TASKS >= 3
LAB_INTERVAL(done_3, TOGGLE_ID_ORIGIN, TOGGLE_ID_DONE_3, "origin -> task 3's last output write");
#endif
#if TOGGLE_TASKS >= 4
LAB_INTERVAL(done_4, TOGGLE_ID_ORIGIN, TOGGLE_ID_DONE_4, "origin -> task 4's last output write");
#endif
#if TOGGLE_TASKS >= 5
LAB_INTERVAL(done_5, TOGGLE_ID_ORIGIN, TOGGLE_ID_DONE_5, "origin -> task 5's last output write");
#endif
LAB_INTERVAL(spread, TOGGLE_ID_FIRST_DONE, TOGGLE_ID_LAST_DONE, "first task's completion -> last task's completion");
LAB_INTERVAL(total, TOGGLE_ID_ORIGIN, TOGGLE_ID_LAST_DONE, "origin (all tasks released) -> last task's completion");

static volatile lab_output_t *toggle_out;
static uint32_t toggle_progress[TOGGLE_TASKS]; /* writes made this round, per task */
static uint32_t toggle_done;                    /* tasks finished this round */
static uint32_t toggle_rounds;                  /* rounds begun */

/* Output writes number i .. end-1: write i's value is i & 1, so the output toggles. */
static inline void toggle_span(volatile lab_output_t *out, uint32_t i, uint32_t end)
{
    for (; i < end; i++) {
        *out = i & 1u;
    }
}

/* A task has just made its last write. Counted in a critical section so that, when tasks
 * preempt each other, the first and last completion probes still come in order. */
static toggle_result_t toggle_task_done(void)
{
    toggle_result_t r = TOGGLE_TASK_DONE;
    lab_critical_enter();
    uint32_t n = ++toggle_done;
    if (n == 1u) {
        LAB_PROBE(TOGGLE_ID_FIRST_DONE);
    }
    if (n == (uint32_t)TOGGLE_TASKS) {
        LAB_PROBE(TOGGLE_ID_LAST_DONE);
        r = TOGGLE_ROUND_DONE;
    }
    lab_critical_exit();
    return r;
}

/* Task k's work: the same code for every task but its probe ids (which must be constants). */
#define TOGGLE_DEFINE_PART(k, first_id, done_id)                                                   \
    static toggle_result_t toggle_part_##k(uint32_t from, uint32_t count)                          \
    {                                                                                              \
        volatile lab_output_t *const out = toggle_out;                                                 \
        const uint32_t end = from + count;                                                         \
        uint32_t i = from;                                                                         \
        LAB_CHECK(from == toggle_progress[(k) - 1] && count > 0u && end <= TOGGLE_COUNT);          \
        toggle_progress[(k) - 1] = end;                                                            \
        if (i == 0u) {                                                                             \
            *out = 0u;                                                                             \
            LAB_PROBE(first_id);                                                                   \
            i = 1u;                                                                                \
        }                                                                                          \
        if (end < TOGGLE_COUNT) {                                                                  \
            toggle_span(out, i, end);                                                              \
            return TOGGLE_MORE;                                                                    \
        }                                                                                          \
        toggle_span(out, i, TOGGLE_COUNT - 1u);                                                    \
        *out = (TOGGLE_COUNT - 1u) & 1u;                                                           \
        LAB_PROBE(done_id);                                                                        \
        return toggle_task_done();                                                                 \
    }

TOGGLE_DEFINE_PART(1, TOGGLE_ID_FIRST_1, TOGGLE_ID_DONE_1)
#if TOGGLE_TASKS >= 2
TOGGLE_DEFINE_PART(2, TOGGLE_ID_FIRST_2, TOGGLE_ID_DONE_2)
#endif
#if TOGGLE_TASKS >= 3
TOGGLE_DEFINE_PART(3, TOGGLE_ID_FIRST_3, TOGGLE_ID_DONE_3)
#endif
#if TOGGLE_TASKS >= 4
TOGGLE_DEFINE_PART(4, TOGGLE_ID_FIRST_4, TOGGLE_ID_DONE_4)
#endif
#if TOGGLE_TASKS >= 5
TOGGLE_DEFINE_PART(5, TOGGLE_ID_FIRST_5, TOGGLE_ID_DONE_5)
#endif

const toggle_part_fn toggle_part[TOGGLE_TASKS] = {
    toggle_part_1,
#if TOGGLE_TASKS >= 2
    toggle_part_2,
#endif
#if TOGGLE_TASKS >= 3
    toggle_part_3,
#endif
#if TOGGLE_TASKS >= 4
    toggle_part_4,
#endif
#if TOGGLE_TASKS >= 5
    toggle_part_5,
#endif
};

void toggle_init(void)
{
    toggle_out = lab_target_output_reg();
    LAB_CHECK(toggle_out != 0);
    /* The register must be a real one: it keeps what was written. */
    *toggle_out = 1u;
    LAB_CHECK((*toggle_out & 1u) == 1u);
    *toggle_out = 0u;
    LAB_CHECK((*toggle_out & 1u) == 0u);
    for (uint32_t k = 0; k < (uint32_t)TOGGLE_TASKS; k++) {
        toggle_progress[k] = 0u;
    }
    toggle_done = 0u;
    toggle_rounds = 0u;
}

void toggle_round_begin(void)
{
    LAB_PROBE(TOGGLE_ID_ORIGIN);
    toggle_rounds++;
}

int toggle_round_end(void)
{
    LAB_CHECK(toggle_done == (uint32_t)TOGGLE_TASKS);
    for (uint32_t k = 0; k < (uint32_t)TOGGLE_TASKS; k++) {
        LAB_CHECK(toggle_progress[k] == TOGGLE_COUNT);
        toggle_progress[k] = 0u;
    }
    LAB_CHECK((*toggle_out & 1u) == ((TOGGLE_COUNT - 1u) & 1u));
    toggle_done = 0u;
    return toggle_rounds < TOGGLE_ROUNDS ? 1 : 0;
}

void toggle_report(void)
{
    LAB_CHECK(toggle_rounds == TOGGLE_ROUNDS);
    lab_console_put_kv("toggle_tasks", (uint32_t)TOGGLE_TASKS);
    lab_console_put_kv("toggle_writes_per_task", TOGGLE_COUNT);
    lab_console_put_kv("toggle_rounds", TOGGLE_ROUNDS);
}
