/*
 * calib: an empty probe pair, 1000 times.
 * Measures: probe 2 -> probe 3 with nothing between them. The harness's calibration pair
 * is the same code, so after the host subtracts the probe cost every sample is exactly 0
 * instructions (and 0 cycles): the proof that calibration removes the probe's own cost.
 */
#include "lab/bench.h"

#define CALIB_ROUNDS 1000

LAB_INTERVAL(empty_pair, 2, 3, "probe 2 then probe 3 with nothing between: 0 after calibration");

void lab_bench_run(void)
{
    for (int i = 0; i < CALIB_ROUNDS; i++) {
        LAB_PROBE(2);
        LAB_PROBE(3);
    }
}
