/*
 * x_doorbell (suite "smp", two cores): the inter-core doorbell of lab/target.h.
 *
 * Core 0 starts core 1 (lab_target_core_start), which installs its doorbell handler,
 * reports ready and idles in WFI, as real firmware does. Then, X_DOORBELL_ROUNDS times:
 *   probe 2; core 0 rings core 1 -> core 1's handler, first statement: probe 3   (ring_other)
 *   core 1's handler: probe 4; rings core 0 -> core 0's handler: probe 5       (reply)
 * and, for contrast, X_DOORBELL_ROUNDS times on core 0 alone:
 *   probe 6; core 0 rings itself -> its own handler, first statement: probe 7   (ring_self)
 * Finally core 0 asks core 1 to stop: a last round of the first kind (so ring_other and
 * reply have X_DOORBELL_ROUNDS + 1 samples) with `stop` set; core 1 reports done and
 * core 0 ends the run.
 *
 * ring_other and reply start on one core and end on the other: the host measures them on
 * the shared clock (all cores' counts; docs/timing-model.md "Two cores"). The receiving
 * core is halted in WFI (ring_other) or not running (reply: core 0 waits to be scheduled
 * again), so the interval is the work along the causal path: the sender's rest of its
 * translation block after the ring's store, the receiver's wake-up, exception entry and
 * the target's doorbell dispatch (core id read, acknowledge, call), and for reply also
 * core 1's return to WFI. ring_self is measured on core 0's own counters.
 *
 * Self-checks: each core reads its own id; every handler ran exactly once per ring, on
 * the core that was rung; core 1 saw every round and reported done.
 *
 * Test-only defines (tests/e2e): X_DOORBELL_FAIL_CORE1=1 fails a LAB_CHECK on core 1,
 * X_DOORBELL_FAULT_CORE1=1 executes an undefined instruction on core 1: either must end
 * the run as failed.
 */
#include <stdint.h>

#include "lab/bench.h"
#include "lab/target.h"

#ifndef X_DOORBELL_FAIL_CORE1
#define X_DOORBELL_FAIL_CORE1 0
#endif
#ifndef X_DOORBELL_FAULT_CORE1
#define X_DOORBELL_FAULT_CORE1 0
#endif

#if LAB_TARGET_CORES < 2
#error "x_doorbell needs two cores (bench.toml min_cores = 2)"
#endif

#define X_DOORBELL_ROUNDS 16u

LAB_INTERVAL(ring_other, 2, 3, "core 0 rings core 1 (in WFI) -> first statement of core 1's doorbell handler");
LAB_INTERVAL(reply, 4, 5, "core 1 rings core 0 from its handler -> first statement of core 0's handler");
LAB_INTERVAL(ring_self, 6, 7, "core 0 rings itself -> first statement of its own doorbell handler");

/* Core 1's stack (lab_target_core_start: 8-byte aligned top). */
static uint64_t x_core1_stack[256];

static volatile uint32_t x_core1_ready;   /* core 1: handler installed, idling */
static volatile uint32_t x_core1_count;   /* core 1: handler runs */
static volatile uint32_t x_core1_wrong;   /* core 1: handler runs on another core */
static volatile uint32_t x_core1_done;    /* core 1: saw `stop` */
static volatile uint32_t x_stop;          /* core 0: last ring, stop */
static volatile uint32_t x_reply_count;   /* core 0: reply handler runs */
static volatile uint32_t x_self_count;    /* core 0: self-ring handler runs */
static volatile uint32_t x_core0_wrong;   /* core 0 handlers run on another core */

/* Wait with interrupts masked around the check, so a ring between the check and WFI is
 * not lost (WFI wakes on a pending interrupt even with PRIMASK set; the handler then runs
 * at CPSIE). */
