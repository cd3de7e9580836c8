/* t_hang: spins forever after one probe. rtoslab must report a hang (instruction limit),
 * never numbers. */
#include "lab/bench.h"

LAB_INTERVAL(never_ends, 2, 3, "probe 3 is never reached");

void lab_bench_run(void)
{
    LAB_PROBE(2);
    for (;;) {
        LAB_BARRIER();
    }
}
