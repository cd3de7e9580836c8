/*
 * The part of lab/target.h that is the same on every Cortex-M target: lab_target_exit()
 * by Arm semihosting (QEMU -semihosting; bkpt exists on ARMv6-M too), the IRQ API on the
 * NVIC and the RAM vector table, software-only IRQ lines and the main stack's bounds; and
 * (lab_cortex_m_cores.h) the cores section and the kernel tick.
 * ARMv6-M gets its own NVIC access (one register per kind, word-wide priorities, no STIR),
 * chosen by the compiler's __ARM_ARCH_6M__, never by board.
 *
 * Function definitions, not declarations: included once per image, by the board's
 * target.c, right after its console code. The board's timer code in the same translation
 * unit calls lab_target_irq_install() and lab_target_irq_remove(), and the compiler may
 * inline them there, as it did when every board had its own copy of this code; so the
 * image, its addresses and every measured count are what they were (a separate object
 * file would turn those inlined calls into real ones and move the timer's interrupt
 * phase). The board keeps its own console, timer, clock and output register.
 */
#ifndef LAB_CORTEX_M_TARGET_H
#define LAB_CORTEX_M_TARGET_H

#include <stdint.h>

#include "lab/target.h"
#include "lab_cortex_m.h"

void lab_target_exit(int status)
{
    /* Semihosting SYS_EXIT_EXTENDED (0x20): block {ADP_Stopped_ApplicationExit, status};
     * QEMU exits with `status` as its process exit code. */
    static volatile uint32_t block[2];
    block[0] = 0x20026u;
    block[1] = (uint32_t)status;
    register uint32_t r0 __asm__("r0") = 0x20u;
    register uint32_t r1 __asm__("r1") = (uint32_t)(uintptr_t)block;
    __asm__ volatile("bkpt 0xab" : : "r"(r0), "r"(r1) : "memory");
    for (;;) {
        /* Not under a semihosting debugger: nothing else to do. */
        __asm__ volatile("wfi");
    }
}

uint32_t lab_target_irq_count(void) { return LAB_BOARD_IRQ_COUNT; }

#if LAB_CM_ARMV6M
/* ARMv6-M: the priority registers are word access only; each holds four lines. */
static void lab_target_irq_priority(uint32_t irq, uint32_t priority)
{
    uint32_t shift = 8u * (irq % 4u);
    uint32_t v = NVIC_IPR(irq / 4u);
    v &= ~(0xFFu << shift);
    v |= (priority & 0xFFu) << shift;
    NVIC_IPR(irq / 4u) = v;
}
#endif

/* (name in parentheses: the function, not the macro of lab/target.h that lists handlers) */
int(lab_target_irq_install)(uint32_t irq, lab_irq_handler_t handler, uint32_t priority)
{
    if (irq >= LAB_BOARD_IRQ_COUNT || handler == 0) {
        return -1;
    }
    lab_ram_vectors[16u + irq] = handler;
#if LAB_CM_ARMV6M
    lab_target_irq_priority(irq, priority);
    NVIC_ICPR = 1u << irq;
    __asm__ volatile("dsb" ::: "memory");
    NVIC_ISER = 1u << irq;
#else
    NVIC_IPR(irq) = (uint8_t)priority;
    NVIC_ICPR(irq / 32u) = 1u << (irq % 32u);
    __asm__ volatile("dsb" ::: "memory");
    NVIC_ISER(irq / 32u) = 1u << (irq % 32u);
#endif
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    return 0;
}

void lab_target_irq_trigger(uint32_t irq)
{
#if LAB_CM_ARMV6M
    /* ARMv6-M has no STIR: set the line pending in ISPR. */
    NVIC_ISPR = 1u << (irq % 32u);
#else
    NVIC_STIR = irq;
#endif
    __asm__ volatile("dsb\n\tisb" ::: "memory");
}

void lab_target_irq_remove(uint32_t irq)
{
    if (irq >= LAB_BOARD_IRQ_COUNT) {
        return;
    }
#if LAB_CM_ARMV6M
    NVIC_ICER = 1u << irq;
#else
    NVIC_ICER(irq / 32u) = 1u << (irq % 32u);
#endif
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    lab_ram_vectors[16u + irq] = lab_target_default_handler;
}

extern uint32_t __lab_main_stack_limit, __lab_main_stack_top;

void lab_target_main_stack(uintptr_t *lo, uintptr_t *hi)
{
    *lo = (uintptr_t)&__lab_main_stack_limit;
    *hi = (uintptr_t)&__lab_main_stack_top;
}

uint32_t lab_target_irq_soft(uint32_t n) { return LAB_TARGET_IRQ_SOFT_TOP - (n & 3u); }

/* The cores section of lab/target.h (single-core or several, by LAB_TARGET_CORES) and the
 * kernel tick (lab_target_tick_start). */
#include "lab_cortex_m_cores.h"

#endif /* LAB_CORTEX_M_TARGET_H */
