/*
 * x_doorbell (suite "smp", two cores): the inter-core doorbell of lab/target.h.
 *
 * Core 0 starts core 1 (lab_target_core_start), which installs its doorbell handler and
 * idles in WFI, as real firmware does. Then, X_DOORBELL_ROUNDS times:
 *   probe 2; core 0 rings core 1 -> core 1's handler, first statement: probe 3   (ring_other)
 *   core 1's handler: probe 4; rings core 0 -> core 0's handler: probe 5       (reply)
 * and, for contrast, X_DOORBELL_ROUNDS times on core 0 alone:
 *   probe 6; core 0 rings itself -> its own handler, first statement: probe 7   (ring_self)
 * Finally core 0 asks core 1 to stop: a last round of the first kind (so ring_other and
 * reply have X_DOORBELL_ROUNDS + 1 samples) with `stop` set; core 1 reports done and
 * core 0 ends the run.
 *
 * Every ring reaches a core that sleeps in WFI: core 0 rings core 1 only once core 1 has
 * gone back to WFI (its sleep count says so), and core 1 replies only once core 0 sleeps
 * in WFI waiting for the reply. On the chip that is how the rounds fall anyway (the other
 * core reaches its WFI within a few instructions); under QEMU, which runs the two vCPUs
 * in turn, the counts make it so in every round (README.md of mps2-an521).
 *
 * ring_other and reply start on one core and end on the other: the host measures them on
 * the shared clock (all cores' counts; docs/timing-model.md "Two cores"). The receiving
 * core is halted in WFI, so the interval is the work along the causal path: the sender's
 * ring (call, range check, DMB, the MHU store) and what it executes after the store until
 * QEMU runs the other core (until it halts in WFI or yields in WFE: README.md of
 * mps2-an521), the receiver's wake-up (for core 0, the CPSIE after its WFI), exception
 * entry and the target's doorbell dispatch (core id read, acknowledge, call). ring_self
 * is measured on core 0's own counters: its interrupt is taken right after the store.
 *
 * Self-checks: each core reads its own id; every handler ran exactly once per ring, on
 * the core that was rung; core 1 saw every round and reported done.
 *
 * Defines (tests/e2e): X_DOORBELL_BUSY=N makes core 0 run N loop iterations after each
 * ring of core 1 before it waits: under QEMU ring_other grows by them (core 1 runs only
 * when core 0 sleeps). X_DOORBELL_YIELD=1 follows each ring of core 1 with SEV then WFE
 * (a no-op on the chip, a yield in QEMU): core 1 runs at once and X_DOORBELL_BUSY no
 * longer shows. Test-only: X_DOORBELL_FAIL_CORE1=1 fails a LAB_CHECK on core 1,
 * X_DOORBELL_FAULT_CORE1=1 executes an undefined instruction on core 1,
 * X_DOORBELL_RETURN_CORE1=1 returns from core 1's entry (which lab/target.h forbids): each
 * must end the run as failed.
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
#ifndef X_DOORBELL_RETURN_CORE1
#define X_DOORBELL_RETURN_CORE1 0
#endif
#ifndef X_DOORBELL_BUSY
#define X_DOORBELL_BUSY 0
#endif
#ifndef X_DOORBELL_YIELD
#define X_DOORBELL_YIELD 0
#endif

#if LAB_TARGET_CORES < 2
#error "x_doorbell needs two cores (bench.toml min_cores = 2)"
#endif

#define X_DOORBELL_ROUNDS 32u /* 33 cross-core samples, 32 same-core: at least 30 each, the host's minimum for statistics without a warning */

LAB_INTERVAL(ring_other, 2, 3, "core 0 rings core 1 (in WFI) -> first statement of core 1's doorbell handler");
LAB_INTERVAL(reply, 4, 5, "core 1 rings core 0 (in WFI) -> first statement of core 0's doorbell handler");
LAB_INTERVAL(ring_self, 6, 7, "core 0 rings itself -> first statement of its own doorbell handler");

/* Core 1's stack (lab_target_core_start: 8-byte aligned top). */
static uint64_t x_core1_stack[256];

static volatile uint32_t x_core1_sleeps;  /* core 1: WFIs entered (1 once idle after start) */
static volatile uint32_t x_core0_sleeps;  /* core 0: WFIs entered while waiting */
static volatile uint32_t x_core0_sleeps_at_ring; /* core 0's count when it rang core 1 */
static volatile uint32_t x_core1_count;   /* core 1: handler runs */
static volatile uint32_t x_core1_wrong;   /* core 1: handler runs on another core */
static volatile uint32_t x_core1_done;    /* core 1: saw `stop` */
static volatile uint32_t x_stop;          /* core 0: last round, stop */
static volatile uint32_t x_reply_count;   /* core 0: reply handler runs */
static volatile uint32_t x_self_count;    /* core 0: self-ring handler runs */
static volatile uint32_t x_core0_wrong;   /* core 0 handlers run on another core */

