/* t_check: measures a pair, then its self-check fails. The run must be failed with the
 * check's text, and no numbers stored. */
#include "lab/bench.h"

LAB_INTERVAL(checked, 2, 3, "an empty pair whose benchmark then fails its check");

volatile uint32_t lab_t_check_value = 41u;

void lab_bench_run(void)
{
    LAB_PROBE(2);
    LAB_PROBE(3);
    LAB_CHECK(lab_t_check_value == 42u);
}
