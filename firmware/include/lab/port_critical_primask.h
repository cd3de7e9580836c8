/*
 * lab/port_critical_primask.h - lab/port.h's critical sections (LAB_HAS_CRITICAL) by
 * PRIMASK, for ports whose kernel (if any) masks every interrupt in its own critical
 * sections: bare metal, the cooperative kernel coop (its own short locks too), and the
 * Rust models (RTIC's interrupt::free, embassy-sync's cortex-m single-core critical
 * sections), whose C side serves the shared workloads' bookkeeping. Inside one nothing runs, not even an unmanaged (level 0) interrupt.
 *
 * It DEFINES lab_critical_enter / lab_critical_exit (nestable: the outermost exit
 * restores the PRIMASK found on the outermost entry) and lab_critical_enter_from_isr /
 * lab_critical_exit_from_isr (return / restore PRIMASK as it was). Include it in exactly
 * one C file of the port, after lab/port.h; that port's lab_port_caps.h has
 * LAB_HAS_CRITICAL 1. Costs: enter = MRS + CPSID + the nesting count, exit = the count +
 * MSR on the outermost exit.
 */
#ifndef LAB_PORT_CRITICAL_PRIMASK_H
#define LAB_PORT_CRITICAL_PRIMASK_H

#include <stdint.h>

#include "lab/port.h"

/* Critical-section nesting of main-line (task) code and the PRIMASK it found on entry. */
static uint32_t lab_primask_nesting;
static uint32_t lab_primask_saved;

/* Read PRIMASK, then mask every configurable interrupt; returns the value read. */
#if defined(__AVR__)
/* AVR: the global interrupt enable is SREG's I bit (I/O address 0x3F). */
static inline uint32_t lab_primask_disable(void)
{
    uint8_t sreg;
    __asm__ volatile("in %0, 0x3f\n\t"
                     "cli"
                     : "=r"(sreg)
                     :
                     : "memory");
    return sreg;
}

static inline void lab_primask_restore(uint32_t primask)
{
    __asm__ volatile("out 0x3f, %0" : : "r"((uint8_t)primask) : "memory");
}
#else
static inline uint32_t lab_primask_disable(void)
{
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n\t"
                     "cpsid i"
                     : "=r"(primask)
                     :
                     : "memory");
    return primask;
}

/* Write PRIMASK back to a value lab_primask_disable returned. */
static inline void lab_primask_restore(uint32_t primask)
{
    __asm__ volatile("msr primask, %0" : : "r"(primask) : "memory");
}
#endif

void lab_critical_enter(void)
{
    uint32_t primask = lab_primask_disable();
    if (lab_primask_nesting == 0u) {
        lab_primask_saved = primask;
    }
    lab_primask_nesting++;
}

void lab_critical_exit(void)
{
    lab_primask_nesting--;
    if (lab_primask_nesting == 0u) {
        lab_primask_restore(lab_primask_saved);
    }
}

uint32_t lab_critical_enter_from_isr(void) { return lab_primask_disable(); }

void lab_critical_exit_from_isr(uint32_t saved) { lab_primask_restore(saved); }

#endif /* LAB_PORT_CRITICAL_PRIMASK_H */
