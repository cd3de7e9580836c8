/* Prints without end: the host stops it at timeout_s (tests/data/hostile/README.md). */
#include "lab/bench.h"
#include "lab/console.h"

void lab_bench_run(void)
{
    for (;;) {
        lab_console_puts("flood flood flood flood flood flood flood flood flood flood\n");
    }
}