/* Core 0 waits for *v == value in WFI, with interrupts masked around the check so a ring
 * between the check and WFI is not lost (WFI wakes on a pending interrupt even with
 * PRIMASK set; the handler then runs at CPSIE). Each sleep is counted first, and SEV
 * wakes a WFE of core 1 that waits for it. */
static void x_wait_until(volatile uint32_t *v, uint32_t value)
{
    for (;;) {
        __asm__ volatile("cpsid i" ::: "memory");
        if (*v == value) {
            __asm__ volatile("cpsie i" ::: "memory");
            return;
        }
        x_core0_sleeps++;
        __asm__ volatile("dsb\n\tsev\n\twfi\n\tcpsie i\n\tisb" ::: "memory");
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
    /* Reply once core 0 sleeps in WFI for it (WFE: QEMU runs core 0 meanwhile; on the
     * chip core 0's SEV before its WFI ends the WFE). */
    while (x_core0_sleeps == x_core0_sleeps_at_ring) {
        __asm__ volatile("wfe");
    }
    LAB_PROBE(4);
    lab_target_doorbell_ring(0u);
}

static void x_core1_main(void *arg)
{
    LAB_CHECK(arg == &x_core1_stack[0]);
    LAB_CHECK(lab_target_core_id() == 1u);
#if X_DOORBELL_FAIL_CORE1
    LAB_CHECK(X_DOORBELL_FAIL_CORE1 == 0); /* test-only: a failed check on core 1 */
#endif
#if X_DOORBELL_FAULT_CORE1
    __asm__ volatile("udf #1"); /* test-only: a fault on core 1 */
#endif
#if X_DOORBELL_RETURN_CORE1
    return; /* test-only: an entry that returns */
#endif
    LAB_CHECK(lab_target_doorbell_install(x_core1_handler, 0u) == 0);
    __asm__ volatile("cpsie i" ::: "memory");
    for (;;) {
        /* Count the sleep, wake core 0's WFE (on the chip), sleep until rung. */
        x_core1_sleeps++;
        __asm__ volatile("dsb\n\tsev\n\twfi" ::: "memory");
    }
}

/* Core 0: until core 1 has entered its WFI `n` times (WFE: QEMU runs core 1 meanwhile;
 * on the chip core 1's SEV ends the WFE). */
static void x_wait_core1_asleep(uint32_t n)
{
    while (x_core1_sleeps != n) {
        __asm__ volatile("wfe");
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

/* One round core 0 -> core 1 -> core 0 (the r-th). */
static void x_round(uint32_t r)
{
    x_wait_core1_asleep(r);
    x_core0_sleeps_at_ring = x_core0_sleeps;
    LAB_PROBE(2);
    lab_target_doorbell_ring(1u);
#if X_DOORBELL_YIELD
    __asm__ volatile("sev\n\twfe" ::: "memory"); /* no-op on the chip, a yield in QEMU */
#endif
#if X_DOORBELL_BUSY > 0
    for (uint32_t i = 0; i < X_DOORBELL_BUSY; i++) {
        __asm__ volatile("nop");
    }
#endif
    x_wait_until(&x_reply_count, r);
    LAB_CHECK(x_core1_count == r);
}

void lab_bench_run(void)
{
    LAB_CHECK(lab_target_core_id() == 0u);
    LAB_CHECK(lab_target_doorbell_install(x_core0_reply_handler, 0u) == 0);
    uint32_t *top = (uint32_t *)(void *)&x_core1_stack[256];
    LAB_CHECK(lab_target_core_start(1u, x_core1_main, (void *)&x_core1_stack[0], top) == 0);
    /* Refused: started already, core 0 (the caller), a core the board does not have. */
    LAB_CHECK(lab_target_core_start(1u, x_core1_main, 0, top) == -1);
    LAB_CHECK(lab_target_core_start(0u, x_core1_main, 0, top) == -1);
    LAB_CHECK(lab_target_core_start(LAB_TARGET_CORES, x_core1_main, 0, top) == -1);

    for (uint32_t r = 1; r <= X_DOORBELL_ROUNDS; r++) {
        x_round(r);
    }

    LAB_CHECK(lab_target_doorbell_install(x_core0_self_handler, 0u) == 0);
    for (uint32_t r = 1; r <= X_DOORBELL_ROUNDS; r++) {
        LAB_PROBE(6);
        lab_target_doorbell_ring(0u);
        x_wait_until(&x_self_count, r);
    }

    /* A last round that stops core 1 (measured like the others). */
    LAB_CHECK(lab_target_doorbell_install(x_core0_reply_handler, 0u) == 0);
    x_stop = 1u;
    x_round(X_DOORBELL_ROUNDS + 1u);

    LAB_CHECK(x_core1_done == 1u);
    LAB_CHECK(x_core1_count == X_DOORBELL_ROUNDS + 1u);
    LAB_CHECK(x_self_count == X_DOORBELL_ROUNDS);
    LAB_CHECK(x_core1_wrong == 0u && x_core0_wrong == 0u);
}
