/*
 * embassy port, C side: lab_port_init only (every port has it). The model itself (the
 * executors, the SysTick time driver, SysTick_Handler) is Rust, in firmware/rust/lab-embassy,
 * linked into each benchmark's Rust staticlib (docs/rust-models.md).
 */
#include "lab/port.h"

/* Nothing to prepare: each Rust benchmark sets up its executors itself. */
void lab_port_init(void) {}
