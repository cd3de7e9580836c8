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
 * nothing runs inside one; nestable (lab/port_critical_primask.h defines them). */
#include "lab/port_critical_primask.h"
