/*
 * alloc_contend.h - the allocation lab under an RTOS (seed 004's lock experiment), shared
 * by the a_lock_* benchmarks. Like irq_latency.h it holds static code: a benchmark defines
 * ALLOC_LOCK (one of the ALLOC_LOCK_* below) and includes this header from its one source
 * file, so each strategy's lock code is compiled in place.
 *
 * ALLOC_TASKS tasks (1, 2 or 4; --define ALLOC_TASKS=N, default 1) allocate concurrently
 * at priorities 1 .. N. Task 0 (the lowest) allocates without pause; each higher task
 * wakes every tick (lab_task_delay(1)) and does one burst. A burst: ALLOC_BURST blocks of
 * 16 .. 256 B (xorshift32 seeded LAB_ALLOC_SEED + task index), each filled, then each
 * checked and freed. All tasks stop after ALLOC_RUN_TICKS ticks.
 * Background interrupt load: the interrupt-latency trigger of workloads/irq_latency (a
 * timer above every kernel mask raising a kernel-priority interrupt every IRQ_TIMER_PERIOD
 * = 499 cycles: a 50 kHz load at 25 MHz),
 * which also measures what the strategy costs interrupts (metric irq_latency).
 *
 * Lock strategies (ALLOC_LOCK):
 *   ALLOC_LOCK_NONE   no lock: only valid for one task (others: n/a by its bench.toml)
 *   ALLOC_LOCK_IRQ    lab_critical_enter/exit around each call (FreeRTOS: BASEPRI at the
 *                     syscall level: kernel-level interrupts are held off)
 *   ALLOC_LOCK_SCHED  lab_sched_lock/unlock (FreeRTOS: vTaskSuspendAll/xTaskResumeAll)
 *   ALLOC_LOCK_MUTEX  one mutex with priority inheritance (lab_mutex_*)
 *   ALLOC_LOCK_POOLS  no shared heap: each task has its own fixed-block pool (256 B
 *                     blocks, ALLOC_BURST of them) and needs no lock
 *
 * Metrics per task k (0 = lowest priority), probes 500 + 16k + ...:
 *   malloc_wait_tk   +0 -> +1  request -> lock acquired: time blocked by another task
 *                              holding the lock (irq, sched, mutex only; with no lock
 *                              malloc_own_tk starts at +0)
 *   malloc_own_tk    +1 -> +2  lock acquired -> malloc returned: the allocator's work,
 *                              plus interrupts and (mutex only) preemption while holding
 *   malloc_total_tk  +0 -> +3  request -> lock released
 *   free_wait_tk, free_own_tk, free_total_tk   the same for free (+4 .. +7)
 *   irq_latency      probes 2 -> 3 (irq_latency.h)
 * Self-check: every block lies in the heap region (or its task's pool), is aligned and
 * keeps its pattern until freed; every triggered interrupt was handled.
 */
#ifndef ALLOC_CONTEND_H
#define ALLOC_CONTEND_H

#include "alloc_workload.h"
#include "irq_latency.h"
#include "lab/console.h"
#include "lab/port.h"
#include "lab/target.h"

#define ALLOC_LOCK_NONE 0
#define ALLOC_LOCK_IRQ 1
#define ALLOC_LOCK_SCHED 2
#define ALLOC_LOCK_MUTEX 3
#define ALLOC_LOCK_POOLS 4

#ifndef ALLOC_LOCK
#error "define ALLOC_LOCK (ALLOC_LOCK_NONE .. ALLOC_LOCK_POOLS) before including alloc_contend.h"
#endif
#ifndef ALLOC_TASKS
#define ALLOC_TASKS 1
#endif
#if ALLOC_TASKS < 1 || ALLOC_TASKS > 4
#error "ALLOC_TASKS must be 1 .. 4"
#endif
#ifndef ALLOC_RUN_TICKS
#define ALLOC_RUN_TICKS 200u
#endif
#define ALLOC_BURST 4u
#define ALLOC_STACK_WORDS 256u
#define ALLOC_POOL_BLOCK 256u

#if !LAB_HAS_SCHEDULER || !LAB_HAS_DELAY || !LAB_HAS_TICK || !LAB_HAS_IRQ || !LAB_HAS_CRITICAL || \
    !LAB_HAS_MUTEX_PI
#error "a_lock_* need a scheduler, delays, a tick, IRQs, critical sections and mutexes with priority inheritance"
#endif