static void x_wait_until(volatile uint32_t *v, uint32_t value)
{
    for (;;) {
        __asm__ volatile("cpsid i" ::: "memory");
        if (*v == value) {
            __asm__ volatile("cpsie i" ::: "memory");
            return;
        }
        __asm__ volatile("wfi\n\tcpsie i\n\tisb" ::: "memory");
    }
}

/* Core 1's doorbell handler (called by the target's dispatch after the acknowledge). */
static void x_core1_handler(void)
{
    LAB_PROBE(3);
    if (lab_target_core_id() != 1u) {
        x_core1_wrong++;
    }
    x_core1_count++;
    if (x_stop != 0u) {
        x_core1_done = 1u;
    }
    LAB_PROBE(4);
    lab_target_doorbell_ring(0u);
}

static void x_core1_main(void *arg)
{
    LAB_CHECK(arg == &x_core1_ready);
    LAB_CHECK(lab_target_core_id() == 1u);
#if X_DOORBELL_FAIL_CORE1
    LAB_CHECK(X_DOORBELL_FAIL_CORE1 == 0); /* test-only: a failed check on core 1 */
#endif
#if X_DOORBELL_FAULT_CORE1
    __asm__ volatile("udf #1"); /* test-only: a fault on core 1 */
#endif
    LAB_CHECK(lab_target_doorbell_install(x_core1_handler, 0u) == 0);
    x_core1_ready = 1u;
    __asm__ volatile("dsb\n\tsev\n\tcpsie i" ::: "memory");
    for (;;) {
        __asm__ volatile("wfi");
    }
}

static void x_core0_reply_handler(void)
{
    LAB_PROBE(5);
    if (lab_target_core_id() != 0u) {
        x_core0_wrong++;
    }
    x_reply_count++;
}

static void x_core0_self_handler(void)
{
    LAB_PROBE(7);
    if (lab_target_core_id() != 0u) {
        x_core0_wrong++;
    }
    x_self_count++;
}

void lab_bench_run(void)
{
    LAB_CHECK(lab_target_core_id() == 0u);
    LAB_CHECK(lab_target_doorbell_install(x_core0_reply_handler, 0u) == 0);
    LAB_CHECK(lab_target_core_start(1u, x_core1_main, (void *)&x_core1_ready,
                                    (uint32_t *)(void *)&x_core1_stack[256]) == 0);
    LAB_CHECK(lab_target_core_start(1u, x_core1_main, 0, (uint32_t *)(void *)&x_core1_stack[256]) == -1);
    /* Until core 1 is ready: WFE lets QEMU run the other vCPU (core 1 ends with SEV). */
    while (x_core1_ready == 0u) {
        __asm__ volatile("wfe");
    }

    for (uint32_t r = 1; r <= X_DOORBELL_ROUNDS; r++) {
        LAB_PROBE(2);
        lab_target_doorbell_ring(1u);
        x_wait_until(&x_reply_count, r);
        LAB_CHECK(x_core1_count == r);
    }

    LAB_CHECK(lab_target_doorbell_install(x_core0_self_handler, 0u) == 0);
    for (uint32_t r = 1; r <= X_DOORBELL_ROUNDS; r++) {
        LAB_PROBE(6);
        lab_target_doorbell_ring(0u);
        x_wait_until(&x_self_count, r);
    }

    /* A last round that stops core 1 (measured like the others); wait for its word that
     * it is done. */
    LAB_CHECK(lab_target_doorbell_install(x_core0_reply_handler, 0u) == 0);
    x_stop = 1u;
    LAB_PROBE(2);
    lab_target_doorbell_ring(1u);
    x_wait_until(&x_core1_done, 1u);
    x_wait_until(&x_reply_count, X_DOORBELL_ROUNDS + 1u);

    LAB_CHECK(x_core1_count == X_DOORBELL_ROUNDS + 1u);
    LAB_CHECK(x_self_count == X_DOORBELL_ROUNDS);
    LAB_CHECK(x_core1_wrong == 0u && x_core0_wrong == 0u);
}
