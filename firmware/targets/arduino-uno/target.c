/*
 * arduino-uno: lab/target.h on the ATmega328P as QEMU's arduino-uno machine models it
 * (README.md: what QEMU implements and what it does not).
 *
 * Console: USART0, polled. Benchmark timer and kernel tick: timer 1, the only timer QEMU
 * counts (timers 0 and 2 are unimplemented devices there), prescaler 1, so one timer
 * count is one core cycle, in CTC mode with TOP = OCR1A and the compare-match A
 * interrupt (QEMU ignores writes to ICR1, so the ICR1-TOP mode runs to 0xFFFF there, and
 * a compare-B interrupt at TOP made QEMU spin). One counter serves one of them at a time. Exit: a store into the exit
 * window, which the rtoslab plugin turns into QEMU's exit status (no semihosting on AVR).
 * The watchdog and the GPIO ports are unimplemented devices in QEMU (their registers
 * accept writes, read 0 and nothing happens): nothing here relies on them.
 */
#include <stdint.h>

#include <avr/interrupt.h>
#include <avr/io.h>

#include "lab/exit.h"
#include "lab/target.h"
#include "lab_board.h"

/* The main stack's bounds, from avr_sections.ld: the SRAM above .bss/.noinit. */
extern char lab_stack_lo[];
extern char lab_stack_hi[];

/* Which use timer 1 serves now. */
enum { LAB_T1_OFF, LAB_T1_TIMER, LAB_T1_TICK };
static volatile uint8_t lab_t1_use;
static lab_irq_handler_t lab_timer_handler;

void lab_target_init(void)
{
    /* 8N1, transmitter on; the baud divisor (115200 at 16 MHz) is for a real board: QEMU
     * sends each byte at once. */
    UBRR0H = (uint8_t)(LAB_BOARD_UBRR0 >> 8);
    UBRR0L = (uint8_t)LAB_BOARD_UBRR0;
    UCSR0A = 0u;
    UCSR0C = (uint8_t)((1u << UCSZ01) | (1u << UCSZ00));
    UCSR0B = (uint8_t)(1u << TXEN0);
    /* A Cortex-M core leaves reset with interrupts enabled (PRIMASK 0) and every source
     * off; an AVR with SREG's I bit clear (avr-libc's startup clears SREG). Set I so that
     * the harness and the ports start from the same state on every target: no source is
     * enabled yet, so nothing is taken until a benchmark or kernel enables one. */
    sei();
    /* SLEEP enters Idle mode (SMCR.SE = 1, SM = 000): the idle loops of the kernels sleep
     * until the next interrupt, as WFI does on a Cortex-M (+4 cycles of wake-up). */
    SMCR = (uint8_t)(1u << SE);
}

void lab_target_console_write(const char *buf, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++) {
        while ((UCSR0A & (1u << UDRE0)) == 0u) {
        }
        UDR0 = (uint8_t)buf[i];
    }
}

__attribute__((noreturn)) void lab_target_exit(int status)
{
    *(volatile uint8_t *)(uintptr_t)(LAB_TARGET_EXIT_WINDOW + (uint8_t)status) = 0u;
    /* Without the plugin's exit window nothing ends the machine: stop here. */
    cli();
    for (;;) {
        __asm__ volatile("sleep");
    }
}

/* The vector table is avr-libc's, in flash: no line can be installed at run time, and no
 * line is free for software to raise (the AVR has no software interrupt). */
uint32_t lab_target_irq_count(void) { return 0u; }

int(lab_target_irq_install)(uint32_t irq, lab_irq_handler_t handler, uint32_t priority)
{
    (void)irq;
    (void)handler;
    (void)priority;
    return -1;
}

void lab_target_irq_trigger(uint32_t irq) { (void)irq; }

void lab_target_irq_remove(uint32_t irq) { (void)irq; }

uint32_t lab_target_irq_soft(uint32_t n) { return n; }

void lab_target_main_stack(uintptr_t *lo, uintptr_t *hi)
{
    *lo = (uintptr_t)lab_stack_lo;
    *hi = (uintptr_t)lab_stack_hi;
}

uint32_t lab_target_clock_hz(void) { return LAB_TARGET_CLOCK_HZ; }

/* The "pin": on the Uno it would be PORTB (PB5, the LED), but QEMU's AVR machine maps the
 * GPIO ports as unimplemented devices (writes dropped, reads 0), so the register is
 * USART0's baud-rate low byte, which QEMU keeps as written and does nothing with (it sends
 * bytes at once whatever the rate; the STM32 targets use their USART3_BRR the same way).
 * A store through the pointer is one ST, as it would be to PORTB (2 cycles either way). */
volatile lab_output_t *lab_target_output_reg(void) { return &UBRR0L; }

/* Timer 1 counts core cycles (prescaler 1); a period is 1 .. LAB_BOARD_T1_MAX_PERIOD counts.
 * QEMU counts one timer tick every 1e9 / f ns truncated to whole ns (62 ns at 16 MHz,
 * hw/timer/avr_timer16.c), so its counts run 0.8% fast against the core clock. The counts
 * for a period are therefore the period's time in ns over QEMU's tick, so that the
 * handler runs every `cycles` core cycles of the emulated machine (lab/target.h); on a
 * real part, where a count is a cycle, this would give 0.8% long periods. */
