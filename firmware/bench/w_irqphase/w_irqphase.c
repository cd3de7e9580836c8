/*
 * w_irqphase: the phase sweep of docs/irq-windows.md. One run makes a periodic timer
 * interrupt arrive at every instruction offset of one masked window, so the exact latency
 * distribution over that path (and its worst case) is measured, not sampled, and can be
 * checked against the masked-window bound (`--irq-windows`).
 *
 * Scheme (a guest loop with varying phase): the target's benchmark timer fires every
 * W_PERIOD target clock cycles, on the one clock exactly (docs/timing-model.md, "One
 * clock": QEMU's virtual time follows the modelled cycles). Iteration k (0 .. W_PHASES-1)
 * of the main loop
 *   1. sleeps (WFI) until a tick: the "sync" tick, taken from WFI, so main resumes at a
 *      fixed cycle distance after it;
 *   2. runs k nops (a jump into a nop sled), then the window: cpsid i, 20 nops, cpsie i;
 *   3. spins (no WFI: no time may be skipped between the two ticks) until the next tick
 *      has been handled: the "measured" tick, which arrives W_PERIOD cycles after the
 *      sync tick, i.e. one cycle (one nop) further back into the loop each iteration:
 *      across the window, one offset at a time. W_PERIOD = 150 puts the measured tick
 *      after the window for k = 0 and before it for k = 99 on the M3 model.
 * An interrupt is taken at any instruction boundary where it is not masked, so the spin
 * loop adds no delay of its own.
 * The timer handler hits probe 3 first thing; metric tick_period is the distance between
 * successive hits, in modelled cycles. For a measured tick, that distance is the timer
 * period plus its extra latency (the sync tick's latency being constant), so
 * tests/e2e/test_irq_windows.py reads every measured tick's delay, one per phase: 0 (or
 * the 1-2 cycles of an instruction in flight) outside the window, every cycle of the
 * window inside it; the worst is the window's length, which --irq-windows reports as that
 * level's longest window (plus a cycle: see the test). On QEMU's instruction clock
 * (--timing time=instruction) the period is paced and the sweep does not hold.
 * Self-check: every iteration saw exactly two ticks.
 */
#include "lab/bench.h"
#include "lab/port.h"
#include "lab/probe.h"
#include "lab/target.h"

#if !LAB_HAS_IRQ
#error "w_irqphase needs LAB_HAS_IRQ"
#endif

#define W_PERIOD 150u /* target clock cycles (see the header) */
#define W_PHASES 100u /* nop counts 0 .. W_PHASES-1 (the sled holds 100 nops) */
#define W_PRIO 0x80u

#define NOP4 "nop\n\tnop\n\tnop\n\tnop\n\t"
#define NOP20 NOP4 NOP4 NOP4 NOP4 NOP4
#define NOP100 NOP20 NOP20 NOP20 NOP20 NOP20

LAB_PERIOD(tick_period, 3, "timer tick to tick at the handler's first statement (sync/measured alternate)");

static volatile uint32_t w_ticks;

static void w_tick(void)
{
    LAB_PROBE(3);
    w_ticks = w_ticks + 1u;
}

/* k nops: a jump to the sled's end minus k 16-bit nops (Thumb bit set). */
static inline __attribute__((always_inline)) void w_nops(uint32_t k)
{
    __asm__ volatile("adr r0, 1f\n\t"
                     "sub r0, r0, %0, lsl #1\n\t"
                     "orr r0, r0, #1\n\t"
                     "bx r0\n\t"
                     ".balign 4\n\t" NOP100 "1:\n\t"
                     :
                     : "r"(k)
                     : "r0", "memory");
}

/* Sleep until a tick after `seen` has been handled. */
static void w_wait_tick(uint32_t seen)
{
    while (w_ticks == seen) {
        __asm__ volatile("wfi");
    }
}

void lab_bench_run(void)
{
    lab_port_init();
    LAB_CHECK(lab_target_timer_start(W_PERIOD, w_tick, W_PRIO) == 0);
    for (uint32_t k = 0; k < W_PHASES; k++) {
        w_wait_tick(w_ticks); /* the sync tick */
        uint32_t synced = w_ticks;
        w_nops(k);
        __asm__ volatile("cpsid i" ::: "memory"); /* W_PHASE_WINDOW_START */
        __asm__ volatile(NOP20 ::: "memory");
        __asm__ volatile("cpsie i" ::: "memory"); /* W_PHASE_WINDOW_END */
        while (w_ticks == synced) { /* the measured tick: spin, no WFI (no time skipped) */
        }
        LAB_CHECK(w_ticks == synced + 1u);
    }
    lab_target_timer_stop();
}
