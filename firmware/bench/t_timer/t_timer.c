/*
 * t_timer: checks the target's benchmark timer against lab/target.h's contract,
 * "`handler` runs every `period` cycles of the target clock", and so the clock itself.
 * On the one clock (docs/timing-model.md, "One clock") QEMU's time follows the modelled
 * cycles, so the cycles between two entries of the handler are the period (within the
 * rest of a translation block: the documented error); on QEMU's instruction clock
 * (--timing time=instruction) the instructions are the period in virtual nanoseconds
 * (period x 1e9 / lab_target_clock_hz()) and the cycles only price the busy loop. The
 * host tests (tests/e2e/test_boards.py) compare the medians with those figures; the
 * benchmark only measures.
 *
 *   timer_period  one period: the handler's n-th entry (odd n, probe 2) to its next
 *                 (probe 3), T_TIMER_PAIRS samples
 *   timer_first   from just before lab_target_timer_start to the first entry (probe 4 to 5):
 *                 the contract's "the first time `period` cycles from now", plus the call
 *   timer_busy    a busy loop of T_TIMER_BUSY_ROUNDS rounds with the timer running (probe 6
 *                 to 7); the handler entries that fell inside are printed as LAB-KV
 *                 busy_timer_entries: window / period of them, give or take one, when the
 *                 timer and the cycles share one clock
 *
 * Period: 100 us of the target clock (lab_target_clock_hz() / 10000), printed as LAB-KV
 * timer_period_cycles. The main loop spins on a volatile counter, so nothing sleeps.
 */
#include "lab/bench.h"
#include "lab/console.h"
#include "lab/port.h"
#include "lab/target.h"

#if !LAB_HAS_IRQ
#error "t_timer needs LAB_HAS_IRQ"
#endif

#define T_TIMER_PAIRS 32u

LAB_INTERVAL(timer_period, 2, 3, "benchmark timer handler entry -> next entry (one period)");
LAB_INTERVAL(timer_first, 4, 5, "lab_target_timer_start called -> first handler entry");
LAB_INTERVAL(timer_busy, 6, 7, "busy loop with the benchmark timer running (its entries inside: LAB-KV busy_timer_entries)");

#define T_TIMER_BUSY_ROUNDS 60000u

static volatile uint32_t t_timer_entries;

static void t_timer_handler(void)
{
    uint32_t n = t_timer_entries;
    if (n == 0u) {
        LAB_PROBE(5);
    } else if (n <= 2u * T_TIMER_PAIRS) {
        if ((n & 1u) != 0u) {
            LAB_PROBE(2);
        } else {
            LAB_PROBE(3);
        }
    }
    t_timer_entries = n + 1u;
}

void lab_bench_run(void)
{
    uint32_t period = lab_target_clock_hz() / 10000u;
    lab_port_init();
    LAB_PROBE(4);
    LAB_CHECK(lab_target_timer_start(period, t_timer_handler, lab_port_irq_prio_unmanaged()) == 0);
    while (t_timer_entries <= 2u * T_TIMER_PAIRS) {
    }
    /* The timer keeps running (the handler only counts now): a busy window of known
     * work, and how many periods fell inside it. */
    volatile uint32_t spin = 0u;
    uint32_t before = t_timer_entries;
    LAB_PROBE(6);
    for (uint32_t i = 0; i < T_TIMER_BUSY_ROUNDS; i++) {
        spin = spin + 1u;
    }
    LAB_PROBE(7);
    uint32_t inside = t_timer_entries - before;
    lab_target_timer_stop();
    LAB_CHECK(spin == T_TIMER_BUSY_ROUNDS);
    LAB_CHECK(inside > 0u);
    lab_console_put_kv("timer_period_cycles", period);
    lab_console_put_kv("busy_timer_entries", inside);
    lab_finish();
}
