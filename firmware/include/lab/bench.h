/*
 * lab/bench.h - what every benchmark implements and what the harness offers it.
 *
 * A benchmark is one folder under firmware/bench/ holding its C (or assembly) sources and
 * a bench.toml. It defines lab_bench_run(). The harness (firmware/harness/) calls it after
 * the target is up and the probe cost was calibrated.
 *
 * A benchmark must check its own result: if the work it measured did not happen as it
 * should, it calls LAB_CHECK / lab_fail and the run fails; a failed run has no numbers.
 */
#ifndef LAB_BENCH_H
#define LAB_BENCH_H

#include <stdint.h>

#include "lab/exit.h"
#include "lab/probe.h"

/* The benchmark's entry point. Either returns (the harness then finishes with success)
 * or, for benchmarks that start a scheduler, never returns and calls lab_finish() itself. */
void lab_bench_run(void);

/* End the run with success. Never returns. Callable from any context. */
__attribute__((noreturn)) void lab_finish(void);

/* End the run as failed, printing "LAB-FAIL file:line: what" on the console (this is the
 * failure path, never a measured one). Never returns. */
__attribute__((noreturn)) void lab_fail(const char *file, int line, const char *what);

/* End the run with a specific exit status (LAB_EXIT_* of lab/exit.h) and a message. */
__attribute__((noreturn)) void lab_fail_status(int status, const char *what);

#if defined(__AVR__)
/* AVR: the file name and the condition's text stay in flash (avr-gcc's __flash space):
 * in RAM, as string literals are there, a benchmark's checks would fill much of a 2 KiB
 * SRAM. Same output as lab_fail. */
__attribute__((noreturn)) void lab_fail_flash(const __flash char *file, int line, const __flash char *what);
#define LAB_CHECK(cond)                                                \
    do {                                                               \
        if (!(cond)) {                                                 \
            static const __flash char lab_check_file_[] = __FILE__;   \
            static const __flash char lab_check_what_[] = #cond;      \
            lab_fail_flash(lab_check_file_, __LINE__, lab_check_what_); \
        }                                                              \
    } while (0)
#else
#define LAB_CHECK(cond)                              \
    do {                                             \
        if (!(cond)) {                               \
            lab_fail(__FILE__, __LINE__, #cond);     \
        }                                            \
    } while (0)
#endif

/* Keep the compiler from optimising a value away or moving work across this point. */
#define LAB_KEEP(v) __asm__ volatile("" : : "r"(v) : "memory")
#define LAB_BARRIER() __asm__ volatile("" : : : "memory")

#endif /* LAB_BENCH_H */
