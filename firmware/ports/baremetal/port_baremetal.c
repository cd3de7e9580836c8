/*
 * Bare-metal implementation of the parts of lab/port.h that make sense without a kernel:
 * critical sections (PRIMASK) and interrupt plumbing. It gives kernel numbers their
 * baseline: the same benchmark on this port shows what the hardware and the harness cost
 * with no kernel in the way.
 */
#include <stdbool.h>
#include <stdint.h>

#include "lab/port.h"

/* Critical-section nesting of main-line code and the PRIMASK it found on entry. */
static uint32_t lab_bm_nesting;
static uint32_t lab_bm_saved_primask;

static inline uint32_t lab_bm_primask_disable(void)
{
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n\t"
                     "cpsid i"
                     : "=r"(primask)
                     :
                     : "memory");
    return primask;
}

static inline void lab_bm_primask_restore(uint32_t primask)
{
    __asm__ volatile("msr primask, %0" : : "r"(primask) : "memory");
}

void lab_port_init(void) {}

void lab_critical_enter(void)
{
    uint32_t primask = lab_bm_primask_disable();
    if (lab_bm_nesting == 0u) {
        lab_bm_saved_primask = primask;
    }
    lab_bm_nesting++;
}

void lab_critical_exit(void)
{
    lab_bm_nesting--;
    if (lab_bm_nesting == 0u) {
        lab_bm_primask_restore(lab_bm_saved_primask);
    }
}

uint32_t lab_critical_enter_from_isr(void) { return lab_bm_primask_disable(); }

void lab_critical_exit_from_isr(uint32_t saved) { lab_bm_primask_restore(saved); }

/* No kernel masks anything by priority: "kernel" handlers get a middle level so that a
 * more urgent level (0) exists above them, as on a kernel port. */
uint32_t lab_port_irq_prio_kernel(void) { return 0x80u; }

uint32_t lab_port_irq_prio_unmanaged(void) { return 0x00u; }

void lab_port_isr_enter(void) {}

/* There are no tasks to switch to: nothing to request. */
void lab_port_isr_exit(bool woken) { (void)woken; }
