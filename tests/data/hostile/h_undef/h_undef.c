/* Calls a function nothing defines: the link fails (tests/data/hostile/README.md). */
#include "lab/bench.h"

void no_such_function(void);

void lab_bench_run(void)
{
    no_such_function();
    lab_finish();
}
