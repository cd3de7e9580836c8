/*
 * rtic port, C side: lab_port_init (every port has it) and critical sections for C
 * workload code linked into Rust images. The model is Rust: each
 * benchmark's RTIC app (bench/<b>/rust/rtic/) and the device crate
 * firmware/rust/lab-rtic-device (docs/rust-models.md).
 */
#include <stdint.h>

#include "lab/port.h"

/* Nothing to prepare: each RTIC app sets up its interrupts in its own init. */
void lab_port_init(void) {}

/* Critical sections (LAB_HAS_CRITICAL) for C code linked into a Rust image (the shared
 * workloads' bookkeeping): PRIMASK, as RTIC's interrupt::free critical sections are, so
 * nothing runs inside one. Nestable: the outermost exit restores the saved PRIMASK. */
static uint32_t lab_rtic_nesting;
static uint32_t lab_rtic_saved_primask;

static inline uint32_t lab_rtic_primask_disable(void)
{
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n\t"
                     "cpsid i"
                     : "=r"(primask)
                     :
                     : "memory");
    return primask;
}

static inline void lab_rtic_primask_restore(uint32_t primask)
{
    __asm__ volatile("msr primask, %0" : : "r"(primask) : "memory");
}

void lab_critical_enter(void)
{
    uint32_t primask = lab_rtic_primask_disable();
    if (lab_rtic_nesting == 0u) {
        lab_rtic_saved_primask = primask;
    }
    lab_rtic_nesting++;
}

void lab_critical_exit(void)
{
    lab_rtic_nesting--;
    if (lab_rtic_nesting == 0u) {
        lab_rtic_primask_restore(lab_rtic_saved_primask);
    }
}

uint32_t lab_critical_enter_from_isr(void) { return lab_rtic_primask_disable(); }

void lab_critical_exit_from_isr(uint32_t saved) { lab_rtic_primask_restore(saved); }
