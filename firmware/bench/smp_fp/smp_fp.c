/*
 * smp_fp: the FP context switch of an SMP port (ARMv8-M with FPU: s0-s15 stacked by the
 * processor, lazily; s16-s31 saved by the port's PendSV). On core 1 a pair of tasks:
 *   holder (priority 1) loads s0-s31 with its own pattern and waits in one asm block,
 *     without touching them, until the clobberer has run; then it stores s0-s31 back and
 *     checks them against the pattern;
 *   clobberer (priority 2) sleeps one tick (lab_task_delay), so it preempts the holder
 *     from the tick's switch (PendSV), writes every FP register with its own pattern, sets
 *     the flag and suspends itself; the holder resumes where it was.
 * FP_ROUNDS rounds. Core 1 because on QEMU's mps2-an521 only core 1 has an FPU: the
 * SSE-200 model gives CPU0 neither FPU nor DSP (QEMU hw/arm/armsse.c, sse200 properties
 * CPU0_FPU / CPU0_DSP false, "matching the hardware"), so an FP instruction on core 0 is a
 * NOCP fault. The task that starts the pair (core 0) uses no FP. Needs two started cores
 * (lab_port_cores() == 2), else unsupported.
 */
#include "lab/bench.h"
#include "lab/port.h"
#include "lab/target.h"

#if !LAB_HAS_SMP || !LAB_HAS_SCHEDULER || !LAB_HAS_SUSPEND || !LAB_HAS_DELAY
#error "smp_fp needs LAB_HAS_SMP, LAB_HAS_SCHEDULER, LAB_HAS_SUSPEND, LAB_HAS_DELAY"
#endif
#if !defined(__ARM_FP)
#error "smp_fp needs an image that uses the FPU"
#endif

#define FP_ROUNDS 10u
#define FP_STACK_WORDS 256u
#define FP_CORE 1u

LAB_PERIOD(fp_round, 2, "one holder round on core 1 (a tick period: the check is the point)");

typedef struct fp_pair {
    lab_task_t holder, clobberer;
    uint32_t core;
    volatile uint32_t clobbered;
    volatile uint32_t done;
    uint32_t pattern[32];
    uint32_t back[32];
    uint32_t junk[32];
} fp_pair_t;

static fp_pair_t fp_pair;
static LAB_STACK_DEFINE(fp_stack_h, FP_STACK_WORDS);
static LAB_STACK_DEFINE(fp_stack_c, FP_STACK_WORDS);
static lab_task_t fp_main;
static LAB_STACK_DEFINE(fp_main_stack, FP_STACK_WORDS);

/* Load s0-s31 from `in`, wait until *flag != 0 without touching them, store them to `out`. */
static void fp_hold(const uint32_t *in, uint32_t *out, volatile uint32_t *flag)
{
    __asm volatile("vldmia %[in], {s0-s15}\n"
                   "add r12, %[in], #64\n"
                   "vldmia r12, {s16-s31}\n"
                   "1:\n"
                   "ldr r12, [%[flag]]\n"
                   "cmp r12, #0\n"
                   "beq 1b\n"
                   "vstmia %[out], {s0-s15}\n"
                   "add r12, %[out], #64\n"
                   "vstmia r12, {s16-s31}\n"
                   :
                   : [in] "r"(in), [out] "r"(out), [flag] "r"(flag)
                   : "r12", "cc", "memory", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9",
                     "s10", "s11", "s12", "s13", "s14", "s15", "s16", "s17", "s18", "s19", "s20", "s21",
                     "s22", "s23", "s24", "s25", "s26", "s27", "s28", "s29", "s30", "s31");
}

static void fp_clobber(const uint32_t *in)
{
    __asm volatile("vldmia %[in], {s0-s15}\n"
                   "add r12, %[in], #64\n"
                   "vldmia r12, {s16-s31}\n"
                   :
                   : [in] "r"(in)
                   : "r12", "memory", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10",
                     "s11", "s12", "s13", "s14", "s15", "s16", "s17", "s18", "s19", "s20", "s21", "s22",
                     "s23", "s24", "s25", "s26", "s27", "s28", "s29", "s30", "s31");
}

static void fp_clobberer_entry(void *arg)
{
    fp_pair_t *p = arg;
    for (;;) {
        lab_task_delay(1u);
        LAB_CHECK(lab_target_core_id() == p->core);
        fp_clobber(p->junk);
        p->clobbered = 1u;
        lab_task_suspend(NULL);
    }
}

static void fp_holder_entry(void *arg)
{
    fp_pair_t *p = arg;
    LAB_CHECK(lab_target_core_id() == p->core);
    for (uint32_t round = 0; round < FP_ROUNDS; round++) {
        for (uint32_t i = 0; i < 32u; i++) {
            p->pattern[i] = 0x3f800000u + (p->core << 20) + (round << 8) + i;
            p->junk[i] = ~p->pattern[i];
            p->back[i] = 0u;
        }
        p->clobbered = 0u;
        lab_task_resume(&p->clobberer);
        LAB_PROBE(2);
        fp_hold(p->pattern, p->back, &p->clobbered);
        for (uint32_t i = 0; i < 32u; i++) {
            LAB_CHECK(p->back[i] == p->pattern[i]);
        }
    }
    p->done = 1u;
    lab_task_suspend(NULL);
}

static void fp_main_entry(void *arg)
{
    (void)arg;
    if (lab_port_cores() <= FP_CORE) {
        lab_fail_status(LAB_EXIT_UNSUPPORTED, "smp_fp: the kernel schedules one core (labSMP_START_CORES = 1)");
    }
    fp_pair_t *p = &fp_pair;
    p->core = FP_CORE;
    LAB_CHECK(lab_task_create_on(&p->clobberer, "clob", fp_clobberer_entry, p, 2u, fp_stack_c, FP_STACK_WORDS,
                                 FP_CORE) == LAB_OK);
    LAB_CHECK(lab_task_create_on(&p->holder, "hold", fp_holder_entry, p, 1u, fp_stack_h, FP_STACK_WORDS,
                                 FP_CORE) == LAB_OK);
    while (p->done == 0u) {
        lab_task_delay(1u);
    }
    lab_finish();
}

void lab_bench_run(void)
{
    lab_port_init();
    /* Priority 3 on core 0: it starts the pair on core 1, then only sleeps between ticks. */
    LAB_CHECK(lab_task_create(&fp_main, "main", fp_main_entry, 0, 3u, fp_main_stack, FP_STACK_WORDS) == LAB_OK);
    lab_port_start();
}
