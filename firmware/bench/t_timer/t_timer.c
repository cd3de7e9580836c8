/*
 * t_timer: checks the target's benchmark timer against lab/target.h's contract,
 * "`handler` runs every `period` cycles of the target clock". Under QEMU with -icount
 * shift=0 one guest instruction is one nanosecond of virtual time, and a busy CPU (never
 * in WFI) executes exactly one instruction per nanosecond, so the guest instructions
 * between two entries of the handler are the timer's period in nanoseconds:
 * period x 1e9 / lab_target_clock_hz(). The host test (tests/e2e/test_boards.py) compares
 * the median with that figure; the benchmark only measures.
 *
 *   timer_period  one period: the handler's n-th entry (odd n, probe 2) to its next
 *                 (probe 3), T_TIMER_PAIRS samples
 *   timer_first   from just before lab_target_timer_start to the first entry (probe 4 to 5):
 *                 the contract's "the first time `period` cycles from now", plus the call
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

LAB_INTERVAL(timer_period, 2, 3, "benchmark timer handler entry -> next entry (one period; virtual ns = insns)");
LAB_INTERVAL(timer_first, 4, 5, "lab_target_timer_start called -> first handler entry");

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
    lab_target_timer_stop();
    LAB_CHECK(t_timer_entries == 2u * T_TIMER_PAIRS + 1u);
    lab_console_put_kv("timer_period_cycles", period);
    lab_finish();
}
