/*
 * workloads/throughput/tp.h - what the throughput suite's benchmarks (firmware/bench/tp_*)
 * share: how a single-task test is started, and how every test reports its operation count.
 *
 * Every tp_* benchmark runs a fixed number of operations inside ONE probe interval (its
 * `<name>_window` metric, ids TP_PROBE_START -> TP_PROBE_END) and prints, after that
 * interval, the number of operations it contains (LAB-KV ops=N) and, on ports with a tick,
 * how many tick interrupts fell inside it (LAB-KV ticks=T). The host divides: cycles per
 * operation = window cycles / ops; operations per second of modelled time = clock / that.
 * docs/throughput.md relates each test to the published Thread-Metric definition.
 */
#ifndef LAB_TP_H
#define LAB_TP_H

#include <stdint.h>

#include "lab/port.h"

#define TP_PROBE_START 2
#define TP_PROBE_END 3

/* Priority of a single-task test's task (1 .. LAB_PRIO_NEEDED), and a task stack size in
 * words that covers every lab/port.h call of the suite (no printing on task stacks). */
#define TP_PRIO 2u
#define TP_STACK_WORDS 256u

/* Kernel ticks since start (0 on ports without a tick): read before and after a window. */
static inline uint32_t tp_ticks_now(void)
{
#if LAB_HAS_TICK
    return (uint32_t)lab_tick_count();
#else
    return 0u;
#endif
}

/* Run body() once, then end the run with success. With LAB_HAS_SCHEDULER body runs in a
 * task of priority TP_PRIO with the kernel started (its tick interrupt running, as in
 * Thread-Metric, where every test is a thread of the RTOS under test); without a
 * scheduler it runs directly from lab_bench_run(). Call lab_port_init() (and create the
 * test's objects) first. Never returns. */
__attribute__((noreturn)) void tp_run_single(void (*body)(void));

/* Print "LAB-KV ops=<ops>" and, with LAB_HAS_TICK, "LAB-KV ticks=<ticks>". Call after the
 * window closed: it prints, so never inside a measured interval. */
void tp_report(uint32_t ops, uint32_t ticks);

#endif /* LAB_TP_H */
