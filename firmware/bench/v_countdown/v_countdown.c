/*
 * v_countdown (validation suite): GCC -O0's `while (counter--);` loop on a uint8_t
 * counter (countdown.S), once with counter = 0 (one pass) and once with counter = 10
 * (eleven passes): the difference is ten iterations. Reference figure: bench.toml
 * [[validation]]. Self-check: the counter wrapped to 255 after the loop, as in C.
 */
#include "lab/bench.h"

#define V_COUNTDOWN_ROUNDS 50

LAB_INTERVAL(countdown_1, 2, 3, "while (counter--); with counter = 0: one pass");
LAB_INTERVAL(countdown_11, 4, 5, "while (counter--); with counter = 10: eleven passes");

uint32_t lab_v_countdown_1(volatile uint8_t *counter);
uint32_t lab_v_countdown_11(volatile uint8_t *counter);

static volatile uint8_t counter;

void lab_bench_run(void)
{
    for (int r = 0; r < V_COUNTDOWN_ROUNDS; r++) {
        counter = 0u;
        LAB_CHECK(lab_v_countdown_1(&counter) == 0u && counter == 255u);
        counter = 10u;
        LAB_CHECK(lab_v_countdown_11(&counter) == 0u && counter == 255u);
    }
}
