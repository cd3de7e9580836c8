/*
 * call: the cost of calling an empty function the compiler may not inline or remove.
 * Measures: probe 2 -> probe 3 around one call of lab_call_empty(): the call instruction,
 * the function's body as compiled (at -O1 and above: just the return) and the return.
 * Self-check: the function really ran once per sample (it counts its calls).
 */
#include "lab/bench.h"

#define CALL_ROUNDS 1000

LAB_INTERVAL(empty_call, 2, 3, "bl to an empty non-inlined function and its return");

volatile uint32_t lab_call_count;

/* noipa: no inlining, cloning or interprocedural removal. The asm keeps it non-pure.
 * (GCC before 8, Debian's avr-gcc 5.4, has no noipa: noinline and noclone there.) */
#if __GNUC__ >= 8
#define LAB_CALL_NOIPA __attribute__((noipa))
#else
#define LAB_CALL_NOIPA __attribute__((noinline, noclone))
#endif
LAB_CALL_NOIPA void lab_call_empty(void)
{
    __asm__ volatile("" ::: "memory");
}

void lab_bench_run(void)
{
    for (int i = 0; i < CALL_ROUNDS; i++) {
        LAB_PROBE(2);
        lab_call_empty();
        LAB_PROBE(3);
        lab_call_count = lab_call_count + 1u;
    }
    LAB_CHECK(lab_call_count == CALL_ROUNDS);
}
