/*
 * tp_mem: throughput suite, memory allocation (Thread-Metric's memory allocation test).
 *
 * One task (bare metal: the main program) allocates a 128-byte block and releases it again.
 * lab/port.h has no memory-pool API, so the pool is this benchmark's own: MEM_BLOCKS blocks
 * of MEM_BLOCK_BYTES, a singly linked LIFO free list, each allocate and release inside a
 * lab_critical_enter/exit pair (so it is safe between tasks and interrupts at
 * lab_port_irq_prio_kernel() or less urgent). One operation = one allocate plus one
 * release. What it measures is that pool and the kernel's critical section, not a kernel
 * allocator (docs/throughput.md).
 *
 *   mem_window  probe 2 (before the first allocate) -> probe 3 (after MEM_OPS rounds)
 *   LAB-KV ops  MEM_OPS; ticks: tick interrupts inside the window (ports with a tick)
 *
 * Self-check: every allocate returns the block the previous release returned (LIFO) and it
 * lies in the pool on a block boundary; the first word written into it is read back;
 * afterwards all MEM_BLOCKS blocks can be allocated, all distinct, and one more fails.
 */
#include <stddef.h>

#include "lab/bench.h"
#include "lab/port.h"
#include "tp.h"

#if !LAB_HAS_CRITICAL
#error "tp_mem needs LAB_HAS_CRITICAL"
#endif

#define MEM_OPS 5000u
#define MEM_BLOCKS 4u
#define MEM_BLOCK_BYTES 128u

LAB_INTERVAL(mem_window, TP_PROBE_START, TP_PROBE_END, "memory allocation: 5000 x allocate + release of a 128-byte block, fixed-block pool");

/* A free block holds the link to the next free block in its first word. */
union mem_block {
    union mem_block *next;
    uint32_t words[MEM_BLOCK_BYTES / 4u];
};

static union mem_block mem_pool[MEM_BLOCKS] __attribute__((aligned(8)));
static union mem_block *mem_free;
static volatile uint32_t mem_errors;

static void mem_pool_init(void)
{
    mem_free = NULL;
    for (uint32_t i = MEM_BLOCKS; i > 0u; i--) {
        mem_pool[i - 1u].next = mem_free;
        mem_free = &mem_pool[i - 1u];
    }
}

/* A free 128-byte block, or NULL when none is left. Task or main context. */
static void *mem_alloc(void)
{
    lab_critical_enter();
    union mem_block *b = mem_free;
    if (b != NULL) {
        mem_free = b->next;
    }
    lab_critical_exit();
    return b;
}

/* Return a block mem_alloc gave out. Task or main context. */
static void mem_release(void *p)
{
    union mem_block *b = p;
    lab_critical_enter();
    b->next = mem_free;
    mem_free = b;
    lab_critical_exit();
}

static void mem_body(void)
{
    mem_pool_init();
    void *const expect = mem_free;

    uint32_t t0 = tp_ticks_now();
    LAB_PROBE(TP_PROBE_START);
    for (uint32_t i = 0; i < MEM_OPS; i++) {
        uint32_t *p = mem_alloc();
        if (p != expect) {
            mem_errors = mem_errors + 1u;
            break;
        }
        p[MEM_BLOCK_BYTES / 4u - 1u] = i;
        mem_release(p);
    }
    LAB_PROBE(TP_PROBE_END);
    uint32_t ticks = tp_ticks_now() - t0;

    LAB_CHECK(mem_errors == 0u);
    LAB_CHECK(((uint32_t *)expect)[MEM_BLOCK_BYTES / 4u - 1u] == MEM_OPS - 1u);
    void *all[MEM_BLOCKS];
    for (uint32_t i = 0; i < MEM_BLOCKS; i++) {
        all[i] = mem_alloc();
        uintptr_t off = (uintptr_t)all[i] - (uintptr_t)mem_pool;
        LAB_CHECK(all[i] != NULL && off < sizeof mem_pool && off % sizeof(union mem_block) == 0u);
        for (uint32_t j = 0; j < i; j++) {
            LAB_CHECK(all[j] != all[i]);
        }
    }
    LAB_CHECK(mem_alloc() == NULL);
    tp_report(MEM_OPS, ticks);
}

void lab_bench_run(void)
{
    lab_port_init();
    tp_run_single(mem_body);
}
