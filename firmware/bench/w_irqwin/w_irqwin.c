/*
 * w_irqwin: the known answer of the masked-window report (`rtoslab run --irq-windows`,
 * docs/irq-windows.md). Three masked sections of exact lengths, written in assembly so
 * that every optimisation level emits the same instructions between the marked lines:
 *
 *   W_PRIMASK   cpsid i; W_PRIMASK_NOPS nops; cpsie i
 *               -> a window at every level of W_PRIMASK_NOPS + 1 instructions
 *                  (the nops and the cpsie), from the cpsid's line to the cpsie's line;
 *   W_BASEPRI   msr basepri (W_BASEPRI_VALUE); W_BASEPRI_NOPS nops; mov + msr basepri (0)
 *               -> a window at the levels at or below W_BASEPRI_VALUE (numerically >=) of
 *                  W_BASEPRI_NOPS + 2 instructions;
 *   W_BASEPRI_MAX  msr basepri_max (0x80) with BASEPRI 0 (it sets it); 30 nops; mov + msr
 *               basepri (0) -> a window at levels 4-7 of 32 instructions;
 *   W_FAULTMASK cpsid f; 10 nops; cpsie f -> a window at every level of 11 instructions;
 *   W_HANDLER   the handler of a software-raised IRQ at priority W_HANDLER_PRIO: a naked
 *               function of W_HANDLER_NOPS nops, 4 instructions counting its runs and
 *               bx lr -> a window at the levels at or below W_HANDLER_PRIO of
 *               W_HANDLER_NOPS + 5 instructions, from the handler's first instruction to
 *               its bx lr (both on the line of its one asm statement).
 * Each runs W_REPEAT times. tests/e2e/test_irq_windows.py finds the lines by their
 * markers (the comments naming each section's start and end) and checks the lengths.
 * The metric (probes 2 -> 3 around the PRIMASK section) is its length plus the probe's.
 * Self-check: the handler ran W_REPEAT times.
 */
#include "lab/bench.h"
#include "lab/port.h"
#include "lab/target.h"

#if !LAB_HAS_IRQ
#error "w_irqwin needs LAB_HAS_IRQ"
#endif

#define W_REPEAT 3u
#define W_BASEPRI_VALUE "0x40" /* level 2 of 3 priority bits */
#define W_HANDLER_PRIO 0xA0u   /* level 5 of 3 priority bits */

#define NOP4 "nop\n\tnop\n\tnop\n\tnop\n\t"
#define NOP20 NOP4 NOP4 NOP4 NOP4 NOP4
/* W_PRIMASK_NOPS = 20, W_BASEPRI_NOPS = 40, W_HANDLER_NOPS = 60 */

LAB_INTERVAL(primask_section, 2, 3, "cpsid i, 20 nops, cpsie i (the known-answer section)");

__attribute__((used)) static volatile uint32_t w_handled;

/* Naked: no prologue or epilogue at any optimisation level; the count is in assembly. */
__attribute__((naked)) static void w_handler(void)
{
    __asm__ volatile(NOP20 NOP20 NOP20 "ldr r0, =w_handled\n\tldr r1, [r0]\n\tadds r1, r1, #1\n\tstr r1, [r0]\n\tbx lr\n\t.ltorg"); /* W_HANDLER */
}

void lab_bench_run(void)
{
    lab_port_init();
    uint32_t line = lab_target_irq_soft(0);
    LAB_CHECK(lab_target_irq_install(line, w_handler, W_HANDLER_PRIO) == 0);
    for (uint32_t i = 0; i < W_REPEAT; i++) {
        LAB_PROBE(2);
        __asm__ volatile("cpsid i" ::: "memory"); /* W_PRIMASK_START */
        __asm__ volatile(NOP20 ::: "memory");
        __asm__ volatile("cpsie i" ::: "memory"); /* W_PRIMASK_END */
        LAB_PROBE(3);
        __asm__ volatile("mov r0, #" W_BASEPRI_VALUE "\n\tmsr basepri, r0" ::: "r0", "memory"); /* W_BASEPRI_START */
        __asm__ volatile(NOP20 NOP20 ::: "memory");
        __asm__ volatile("mov r0, #0\n\tmsr basepri, r0" ::: "r0", "memory"); /* W_BASEPRI_END */
        __asm__ volatile("mov r0, #0x80\n\tmsr basepri_max, r0" ::: "r0", "memory"); /* W_BASEPRI_MAX_START */
        __asm__ volatile(NOP20 NOP4 NOP4 "nop\n\tnop" ::: "memory");
        __asm__ volatile("mov r0, #0\n\tmsr basepri, r0" ::: "r0", "memory"); /* W_BASEPRI_MAX_END */
        __asm__ volatile("cpsid f" ::: "memory"); /* W_FAULTMASK_START */
        __asm__ volatile(NOP4 NOP4 "nop\n\tnop" ::: "memory");
        __asm__ volatile("cpsie f" ::: "memory"); /* W_FAULTMASK_END */
        lab_target_irq_trigger(line);
    }
    lab_target_irq_remove(line);
    LAB_CHECK(w_handled == W_REPEAT);
}
