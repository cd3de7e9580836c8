/*
 * rtic port, C side: lab_port_init only (every port has it). The model is Rust: each
 * benchmark's RTIC app (bench/<b>/rust/rtic/) and the device crate
 * firmware/rust/lab-rtic-device (docs/rust-models.md).
 */
#include "lab/port.h"

/* Nothing to prepare: each RTIC app sets up its interrupts in its own init. */
void lab_port_init(void) {}
