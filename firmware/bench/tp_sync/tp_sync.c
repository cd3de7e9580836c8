/*
 * tp_sync: throughput suite, synchronisation processing (Thread-Metric's semaphore test).
 *
 * One task takes a binary semaphore that holds its count (lab_sem_take, no block) and gives
 * it straight back (lab_sem_give, nobody waits: no switch). One operation = one take plus
 * one give.
 *
 *   sync_window  probe 2 (before the first take) -> probe 3 (after SYNC_OPS rounds)
 *   LAB-KV ops   SYNC_OPS; ticks: tick interrupts inside the window
 *
 * Self-check: every take and give returns LAB_OK; afterwards the semaphore holds exactly
 * its one count again (a take succeeds, a second LAB_NO_WAIT take times out).
 */
#include "lab/bench.h"
#include "lab/port.h"
#include "tp.h"

#if !LAB_HAS_SCHEDULER || !LAB_HAS_SEMAPHORE
#error "tp_sync needs LAB_HAS_SCHEDULER and LAB_HAS_SEMAPHORE"
#endif

#define SYNC_OPS 2000u

LAB_INTERVAL(sync_window, TP_PROBE_START, TP_PROBE_END, "synchronisation processing: 2000 x take + give of a binary semaphore, one task");

static lab_sem_t sync_sem;
static volatile uint32_t sync_errors;

static void sync_body(void)
{
    uint32_t t0 = tp_ticks_now();
    LAB_PROBE(TP_PROBE_START);
    for (uint32_t i = 0; i < SYNC_OPS; i++) {
        if (lab_sem_take(&sync_sem, LAB_NO_WAIT) != LAB_OK || lab_sem_give(&sync_sem) != LAB_OK) {
            sync_errors = sync_errors + 1u;
        }
    }
    LAB_PROBE(TP_PROBE_END);
    uint32_t ticks = tp_ticks_now() - t0;

    LAB_CHECK(sync_errors == 0u);
    LAB_CHECK(lab_sem_take(&sync_sem, LAB_NO_WAIT) == LAB_OK);
    LAB_CHECK(lab_sem_take(&sync_sem, LAB_NO_WAIT) == LAB_ERR_TIMEOUT);
    tp_report(SYNC_OPS, ticks);
}

void lab_bench_run(void)
{
    lab_port_init();
    LAB_CHECK(lab_sem_create(&sync_sem, 1u, 1u) == LAB_OK);
    tp_run_single(sync_body);
}
