/*
 * xcore.h - what the cross-core kernel benchmarks (k_activate_x, k_sem_x, k_queue_x,
 * k_notify_x) share: handing the emulator to the other core once the waking call returns.
 * Header only; a benchmark includes it through its bench.cmake (LAB_BENCH_INCLUDES).
 */
#ifndef LAB_XCORE_H
#define LAB_XCORE_H

/* After the call that wakes the other core returns, YIELD hands the emulator's one thread
 * to the other core (QEMU runs the two vCPUs in turn and switches at YIELD; on hardware it
 * is a hint that does nothing: one instruction, inside the measured interval). Without it
 * core 0 carries on (return, the tick sleep, its switch to idle) while core 1 waits in WFE
 * for the kernel lock core 0 held, and all of that lands in the interval (docs/smp.md,
 * "How the cross-core intervals are measured"). */
#define XCORE_HAND_OVER() __asm__ volatile("yield" ::: "memory")

#endif /* LAB_XCORE_H */
