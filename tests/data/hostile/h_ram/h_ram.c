/* A buffer larger than any target's RAM: the link fails (tests/data/hostile/README.md). */
#include <stdint.h>

#include "lab/bench.h"

static volatile uint8_t h_ram_buffer[64u * 1024u * 1024u];

void lab_bench_run(void)
{
    h_ram_buffer[0] = 1u;
    lab_finish();
}
