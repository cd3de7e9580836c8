/* stm32vldiscovery (STM32F100) implementation of lab/target.h. */
#include <stdint.h>

#include "lab/target.h"
#include "stm32f100.h"

#ifndef LAB_TARGET_CLOCK_HZ
#error "LAB_TARGET_CLOCK_HZ must be set by the build (target.toml clock_hz)"
#endif

extern void (*lab_ram_vectors[STM32_VECTOR_COUNT])(void);

void lab_target_init(void)
{
    lab_target_vectors_init();
    USART_CR1(USART1_BASE) = USART_CR1_UE | USART_CR1_TE;
}

void lab_target_console_write(const char *buf, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++) {
        while ((USART_SR(USART1_BASE) & USART_SR_TXE) == 0u) {
        }
        USART_DR(USART1_BASE) = (uint8_t)buf[i];
    }
}

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

uint32_t lab_target_irq_count(void) { return STM32_IRQ_COUNT; }

/* (name in parentheses: the function, not the macro of lab/target.h that lists handlers) */
int(lab_target_irq_install)(uint32_t irq, lab_irq_handler_t handler, uint32_t priority)
{
    if (irq >= STM32_IRQ_COUNT || handler == 0) {
        return -1;
    }
    lab_ram_vectors[16u + irq] = handler;
    NVIC_IPR(irq) = (uint8_t)priority;
    NVIC_ICPR(irq / 32u) = 1u << (irq % 32u);
    __asm__ volatile("dsb" ::: "memory");
    NVIC_ISER(irq / 32u) = 1u << (irq % 32u);
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    return 0;
}

void lab_target_irq_trigger(uint32_t irq)
{
    NVIC_STIR = irq;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
}

void lab_target_irq_remove(uint32_t irq)
{
    if (irq >= STM32_IRQ_COUNT) {
        return;
    }
    NVIC_ICER(irq / 32u) = 1u << (irq % 32u);
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    lab_ram_vectors[16u + irq] = lab_target_default_handler;
}

extern uint32_t __lab_main_stack_limit, __lab_main_stack_top;

void lab_target_main_stack(uintptr_t *lo, uintptr_t *hi)
{
    *lo = (uintptr_t)&__lab_main_stack_limit;
    *hi = (uintptr_t)&__lab_main_stack_top;
}

uint32_t lab_target_irq_soft(uint32_t n) { return STM32_SOFT_IRQ_TOP - (n & 3u); }

/* No benchmark timer: QEMU's stm32vldiscovery models none of the part's timers (TIM1 ..
 * TIM17 are unimplemented-device stubs that never interrupt), and SysTick belongs to the
 * kernel. lab_target_timer_start() reports that it cannot start (the benchmark's check
 * fails with that reason); README.md lists the benchmarks this affects. */
int lab_target_timer_start(uint32_t period, lab_irq_handler_t handler, uint32_t priority)
{
    (void)period;
    (void)handler;
    (void)priority;
    return -1;
}

void lab_target_timer_stop(void) {}

uint32_t lab_target_clock_hz(void) { return (uint32_t)LAB_TARGET_CLOCK_HZ; }

volatile uint32_t *lab_target_output_reg(void) { return &USART_BRR(USART3_BASE); }
