/* Prints terminal escape sequences (clear screen, retitle, red), then fails with a
 * reason holding HTML and an escape (tests/data/hostile/README.md). */
#include "lab/bench.h"
#include "lab/console.h"

void lab_bench_run(void)
{
    lab_console_puts("hello \x1b[2J\x1b]0;pwned\x07\x1b[31mRED\x1b[0m\r\n");
    lab_fail_status(LAB_EXIT_CHECK_FAILED, "<script>alert(5)</script> \x1b[31mred\x1b[0m");
}
