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
 * nothing runs inside one; nestable (lab/port_critical_primask.h defines them). */
#include "lab/port_critical_primask.h"
