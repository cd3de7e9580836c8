/*
 * The shared main of every benchmark image.
 *
 *   lab_target_init()   board up, interrupts still disabled
 *   LAB_PROBE_INIT()    the probe clock (buffer mode: DWT CYCCNT or SysTick; lab/probe.h)
 *   calibration         16 empty probe pairs (ids 0 and 1): the host learns the probe's
 *                       own cost from them and subtracts it from every sample
 *   lab_bench_run()     the benchmark; returns, or calls lab_finish()/lab_fail() itself
 *   lab_finish()        "LAB-DONE" on the console, exit status 0
 *
 * Nothing here runs between a benchmark's probes.
 */
#include <stddef.h>
#include <stdint.h>

#include "lab/bench.h"
#include "lab/console.h"
#include "lab/exit.h"
#include "lab/stack.h"
#include "lab/target.h"

#define LAB_CALIBRATION_ROUNDS 16

LAB_CALIBRATION(calibration, LAB_PROBE_CALIBRATION_START, LAB_PROBE_CALIBRATION_END,
                "harness: an empty probe pair; its cost is subtracted from all samples");

/* Kept out of line and never inlined so the calibration pair is the same code at every
 * optimisation level. */
__attribute__((noinline)) static void lab_harness_calibrate(void)
{
    for (int i = 0; i < LAB_CALIBRATION_ROUNDS; i++) {
        LAB_PROBE(LAB_PROBE_CALIBRATION_START);
        LAB_PROBE(LAB_PROBE_CALIBRATION_END);
    }
}

#define LAB_STACK_PAINT_MARGIN 64u /* bytes below the live SP left unpainted */

/* Paint the unused part of the main stack (before anything is measured). */
static void lab_harness_paint_main_stack(void)
{
    uintptr_t lo, hi, sp;
    lab_target_main_stack(&lo, &hi);
#if defined(__AVR__)
    sp = (uintptr_t)__builtin_frame_address(0); /* within a few bytes of SP */
#else
    __asm__ volatile("mov %0, sp" : "=r"(sp));
#endif
    lab_stack_paint(lo, sp - LAB_STACK_PAINT_MARGIN);
}

void lab_finish(void)
{
    /* Peak main-stack use: main() before a scheduler starts and every exception handler. */
    uintptr_t lo, hi;
    lab_target_main_stack(&lo, &hi);
    lab_console_put_kv("main_stack_peak_bytes", lab_stack_peak_bytes(lo, hi));
    lab_console_puts("LAB-DONE\n");
    lab_target_exit(LAB_EXIT_OK);
}

void lab_fail(const char *file, int line, const char *what)
{
    lab_console_puts("LAB-FAIL ");
    lab_console_puts(file);
    lab_console_puts(":");
    lab_console_put_dec((uint32_t)line);
    lab_console_puts(": ");
    lab_console_puts(what);
    lab_console_puts("\n");
    lab_target_exit(LAB_EXIT_CHECK_FAILED);
}

#if defined(__AVR__)
/* A string in flash, to the console in RAM-sized pieces. */
static void lab_console_puts_flash(const __flash char *s)
{
    char buf[16];
    uint32_t n = 0;
    for (; *s != '\0'; s++) {
        buf[n++] = *s;
        if (n == sizeof buf) {
            lab_target_console_write(buf, n);
            n = 0;
        }
    }
    if (n != 0u) {
        lab_target_console_write(buf, n);
    }
}

void lab_fail_flash(const __flash char *file, int line, const __flash char *what)
{
    lab_console_puts("LAB-FAIL ");
    lab_console_puts_flash(file);
    lab_console_puts(":");
    lab_console_put_dec((uint32_t)line);
    lab_console_puts(": ");
    lab_console_puts_flash(what);
    lab_console_puts("\n");
    lab_target_exit(LAB_EXIT_CHECK_FAILED);
}
#endif

void lab_fail_status(int status, const char *what)
{
    lab_console_puts("LAB-FAIL ");
    lab_console_puts(what);
    lab_console_puts("\n");
    lab_target_exit(status);
}

int main(void)
{
    lab_target_init();
    LAB_PROBE_INIT(); /* buffer mode: select and start the probe clock (lab/probe.h) */
    lab_harness_paint_main_stack();
    lab_harness_calibrate();
    lab_bench_run();
    lab_finish();
}
