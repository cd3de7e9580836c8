/* mps2-an521 implementation of lab/target.h. */
#include <stdint.h>

#include "lab/target.h"
#include "mps2_an521.h"

#ifndef LAB_TARGET_CLOCK_HZ
#error "LAB_TARGET_CLOCK_HZ must be set by the build (target.toml clock_hz)"
#endif

extern void (*lab_ram_vectors[MPS2_VECTOR_COUNT])(void);

void lab_target_init(void)
{
    lab_target_vectors_init();
    UART0_BAUDDIV = 16u;
    UART0_CTRL = UART_CTRL_TX_EN;
}

void lab_target_console_write(const char *buf, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++) {
        while ((UART0_STATE & UART_STATE_TX_FULL) != 0u) {
        }
        UART0_DATA = (uint8_t)buf[i];
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

uint32_t lab_target_irq_count(void) { return MPS2_IRQ_COUNT; }

/* (name in parentheses: the function, not the macro of lab/target.h that lists handlers) */
int(lab_target_irq_install)(uint32_t irq, lab_irq_handler_t handler, uint32_t priority)
{
    if (irq >= MPS2_IRQ_COUNT || handler == 0) {
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
    if (irq >= MPS2_IRQ_COUNT) {
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

uint32_t lab_target_irq_soft(uint32_t n) { return MPS2_SOFT_IRQ_TOP - (n & 3u); }

static lab_irq_handler_t lab_timer_handler;

static void lab_target_timer_isr(void)
{
    TIMER0_INTCLEAR = 1u;
    lab_timer_handler();
}

int lab_target_timer_start(uint32_t period, lab_irq_handler_t handler, uint32_t priority)
{
    if (period == 0u || handler == 0) {
        return -1;
    }
    lab_target_timer_stop();
    lab_timer_handler = handler;
    /* The timer counts VALUE down to 0 and interrupts as it reloads: period - 1 + 1. */
    TIMER0_RELOAD = period - 1u;
    TIMER0_VALUE = period - 1u;
    TIMER0_INTCLEAR = 1u;
    if (lab_target_irq_install(TIMER0_IRQ, lab_target_timer_isr, priority) != 0) {
        return -1;
    }
    TIMER0_CTRL = TIMER_CTRL_EN | TIMER_CTRL_IRQ_EN;
    return 0;
}

void lab_target_timer_stop(void)
{
    TIMER0_CTRL = 0u;
    TIMER0_INTCLEAR = 1u;
    lab_target_irq_remove(TIMER0_IRQ);
}

uint32_t lab_target_clock_hz(void) { return (uint32_t)LAB_TARGET_CLOCK_HZ; }

volatile uint32_t *lab_target_output_reg(void) { return (volatile uint32_t *)(uintptr_t)FPGAIO_LED0_ADDR; }
