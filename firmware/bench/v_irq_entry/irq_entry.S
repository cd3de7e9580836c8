/* Exception entry between probes (v_irq_entry.c): the same one-word store twice, first
 * into RAM (the baseline), then into the NVIC's Interrupt Set-Pending Register, which
 * pends an enabled interrupt of higher priority than the running code: the processor
 * takes it after that store, and the handler's first instruction is a probe.
 *
 * void lab_v_irq_entry(volatile uint32_t *ispr, uint32_t bit, uint32_t *scratch):
 *   probe 2; STR bit -> *scratch; probe 3   (irq_base)
 *   probe 4; STR bit -> *ispr; [exception entry] handler: probe 5   (irq_entry)
 * Guarantee: r12 clobbered (the probes), nothing else; returns after the handler.
 * void lab_v_irq_entry_handler(void): probe 5, then counts its runs in
 * lab_v_irq_entry_count (uses r0, r1: caller-saved, stacked by the exception entry).
 * Only 16-bit instructions besides the probes: the same code on ARMv6-M and ARMv7-M
 * (the STIR variant below needs ARMv7-M's STIR). */
#include "lab_probe_impl.h"

    .syntax unified
    .thumb
    .text

    .global lab_v_irq_entry
    .type lab_v_irq_entry, %function
    .thumb_func
    .balign 4
lab_v_irq_entry:
    lab_probe 2
    str r1, [r2]
    lab_probe 3
    lab_probe 4
    str r1, [r0]
    nop
    nop
    bx lr
    .size lab_v_irq_entry, . - lab_v_irq_entry

    .global lab_v_irq_entry_handler
    .type lab_v_irq_entry_handler, %function
    .thumb_func
    .balign 4
lab_v_irq_entry_handler:
    lab_probe 5
    ldr r0, =lab_v_irq_entry_count
    ldr r1, [r0]
    adds r1, r1, #1
    str r1, [r0]
    bx lr
    .size lab_v_irq_entry_handler, . - lab_v_irq_entry_handler

/* void lab_v_irq_entry_stir(volatile uint32_t *stir, uint32_t irq), ARMv7-M only (STIR
 * does not exist on ARMv6-M):
 *   probe 6; STR irq -> *stir (Software Trigger Interrupt Register); [exception entry]
 *   handler lab_v_irq_entry_stir_handler: probe 7   (irq_entry_stir)
 * Guarantee: r12 clobbered (the probes), nothing else; returns after the handler. */
    .global lab_v_irq_entry_stir
    .type lab_v_irq_entry_stir, %function
    .thumb_func
    .balign 4
lab_v_irq_entry_stir:
    lab_probe 6
    str r1, [r0]
    nop
    nop
    bx lr
    .size lab_v_irq_entry_stir, . - lab_v_irq_entry_stir

    .global lab_v_irq_entry_stir_handler
    .type lab_v_irq_entry_stir_handler, %function
    .thumb_func
    .balign 4
lab_v_irq_entry_stir_handler:
    lab_probe 7
    ldr r0, =lab_v_irq_entry_count
    ldr r1, [r0]
    adds r1, r1, #1
    str r1, [r0]
    bx lr
    .size lab_v_irq_entry_stir_handler, . - lab_v_irq_entry_stir_handler
    .ltorg
