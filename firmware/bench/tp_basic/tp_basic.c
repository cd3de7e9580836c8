/*
 * tp_basic: throughput suite, basic processing (Thread-Metric's calibration test).
 *
 * One operation = one pass over a 1024-word array that replaces every word w by
 * (w + ops_so_far) ^ w, then increments the operation counter. No kernel call: on a port
 * with a scheduler it runs in one task with the kernel's tick running (tp_run_single), on
 * bare metal directly. It measures the core and memory, so it scales other tests' figures
 * between platforms (docs/throughput.md).
 *
 *   basic_window  probe 2 (before the first pass) -> probe 3 (after pass BASIC_OPS)
 *   LAB-KV ops    BASIC_OPS operations in the window; ticks: tick interrupts inside it
 *
 * Self-check: every word starts at 0 and sees the same updates, so after the window all
 * 1024 words must equal the scalar recurrence v = (v + k) ^ v for k = 0 .. BASIC_OPS-1,
 * computed again after the window; the counter must be BASIC_OPS.
 */
#include "lab/bench.h"
#include "lab/port.h"
#include "tp.h"

#define BASIC_OPS 40u
#define BASIC_WORDS 1024u

LAB_INTERVAL(basic_window, TP_PROBE_START, TP_PROBE_END, "basic processing: 40 passes over a 1024-word array");

static volatile uint32_t basic_array[BASIC_WORDS];
static volatile uint32_t basic_counter;

static void basic_body(void)
{
    for (uint32_t i = 0; i < BASIC_WORDS; i++) {
        basic_array[i] = 0u;
    }
    basic_counter = 0u;
    uint32_t t0 = tp_ticks_now();
    LAB_PROBE(TP_PROBE_START);
    while (basic_counter < BASIC_OPS) {
        for (uint32_t i = 0; i < BASIC_WORDS; i++) {
            basic_array[i] = (basic_array[i] + basic_counter) ^ basic_array[i];
        }
        basic_counter = basic_counter + 1u;
    }
    LAB_PROBE(TP_PROBE_END);
    uint32_t t1 = tp_ticks_now();

    uint32_t expect = 0u;
    for (uint32_t k = 0; k < BASIC_OPS; k++) {
        expect = (expect + k) ^ expect;
    }
    LAB_CHECK(basic_counter == BASIC_OPS);
    for (uint32_t i = 0; i < BASIC_WORDS; i++) {
        LAB_CHECK(basic_array[i] == expect);
    }
    tp_report(BASIC_OPS, t1 - t0);
}

void lab_bench_run(void)
{
    lab_port_init();
    tp_run_single(basic_body);
}
