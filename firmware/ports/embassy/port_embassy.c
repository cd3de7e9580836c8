/*
 * embassy port, C side: lab_port_init (every port has it) and critical sections for C
 * workload code linked into Rust images. The model itself (the
 * executors) is Rust, in firmware/rust/lab-embassy,
 * linked into each benchmark's Rust staticlib (docs/rust-models.md).
 */
#include <stdint.h>

#include "lab/port.h"

/* Nothing to prepare: each Rust benchmark sets up its executors itself. */
void lab_port_init(void) {}

/* Critical sections (LAB_HAS_CRITICAL) for C code linked into a Rust image (the shared
 * workloads' bookkeeping): PRIMASK, as embassy-sync's (cortex-m's critical-section-single-core) critical sections are, so
 * nothing runs inside one. Nestable: the outermost exit restores the saved PRIMASK. */
static uint32_t lab_embassy_nesting;
static uint32_t lab_embassy_saved_primask;

static inline uint32_t lab_embassy_primask_disable(void)
{
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n\t"
                     "cpsid i"
                     : "=r"(primask)
                     :
                     : "memory");
    return primask;
}

static inline void lab_embassy_primask_restore(uint32_t primask)
{
    __asm__ volatile("msr primask, %0" : : "r"(primask) : "memory");
}

void lab_critical_enter(void)
{
    uint32_t primask = lab_embassy_primask_disable();
    if (lab_embassy_nesting == 0u) {
        lab_embassy_saved_primask = primask;
    }
    lab_embassy_nesting++;
}

void lab_critical_exit(void)
{
    lab_embassy_nesting--;
    if (lab_embassy_nesting == 0u) {
        lab_embassy_primask_restore(lab_embassy_saved_primask);
    }
}

uint32_t lab_critical_enter_from_isr(void) { return lab_embassy_primask_disable(); }

void lab_critical_exit_from_isr(uint32_t saved) { lab_embassy_primask_restore(saved); }
