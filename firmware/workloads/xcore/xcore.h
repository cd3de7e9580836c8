/*
 * xcore.h - what the cross-core kernel benchmarks (k_activate_x, k_sem_x, k_queue_x,
 * k_notify_x) share: handing the emulator to the other core once the waking call returns,
 * and the refusal when the kernel schedules one core only. Header only; a benchmark
 * includes it through its bench.cmake (LAB_BENCH_INCLUDES).
 */
#ifndef LAB_XCORE_H
#define LAB_XCORE_H

#include "lab/bench.h"
#include "lab/port.h"

/* After the call that wakes the other core returns, YIELD hands the emulator's one thread
 * to the other core (QEMU runs the two vCPUs in turn and switches at YIELD; on hardware it
 * is a hint that does nothing: one instruction, inside the measured interval). Without it
 * core 0 carries on (return, the tick sleep, its switch to idle) while core 1 waits in WFE
 * for the kernel lock core 0 held, and all of that lands in the interval (docs/smp.md,
 * "How the cross-core intervals are measured"). */
#define XCORE_HAND_OVER() __asm__ volatile("yield" ::: "memory")

/* Use after lab_port_init(): ends the run as unsupported (exit 15: the host reports n/a
 * with this reason) when the kernel schedules fewer than 2 cores, e.g. freertos-smp with
 * labSMP_START_CORES=1; `what` (a string literal) names what needs the second core.
 * Goes on only when 2 or more cores are scheduled. */
#define XCORE_REQUIRE_TWO_CORES(what)                                                           \
    do {                                                                                        \
        if (lab_port_cores() < 2u) {                                                            \
            lab_fail_status(LAB_EXIT_UNSUPPORTED, "the kernel schedules 1 core in this "        \
                                                  "configuration (lab_port_cores() = 1): " what \
                                                  " needs 2");                                  \
        }                                                                                       \
    } while (0)

#endif /* LAB_XCORE_H */
