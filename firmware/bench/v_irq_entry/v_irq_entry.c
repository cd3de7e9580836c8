/*
 * v_irq_entry (validation suite): exception entry cycles, against the published
 * interrupt latencies of each core (bench.toml [[validation]]). irq_entry.S stores one
 * word into RAM between probes 2 and 3 (irq_base), then the same store into the NVIC's
 * Interrupt Set-Pending Register between probe 4 and the interrupt handler's first
 * instruction, probe 5 (irq_entry). irq_entry - irq_base is the cycles from the pending
 * store to the handler's first instruction beyond the store itself: the latency.
 *
 * ISPR: the NVIC's Interrupt Set-Pending Registers at 0xE000E200 + 4 * (irq / 32), the
 * same on ARMv6-M (ARM DDI 0419, B3.4) and ARMv7-M (ARM DDI 0403, B3.4.3; STIR, which the
 * target's trigger uses, does not exist on ARMv6-M). Self-check: the handler ran once per
 * round, before the pending store's function returned. On ARMv7-M/ARMv8-M Mainline the
 * same interrupt is then pended by a store to STIR (irq_entry_stir, probes 6 -> 7).
 */
#include "lab/bench.h"
#include "lab/port.h"
#include "lab/target.h"

#if !LAB_HAS_IRQ
#error "v_irq_entry needs LAB_HAS_IRQ"
#endif

#define V_IRQ_ROUNDS 20
/* STIR exists on ARMv7-M and ARMv8-M Mainline, not on ARMv6-M (the compiler says which). */
#if defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__) || defined(__ARM_ARCH_8M_MAIN__)
#define LAB_V_IRQ_STIR 1
#else
#define LAB_V_IRQ_STIR 0
#endif

LAB_INTERVAL(irq_base, 2, 3, "STR to RAM (the baseline)");
LAB_INTERVAL(irq_entry, 4, 5, "STR to NVIC ISPR (pends the IRQ) -> the handler's first instruction");
#if LAB_V_IRQ_STIR
LAB_INTERVAL(irq_entry_stir, 6, 7, "STR to NVIC STIR (pends the IRQ) -> the handler's first instruction");
#endif

void lab_v_irq_entry(volatile uint32_t *ispr, uint32_t bit, uint32_t *scratch);
void lab_v_irq_entry_handler(void);
void lab_v_irq_entry_stir(volatile uint32_t *stir, uint32_t irq);
void lab_v_irq_entry_stir_handler(void);
volatile uint32_t lab_v_irq_entry_count;

static uint32_t scratch;

void lab_bench_run(void)
{
    uint32_t irq = lab_target_irq_soft(0);
    LAB_CHECK(lab_target_irq_install(irq, lab_v_irq_entry_handler, 0u) == 0);
    volatile uint32_t *ispr = (volatile uint32_t *)(uintptr_t)(0xE000E200u + 4u * (irq / 32u));
    uint32_t bit = 1u << (irq % 32u);
    for (uint32_t r = 1; r <= V_IRQ_ROUNDS; r++) {
        lab_v_irq_entry(ispr, bit, &scratch);
        LAB_CHECK(lab_v_irq_entry_count == r);
        LAB_CHECK(scratch == bit);
    }
    lab_target_irq_remove(irq);
#if LAB_V_IRQ_STIR
    /* The same interrupt pended by a store of its number to STIR (0xE000EF00, ARMv7-M ARM
     * B3.4.3), the register the target's own trigger uses. */
    LAB_CHECK(lab_target_irq_install(irq, lab_v_irq_entry_stir_handler, 0u) == 0);
    for (uint32_t r = 1; r <= V_IRQ_ROUNDS; r++) {
        lab_v_irq_entry_stir((volatile uint32_t *)(uintptr_t)0xE000EF00u, irq);
        LAB_CHECK(lab_v_irq_entry_count == V_IRQ_ROUNDS + r);
    }
    lab_target_irq_remove(irq);
#endif
}