#define LAB_T1_PS_PER_CYCLE (1000000000000ull / LAB_TARGET_MACHINE_HZ)       /* 62500 */
#define LAB_T1_TICK_PS ((1000000000ull / LAB_TARGET_MACHINE_HZ) * 1000ull)   /* 62000 */
/* counts = cycles * PS_PER_CYCLE / TICK_PS = cycles + cycles / Q (Q = 124 at 16 MHz), in
 * 16-bit arithmetic: the call's own cost is part of the first period (t_timer). */
#define LAB_T1_Q (LAB_T1_PS_PER_CYCLE == LAB_T1_TICK_PS ? 0u : (uint16_t)(LAB_T1_TICK_PS / (LAB_T1_PS_PER_CYCLE - LAB_T1_TICK_PS)))
static uint32_t lab_t1_counts(uint32_t cycles)
{
    if (cycles > 0xFFFFu) {
        return 0u; /* beyond the 16-bit timer */
    }
    uint16_t c = (uint16_t)cycles;
    uint16_t extra = LAB_T1_Q == 0u ? 0u : (uint16_t)((c + LAB_T1_Q / 2u) / LAB_T1_Q);
    return (uint32_t)c + extra;
}

static void lab_t1_stop(void)
{
    TIMSK1 = 0u;
    TCCR1B = 0u;
    TCCR1A = 0u;
    TIFR1 = 0xFFu; /* clear pending flags (written ones clear them) */
    lab_t1_use = LAB_T1_OFF;
}

int lab_target_timer_start(uint32_t period, lab_irq_handler_t handler, uint32_t priority)
{
    (void)priority; /* AVR interrupts have fixed priorities */
    uint32_t counts = lab_t1_counts(period);
    if (period == 0u || counts == 0u || counts > LAB_BOARD_T1_MAX_PERIOD || lab_t1_use == LAB_T1_TICK) {
        return -1;
    }
    uint8_t sreg = SREG;
    cli();
    lab_t1_stop();
    lab_timer_handler = handler;
    TCNT1 = 0u;
    OCR1A = (uint16_t)(counts - 1u);
    TCCR1A = 0u;
    /* WGM12 = 1 (CTC, TOP = OCR1A), clock = core clock / 1 */
    TCCR1B = (uint8_t)((1u << WGM12) | (1u << CS10));
    TIMSK1 = (uint8_t)(1u << OCIE1A);
    lab_t1_use = LAB_T1_TIMER;
    SREG = sreg;
    return 0;
}

void lab_target_timer_stop(void)
{
    uint8_t sreg = SREG;
    cli();
    if (lab_t1_use == LAB_T1_TIMER) {
        lab_t1_stop();
    }
    SREG = sreg;
}

/* Timer 1's compare-match A interrupt serves the kernel tick and the benchmark timer (one
 * counter, one use at a time). A port that takes the tick defines SysTick_Handler as a
 * complete interrupt handler (it may save and switch a task context and ends with RETI);
 * the vector jumps straight to it. Without a port's, this default serves the benchmark
 * timer: the flag clears as the vector is taken, then the benchmark's handler runs. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmisspelled-isr" /* a handler by name, reached by a jump */
void SysTick_Handler(void) __attribute__((weak, signal));
void SysTick_Handler(void)
{
    lab_irq_handler_t h = lab_timer_handler;
    if (lab_t1_use == LAB_T1_TIMER && h != 0) {
        h();
    }
}
#pragma GCC diagnostic pop

ISR(TIMER1_COMPA_vect, ISR_NAKED) { __asm__ volatile("jmp SysTick_Handler"); }

int lab_target_tick_start(uint32_t hz)
{
    if (hz == 0u || lab_t1_use == LAB_T1_TIMER) {
        return -1;
    }
    uint32_t period = LAB_TARGET_CLOCK_HZ / hz;
    uint32_t counts = lab_t1_counts(period);
    if (period == 0u || counts == 0u || counts > LAB_BOARD_T1_MAX_PERIOD) {
        return -1;
    }
    lab_t1_stop();
    TCNT1 = 0u;
    OCR1A = (uint16_t)(counts - 1u);
    TCCR1A = 0u;
    /* WGM12 = 1 (CTC, TOP = OCR1A), clock = core clock / 1 */
    TCCR1B = (uint8_t)((1u << WGM12) | (1u << CS10));
    TIMSK1 = (uint8_t)(1u << OCIE1A);
    lab_t1_use = LAB_T1_TICK;
    return 0;
}

/* One core. */
uint32_t lab_target_core_id(void) { return 0u; }

int lab_target_core_start(uint32_t core, void (*entry)(void *arg), void *arg, uint32_t *stack_top)
{
    (void)core;
    (void)entry;
    (void)arg;
    (void)stack_top;
    return -1;
}

int lab_target_doorbell_install(lab_irq_handler_t handler, uint32_t priority)
{
    (void)handler;
    (void)priority;
    return -1;
}

void lab_target_doorbell_ring(uint32_t core) { (void)core; }
