/* microbit (nRF51822, Cortex-M0) implementation of lab/target.h. */
#include <stdint.h>

#include "lab/target.h"
#include "nrf51.h"

#ifndef LAB_TARGET_CLOCK_HZ
#error "LAB_TARGET_CLOCK_HZ must be set by the build (target.toml clock_hz)"
#endif

extern void (*lab_ram_vectors[NRF_VECTOR_COUNT])(void);

/* Polls of EVENTS_TXDRDY before a byte counts as lost: QEMU's UART raises it as soon as
 * the byte is handed on, so this bound only matters when the UART is not connected; then
 * the console drops output instead of hanging, and the host reports the missing lines. */
#define UART_TX_POLLS 100000u

void lab_target_init(void)
{
    lab_target_vectors_init();
    UART_ENABLE = UART_ENABLE_ENABLED;
    UART_TASKS_STARTTX = 1u;
}

void lab_target_console_write(const char *buf, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++) {
        UART_EVENTS_TXDRDY = 0u;
        UART_TXD = (uint8_t)buf[i];
        for (uint32_t n = 0; n < UART_TX_POLLS && UART_EVENTS_TXDRDY == 0u; n++) {
        }
    }
}

void lab_target_exit(int status)
{
    /* Semihosting SYS_EXIT_EXTENDED (0x20): block {ADP_Stopped_ApplicationExit, status};
     * QEMU exits with `status` as its process exit code. bkpt is ARMv6-M too. */
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

uint32_t lab_target_irq_count(void) { return NRF_IRQ_COUNT; }

/* ARMv6-M: the priority registers are word access only; each holds four lines. */
static void lab_target_irq_priority(uint32_t irq, uint32_t priority)
{
    uint32_t shift = 8u * (irq % 4u);
    uint32_t v = NVIC_IPR(irq / 4u);
    v &= ~(0xFFu << shift);
    v |= (priority & 0xFFu) << shift;
    NVIC_IPR(irq / 4u) = v;
}

/* (name in parentheses: the function, not the macro of lab/target.h that lists handlers) */
int(lab_target_irq_install)(uint32_t irq, lab_irq_handler_t handler, uint32_t priority)
{
    if (irq >= NRF_IRQ_COUNT || handler == 0) {
        return -1;
    }
    lab_ram_vectors[16u + irq] = handler;
    lab_target_irq_priority(irq, priority);
    NVIC_ICPR = 1u << irq;
    __asm__ volatile("dsb" ::: "memory");
    NVIC_ISER = 1u << irq;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    return 0;
}

/* ARMv6-M has no STIR: set the line pending in ISPR. */
void lab_target_irq_trigger(uint32_t irq)
{
    NVIC_ISPR = 1u << (irq % 32u);
    __asm__ volatile("dsb\n\tisb" ::: "memory");
}

void lab_target_irq_remove(uint32_t irq)
{
    if (irq >= NRF_IRQ_COUNT) {
        return;
    }
    NVIC_ICER = 1u << irq;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    lab_ram_vectors[16u + irq] = lab_target_default_handler;
}

extern uint32_t __lab_main_stack_limit, __lab_main_stack_top;

void lab_target_main_stack(uintptr_t *lo, uintptr_t *hi)
{
    *lo = (uintptr_t)&__lab_main_stack_limit;
    *hi = (uintptr_t)&__lab_main_stack_top;
}

uint32_t lab_target_irq_soft(uint32_t n) { return NRF_SOFT_IRQ_TOP - (n & 3u); }

static lab_irq_handler_t lab_timer_handler;

static void lab_target_timer_isr(void)
{
    TIMER_EVENTS_COMPARE0 = 0u;
    lab_timer_handler();
}

int lab_target_timer_start(uint32_t period, lab_irq_handler_t handler, uint32_t priority)
{
    /* The timer counts at 16 MHz (prescaler 0); a period in core cycles becomes ticks. */
    uint64_t ticks = ((uint64_t)period * TIMER_CLOCK_HZ) / (uint64_t)LAB_TARGET_CLOCK_HZ;
    if (period == 0u || handler == 0 || ticks == 0u || ticks > 0xFFFFFFFFull) {
        return -1;
    }
    lab_target_timer_stop();
    lab_timer_handler = handler;
    TIMER_MODE = 0u;
    TIMER_BITMODE = TIMER_BITMODE_32;
    TIMER_PRESCALER = 0u;
    TIMER_CC0 = (uint32_t)ticks;
    TIMER_SHORTS = TIMER_SHORTS_COMPARE0_CLEAR;
    TIMER_TASKS_CLEAR = 1u;
    TIMER_EVENTS_COMPARE0 = 0u;
    if (lab_target_irq_install(TIMER0_IRQ, lab_target_timer_isr, priority) != 0) {
        return -1;
    }
    TIMER_INTENSET = TIMER_INT_COMPARE0;
    TIMER_TASKS_START = 1u;
    return 0;
}

void lab_target_timer_stop(void)
{
    TIMER_TASKS_STOP = 1u;
    TIMER_INTENCLR = TIMER_INT_COMPARE0;
    TIMER_EVENTS_COMPARE0 = 0u;
    lab_target_irq_remove(TIMER0_IRQ);
}

uint32_t lab_target_clock_hz(void) { return (uint32_t)LAB_TARGET_CLOCK_HZ; }

volatile uint32_t *lab_target_output_reg(void) { return (volatile uint32_t *)(uintptr_t)GPIO_OUT_ADDR; }
