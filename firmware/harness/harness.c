/*
 * The shared main of every benchmark image.
 *
 *   lab_target_init()   board up, interrupts still disabled
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
#include "lab/target.h"

#define LAB_CALIBRATION_ROUNDS 16

LAB_CALIBRATION(calibration, 0, 1, "harness: an empty probe pair; its cost is subtracted from all samples");

/* Kept out of line and never inlined so the calibration pair is the same code at every
 * optimisation level. */
__attribute__((noinline)) static void lab_harness_calibrate(void)
{
    for (int i = 0; i < LAB_CALIBRATION_ROUNDS; i++) {
        LAB_PROBE(0);
        LAB_PROBE(1);
    }
}

void lab_finish(void)
{
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
    lab_harness_calibrate();
    lab_bench_run();
    lab_finish();
}