/* With no lock (none, pools) there is nothing to wait for: no wait metric, and "own"
 * starts at the request (two probes back to back would be an empty interval). */
#define ALLOC_LOCKED (ALLOC_LOCK == ALLOC_LOCK_IRQ || ALLOC_LOCK == ALLOC_LOCK_SCHED || ALLOC_LOCK == ALLOC_LOCK_MUTEX)
#if ALLOC_LOCKED
#define CONTEND_PROBE_ACQUIRED(id) LAB_PROBE(id)
#define ALLOC_CONTEND_META_WAIT(k)                                                         \
    LAB_INTERVAL(malloc_wait_t##k, 500 + 16 * (k), 501 + 16 * (k), "malloc request -> lock acquired, task " #k); \
    LAB_INTERVAL(free_wait_t##k, 504 + 16 * (k), 505 + 16 * (k), "free request -> lock acquired, task " #k);
#define ALLOC_OWN_FROM 1
#else
#define CONTEND_PROBE_ACQUIRED(id) ((void)0)
#define ALLOC_CONTEND_META_WAIT(k)
#define ALLOC_OWN_FROM 0
#endif

/* Metric records of task k (expanded only for the tasks that exist). */
#define ALLOC_CONTEND_META_TASK(k)                                                         \
    ALLOC_CONTEND_META_WAIT(k)                                                             \
    LAB_INTERVAL(malloc_own_t##k, 500 + ALLOC_OWN_FROM + 16 * (k), 502 + 16 * (k), "lock acquired -> malloc returned, task " #k); \
    LAB_INTERVAL(malloc_total_t##k, 500 + 16 * (k), 503 + 16 * (k), "malloc request -> lock released, task " #k); \
    LAB_INTERVAL(free_own_t##k, 504 + ALLOC_OWN_FROM + 16 * (k), 506 + 16 * (k), "lock acquired -> free returned, task " #k); \
    LAB_INTERVAL(free_total_t##k, 504 + 16 * (k), 507 + 16 * (k), "free request -> lock released, task " #k);

LAB_INTERVAL(irq_latency, 2, 3, "timer ISR raises a kernel-level IRQ (tasks allocating) -> its handler");
ALLOC_CONTEND_META_TASK(0)
#if ALLOC_TASKS > 1
ALLOC_CONTEND_META_TASK(1)
#endif
#if ALLOC_TASKS > 2
ALLOC_CONTEND_META_TASK(2)
ALLOC_CONTEND_META_TASK(3)
#endif
#if ALLOC_TASKS == 3
#error "ALLOC_TASKS is 1, 2 or 4"
#endif

/* ---------------------------------------------------------------- the strategy's lock */
#if ALLOC_LOCK == ALLOC_LOCK_MUTEX
static lab_mutex_t contend_mutex;
#endif

static inline void contend_lock(void)
{
#if ALLOC_LOCK == ALLOC_LOCK_IRQ
    lab_critical_enter();
#elif ALLOC_LOCK == ALLOC_LOCK_SCHED
    lab_sched_lock();
#elif ALLOC_LOCK == ALLOC_LOCK_MUTEX
    LAB_CHECK(lab_mutex_lock(&contend_mutex, LAB_WAIT_FOREVER) == LAB_OK);
#endif
}

static inline void contend_unlock(void)
{
#if ALLOC_LOCK == ALLOC_LOCK_IRQ
    lab_critical_exit();
#elif ALLOC_LOCK == ALLOC_LOCK_SCHED
    lab_sched_unlock();
#elif ALLOC_LOCK == ALLOC_LOCK_MUTEX
    LAB_CHECK(lab_mutex_unlock(&contend_mutex) == LAB_OK);
#endif
}

/* ---------------------------------------------------------------- per-task pools */
#if ALLOC_LOCK == ALLOC_LOCK_POOLS
static uint8_t contend_pool_mem[4][ALLOC_BURST][ALLOC_POOL_BLOCK] __attribute__((aligned(8)));
static void *contend_pool_free[4][ALLOC_BURST];
static unsigned contend_pool_n[4];

static void contend_pool_init(unsigned k)
{
    for (unsigned b = 0; b < ALLOC_BURST; b++) {
        contend_pool_free[k][b] = contend_pool_mem[k][b];
    }
    contend_pool_n[k] = ALLOC_BURST;
}

static inline void *contend_malloc(unsigned k, uint32_t size)
{
    (void)size;
    return contend_pool_n[k] ? contend_pool_free[k][--contend_pool_n[k]] : NULL;
}

static inline void contend_free(unsigned k, void *p) { contend_pool_free[k][contend_pool_n[k]++] = p; }

static int contend_in_heap(unsigned k, const uint8_t *p, uint32_t size)
{
    return p >= &contend_pool_mem[k][0][0] && p + size <= &contend_pool_mem[k][0][0] + sizeof contend_pool_mem[k];
}
#else
static inline void *contend_malloc(unsigned k, uint32_t size)
{
    (void)k;
    return lab_alloc_malloc(size);
}

static inline void contend_free(unsigned k, void *p)
{
    (void)k;
    lab_alloc_free(p);
}

static int contend_in_heap(unsigned k, const uint8_t *p, uint32_t size)
{
    (void)k;
    return p >= lab_alloc_region && p + size <= lab_alloc_region + LAB_ALLOC_HEAP_BYTES;
}
#endif

/* ---------------------------------------------------------------- tasks */
struct contend_task {
    lab_task_t task;
    uint32_t rng;
    uint32_t bursts;
    uint32_t failures;
    uint8_t *p[ALLOC_BURST];
    uint32_t size[ALLOC_BURST];
    volatile uint32_t done;
};

static struct contend_task contend_tasks[ALLOC_TASKS];
static LAB_STACK_DEFINE(contend_stacks[ALLOC_TASKS], ALLOC_STACK_WORDS);
static lab_task_t contend_controller;
static LAB_STACK_DEFINE(contend_controller_stack, ALLOC_STACK_WORDS);
static lab_tick_t contend_end_tick;

static uint32_t contend_rnd(struct contend_task *t)
{
    uint32_t x = t->rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    t->rng = x;
    return x;
}

static uint8_t contend_pattern(unsigned k, uint32_t burst, uint32_t b, uint32_t i)
{
    return (uint8_t)(k * 61u + burst * 7u + b * 31u + i);
}

/* One locked malloc / free with task k's probes (k a constant in each expansion). */
#define CONTEND_MALLOC(k, size, out)                                                       \
    do {                                                                                   \
        LAB_PROBE(500 + 16 * (k));                                                         \
        contend_lock();                                                                    \
        CONTEND_PROBE_ACQUIRED(501 + 16 * (k));                                            \
        (out) = contend_malloc((k), (size));                                               \
        LAB_PROBE(502 + 16 * (k));                                                         \
        contend_unlock();                                                                  \
        LAB_PROBE(503 + 16 * (k));                                                         \
    } while (0)
#define CONTEND_FREE(k, ptr)                                                               \
    do {                                                                                   \
        LAB_PROBE(504 + 16 * (k));                                                         \
        contend_lock();                                                                    \
        CONTEND_PROBE_ACQUIRED(505 + 16 * (k));                                            \
        contend_free((k), (ptr));                                                          \
        LAB_PROBE(506 + 16 * (k));                                                         \
        contend_unlock();                                                                  \
        LAB_PROBE(507 + 16 * (k));                                                         \
    } while (0)

static uint8_t *contend_op_malloc(unsigned k, uint32_t size)
{
    uint8_t *p = NULL;
    switch (k) {
    case 0:
        CONTEND_MALLOC(0, size, p);
        break;
#if ALLOC_TASKS > 1
    case 1:
        CONTEND_MALLOC(1, size, p);
        break;
#endif
#if ALLOC_TASKS > 2
    case 2:
        CONTEND_MALLOC(2, size, p);
        break;
    case 3:
        CONTEND_MALLOC(3, size, p);
        break;
#endif
    default:
        LAB_CHECK(0);
    }
    return p;
}

static void contend_op_free(unsigned k, uint8_t *p)
{
    switch (k) {
    case 0:
        CONTEND_FREE(0, p);
        break;
#if ALLOC_TASKS > 1
    case 1:
        CONTEND_FREE(1, p);
        break;
#endif
#if ALLOC_TASKS > 2
    case 2:
        CONTEND_FREE(2, p);
        break;
    case 3:
        CONTEND_FREE(3, p);
        break;
#endif
    default:
        LAB_CHECK(0);
    }
}

static void contend_burst(unsigned k, struct contend_task *t)
{
    for (uint32_t b = 0; b < ALLOC_BURST; b++) {
        uint32_t size = 16u + contend_rnd(t) % 241u;
        uint8_t *p = contend_op_malloc(k, size);
        t->p[b] = p;
        t->size[b] = size;
        if (p == NULL) {
            t->failures++;
            continue;
        }
        LAB_CHECK(contend_in_heap(k, p, size) && ((uintptr_t)p % LAB_ALLOC_ALIGN) == 0u);
        for (uint32_t i = 0; i < size; i++) {
            p[i] = contend_pattern(k, t->bursts, b, i);
        }
    }
    for (uint32_t b = 0; b < ALLOC_BURST; b++) {
        uint8_t *p = t->p[b];
        if (p == NULL) {
            continue;
        }
        for (uint32_t i = 0; i < t->size[b]; i++) {
            LAB_CHECK(p[i] == contend_pattern(k, t->bursts, b, i));
        }
        contend_op_free(k, p);
    }
    t->bursts++;
}

static void contend_task_fn(void *arg)
{
    unsigned k = (unsigned)(uintptr_t)arg;
    struct contend_task *t = &contend_tasks[k];
    while ((int32_t)(lab_tick_count() - contend_end_tick) < 0) {
        contend_burst(k, t);
        if (k > 0u) {
            lab_task_delay(1);
        }
    }
    t->done = 1u;
    for (;;) {
        lab_task_delay(1000u);
    }
}

static void contend_controller_fn(void *arg)
{
    (void)arg;
    irq_line = lab_target_irq_soft(0);
    LAB_CHECK(lab_target_irq_install(irq_line, irq_measured_handler, lab_port_irq_prio_kernel()) == 0);
    LAB_CHECK(lab_target_timer_start(IRQ_TIMER_PERIOD, irq_timer_handler, lab_port_irq_prio_unmanaged()) == 0);
    for (unsigned k = 0; k < ALLOC_TASKS; k++) {
        while (!contend_tasks[k].done) {
            lab_task_delay(1);
        }
    }
    lab_target_timer_stop();
    lab_target_irq_remove(irq_line);
    LAB_CHECK(irq_handled == irq_triggered && irq_handled > 0u);
    lab_console_put_kv("irq_samples", irq_handled);
    lab_console_put_kv("irq_triggers_skipped", irq_skipped);
    lab_console_put_kv("alloc_tasks", ALLOC_TASKS);
    uint32_t failures = 0;
    for (unsigned k = 0; k < ALLOC_TASKS; k++) {
        LAB_CHECK(contend_tasks[k].bursts > 0u);
        failures += contend_tasks[k].failures;
    }
    lab_console_put_kv("bursts_t0", contend_tasks[0].bursts);
    lab_console_put_kv("alloc_failures", failures);
    lab_finish();
}

static void alloc_contend_run(void)
{
#if ALLOC_LOCK == ALLOC_LOCK_NONE
    if (ALLOC_TASKS != 1) {
        lab_fail_status(LAB_EXIT_UNSUPPORTED,
                        "a_lock_none has no lock: it runs one task only (use ALLOC_TASKS=1)");
    }
#endif
    alloc_wl_init();
    lab_port_init();
#if ALLOC_LOCK == ALLOC_LOCK_MUTEX
    LAB_CHECK(lab_mutex_create(&contend_mutex) == LAB_OK);
#endif
    contend_end_tick = (lab_tick_t)ALLOC_RUN_TICKS;
    for (unsigned k = 0; k < ALLOC_TASKS; k++) {
        contend_tasks[k].rng = LAB_ALLOC_SEED + 0x9E3779B9u * (k + 1u);
#if ALLOC_LOCK == ALLOC_LOCK_POOLS
        contend_pool_init(k);
#endif
        LAB_CHECK(lab_task_create(&contend_tasks[k].task, "alloc", contend_task_fn, (void *)(uintptr_t)k,
                                  1u + k, contend_stacks[k], ALLOC_STACK_WORDS) == LAB_OK);
    }
    LAB_CHECK(lab_task_create(&contend_controller, "ctrl", contend_controller_fn, 0, ALLOC_TASKS + 1u,
                              contend_controller_stack, ALLOC_STACK_WORDS) == LAB_OK);
    lab_port_start();
}

#endif /* ALLOC_CONTEND_H */
