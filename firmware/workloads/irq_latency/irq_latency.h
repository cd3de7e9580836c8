/*
 * The interrupt-latency measurement shared by k_irq_latency and k_irq_latency_loaded: the
 * trigger (the target's benchmark timer, lab_target_timer_start, every IRQ_TIMER_PERIOD
 * target clock cycles) and the measured handler. Each benchmark declares its own metric
 * on probes 2 -> 3, installs the handlers and starts the timer (k_irq_latency.c says how):
 *
 *   probe 2  in the timer handler, just before lab_target_irq_trigger(irq_line)
 *   probe 3  the first statement of the measured handler
 *
 * Both handlers and their state are static and defined in this header on purpose: each
 * benchmark compiles them inside its own translation unit, exactly as if written there, so
 * the code around the probes (and the code that starts the timer, whose timing against the
 * kernel tick decides where triggers land) is the same as each benchmark's own would be.
 * Include it from one source file of a benchmark only.
 *
 * Guarantees: a trigger is raised only when the previous one was handled (else it is
 * counted in irq_skipped), at most IRQ_SAMPLES times; irq_handled counts the measured
 * handler's runs.
 */
#ifndef IRQ_LATENCY_H
#define IRQ_LATENCY_H

#include <stdint.h>

#include "lab/log.h"
#include "lab/probe.h"
#include "lab/target.h"

#define IRQ_SAMPLES 2000u
/* 499 cycles (19.96 us at 25 MHz): not a divisor of a 1 kHz tick's period at any of the
 * targets' clocks, so the triggers drift across the tick instead of always landing at the
 * same phase. */
#define IRQ_TIMER_PERIOD 499u

static uint32_t irq_line; /* the measured line: lab_target_irq_soft(0), set by the benchmark */
static volatile uint32_t irq_triggered;
static volatile uint32_t irq_handled;
static volatile uint32_t irq_skipped;

static void irq_measured_handler(void)
{
    LAB_PROBE(3);
    LAB_LOG("irq %lu\n", irq_handled); /* after the probe: LAB_LOG_MODE=0: no code */
    irq_handled = irq_handled + 1u;
}

static void irq_timer_handler(void)
{
    if (irq_triggered >= IRQ_SAMPLES) {
        return;
    }
    if (irq_handled != irq_triggered) {
        /* The previous one is still masked (a critical section longer than the timer
         * period): skip this trigger rather than open a second interval. */
        irq_skipped = irq_skipped + 1u;
        return;
    }
    irq_triggered = irq_triggered + 1u;
    LAB_PROBE(2);
    lab_target_irq_trigger(irq_line);
}

#endif /* IRQ_LATENCY_H */
