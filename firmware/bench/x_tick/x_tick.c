/*
 * x_tick (suite "smp"): lab_target_tick_start(), the kernel tick of lab/target.h, checked
 * on every core of the target (core 0; on a multi-core target each other core too, started
 * with lab_target_core_start). It measures nothing: it checks.
 *
 * With interrupts disabled (as the contract asks) each core starts its tick at
 * lab_target_clock_hz() / X_TICK_PERIOD Hz and checks its own SysTick (banked per core):
 * RELOAD is the period less one, the counter runs from the processor clock with its
 * interrupt enabled, PendSV and SysTick have the least urgent priority the NVIC implements
 * (the top LAB_TARGET_NVIC_PRIO_BITS bits set), and the SysTick exception becomes pending
 * (ICSR PENDSTSET) while the core polls. Then it stops the tick and clears
 * the pending exception, so no handler is needed (a kernel port's SysTick_Handler, if
 * any, never runs). Refusals: hz = 0, a period below 2 cycles, a period over 2^24.
 *
 * Core 0 also checks the core API's answers it can check alone: its core id is 0; on a
 * one-core target (LAB_TARGET_CORES == 1) core_start and doorbell_install refuse (-1) and
 * a ring does nothing (no exception, nothing pending).
 *
 * Registers: SysTick SYST_CSR/RVR at 0xE000E010/14, SCB ICSR at 0xE000ED04 (PENDSTSET bit
 * 26, PENDSTCLR bit 25), SHPR3 at 0xE000ED20 (ARMv7-M ARM DDI 0403E B3.3.2, B3.2.4,
 * B3.2.12; ARMv6-M and ARMv8-M the same).
 */
#include <stdint.h>

#include "lab/bench.h"
#include "lab/target.h"

#define X_REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))
#define X_SYST_CSR X_REG(0xE000E010u)
#define X_SYST_RVR X_REG(0xE000E014u)
#define X_SCB_ICSR X_REG(0xE000ED04u)
#define X_SCB_SHPR3 X_REG(0xE000ED20u)
#define X_ICSR_PENDSTSET (1u << 26)
#define X_ICSR_PENDSTCLR (1u << 25)

/* Cycles per tick: short, so the wait is short. */
#define X_TICK_PERIOD 1000u
/* Polls before giving up: under QEMU -icount shift=0 an instruction takes 1 ns of virtual
 * time, so a 1000-cycle period (50 us at 20 MHz) is tens of thousands of instructions;
 * this bound is far above that and far below the benchmark's insn_limit. */
#define X_TICK_POLLS 500000u

/* 0 if every check passed, else the source line of the first that failed. */
static uint32_t x_tick_check(void)
{
    uint32_t clock = lab_target_clock_hz();
    if (lab_target_tick_start(0u) != -1) {
        return __LINE__;
    }
    if (lab_target_tick_start(clock) != -1) { /* period 1 */
        return __LINE__;
    }
    int slow = lab_target_tick_start(1u); /* period = clock: fits 24 bits only below 16.8 MHz */
    if (slow != ((clock - 1u > 0xFFFFFFu) ? -1 : 0)) {
        return __LINE__;
    }
    X_SYST_CSR = 0u;
    if (lab_target_tick_start(clock / X_TICK_PERIOD) != 0) {
        return __LINE__;
    }
    if (X_SYST_RVR != clock / (clock / X_TICK_PERIOD) - 1u) {
        return __LINE__;
    }
    if ((X_SYST_CSR & 0x7u) != 0x7u) {
        return __LINE__;
    }
    uint32_t least = (0xFFu << (8u - LAB_TARGET_NVIC_PRIO_BITS)) & 0xFFu;
    uint32_t pri = X_SCB_SHPR3 >> 16; /* PendSV in bits 7:0, SysTick in bits 15:8 */
    if ((pri & least) != least || ((pri >> 8) & least) != least) {
        return __LINE__;
    }
    uint32_t polls = 0;
    while ((X_SCB_ICSR & X_ICSR_PENDSTSET) == 0u) {
        if (++polls > X_TICK_POLLS) {
            return __LINE__;
        }
    }
    X_SYST_CSR = 0u;
    X_SCB_ICSR = X_ICSR_PENDSTCLR;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    return 0;
}

#if LAB_TARGET_CORES > 1
static uint64_t x_core_stack[LAB_TARGET_CORES][128];
static volatile uint32_t x_core_result[LAB_TARGET_CORES]; /* check code + 1 once done */

static void x_core_main(void *arg)
{
    uint32_t core = (uint32_t)(uintptr_t)arg;
    uint32_t r = lab_target_core_id() == core ? x_tick_check() : (uint32_t)__LINE__;
    x_core_result[core] = r + 1u;
    __asm__ volatile("dsb\n\tsev" ::: "memory");
    for (;;) {
        __asm__ volatile("wfi"); /* PRIMASK set, nothing pending: sleeps for good */
    }
}
#endif

#if LAB_TARGET_CORES == 1
static void x_entry(void *arg) { (void)arg; }
static void x_handler(void) {}
static uint64_t x_stack[8];
#endif

void lab_bench_run(void)
{
    LAB_CHECK(lab_target_core_id() == 0u);
#if LAB_TARGET_CORES == 1
    LAB_CHECK(lab_target_core_start(1u, x_entry, 0, (uint32_t *)(void *)&x_stack[8]) == -1);
    LAB_CHECK(lab_target_doorbell_install(x_handler, 0u) == -1);
    lab_target_doorbell_ring(0u);
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    LAB_CHECK((X_SCB_ICSR & 0x1FFu) == 0u);         /* VECTACTIVE: still thread mode */
    LAB_CHECK((X_SCB_ICSR & (0x1FFu << 12)) == 0u); /* VECTPENDING: nothing pending */
#endif
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
    uint32_t r = x_tick_check();
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
    if (r != 0u) {
        lab_fail(__FILE__, (int)r, "lab_target_tick_start check failed at this line (core 0)");
    }
#if LAB_TARGET_CORES > 1
    for (uint32_t core = 1; core < LAB_TARGET_CORES; core++) {
        LAB_CHECK(lab_target_core_start(core, x_core_main, (void *)(uintptr_t)core,
                                        (uint32_t *)(void *)&x_core_stack[core][128]) == 0);
        while (x_core_result[core] == 0u) {
            __asm__ volatile("wfe"); /* QEMU runs the other core */
        }
        if (x_core_result[core] != 1u) {
            lab_fail(__FILE__, (int)(x_core_result[core] - 1u),
                     "lab_target_tick_start check failed at this line (core 1..)");
        }
    }
#endif
}
