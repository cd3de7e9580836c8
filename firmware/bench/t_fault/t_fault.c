/* t_fault: executes a permanently undefined instruction. The target's fault handler must
 * report the PC and fault status registers and exit with LAB_EXIT_FAULT. */
#include "lab/bench.h"

LAB_INTERVAL(faulted, 2, 3, "probe 3 is never reached");

void lab_bench_run(void)
{
    LAB_PROBE(2);
    __asm__ volatile("udf #7");
    LAB_PROBE(3);
}
