/*
 * Bare-metal implementation of the parts of lab/port.h that make sense without a kernel:
 * critical sections (PRIMASK) and interrupt plumbing. It gives kernel numbers their
 * baseline: the same benchmark on this port shows what the hardware and the harness cost
 * with no kernel in the way.
 */
#include <stdbool.h>
#include <stdint.h>

#include "lab/port.h"

void lab_port_init(void) {}

/* Critical sections: PRIMASK, nestable (lab/port_critical_primask.h defines them; included
 * here, after lab_port_init, so that the functions keep their place in the image). */
#include "lab/port_critical_primask.h"

/* No kernel masks anything by priority: "kernel" handlers get a middle level so that a
 * more urgent level (0) exists above them, as on a kernel port. */
uint32_t lab_port_irq_prio_kernel(void) { return 0x80u; }

uint32_t lab_port_irq_prio_unmanaged(void) { return 0x00u; }

void lab_port_isr_enter(void) {}

/* There are no tasks to switch to: nothing to request. */
void lab_port_isr_exit(bool woken) { (void)woken; }
