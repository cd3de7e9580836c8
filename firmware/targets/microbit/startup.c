/*
 * microbit (nRF51822, Cortex-M0) startup: vector table in flash, reset handler, a RAM copy
 * of the vector table (so device interrupt handlers can be installed at run time), the
 * fault handler (it captures the registers; the harness prints the report, lab/fault.h).
 * ARMv6-M code only (no Thumb-2 instructions).
 */
#include <stdint.h>
#include <string.h>

#include "lab/exit.h"
#include "lab/fault.h"
#include "lab/target.h"
#include "nrf51.h"

extern uint32_t __lab_data_start, __lab_data_end, __lab_data_load;
extern uint32_t __lab_bss_start, __lab_bss_end;
extern uint32_t __lab_main_stack_top;

int main(void);
void Reset_Handler(void);
void lab_target_default_handler(void);

/* Kernel ports connect to these by defining them; until then they report a fault. */
void NMI_Handler(void) __attribute__((weak, alias("lab_target_default_handler")));
void HardFault_Handler(void) __attribute__((alias("lab_target_default_handler")));
void SVC_Handler(void) __attribute__((weak, alias("lab_target_default_handler")));
void PendSV_Handler(void) __attribute__((weak, alias("lab_target_default_handler")));
void SysTick_Handler(void) __attribute__((weak, alias("lab_target_default_handler")));

typedef void (*lab_vector_t)(void);

__attribute__((section(".vectors"), used)) static const lab_vector_t lab_flash_vectors[NRF_VECTOR_COUNT] = {
    (lab_vector_t)(uintptr_t)&__lab_main_stack_top,
    Reset_Handler,
    NMI_Handler,
    HardFault_Handler,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    SVC_Handler,
    0,
    0,
    PendSV_Handler,
    SysTick_Handler,
    /* device IRQs: filled with the default handler by the RAM copy */
};

/* The live vector table: VTOR points here after lab_target_init(). The Cortex-M0 of the
 * nRF51 has no VTOR (ARMv6-M makes it optional); QEMU's Cortex-M0 model implements it, and
 * this emulator target relies on that (README.md, "QEMU quirks"). */
__attribute__((section(".ram_vectors"), aligned(256))) lab_vector_t lab_ram_vectors[NRF_VECTOR_COUNT];

void Reset_Handler(void)
{
    uint32_t *src = &__lab_data_load;
    for (uint32_t *dst = &__lab_data_start; dst < &__lab_data_end;) {
        *dst++ = *src++;
    }
    for (uint32_t *dst = &__lab_bss_start; dst < &__lab_bss_end;) {
        *dst++ = 0u;
    }
    (void)main();
    lab_target_exit(LAB_EXIT_OK);
}

void lab_target_vectors_init(void)
{
    /* Entry 0 is the initial stack pointer: kernels read it back through VTOR to reset MSP. */
    lab_ram_vectors[0] = lab_flash_vectors[0];
    for (uint32_t i = 1; i < NRF_VECTOR_COUNT; i++) {
        lab_vector_t v = i < 16u ? lab_flash_vectors[i] : 0;
        lab_ram_vectors[i] = v != 0 ? v : lab_target_default_handler;
    }
    __asm__ volatile("dsb" ::: "memory");
    SCB_VTOR = (uint32_t)(uintptr_t)lab_ram_vectors;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
}

/* Collect what the core tells about the fault and hand it to the harness, which prints it
 * and stops (lab/fault.h). ARMv6-M has no fault status or address registers: those fields
 * are 0. `frame` is the exception stack frame (r0-r3, r12, lr, pc, xpsr) or 0. Never
 * returns. */
__attribute__((used, noreturn)) void lab_target_fault_capture(const uint32_t *frame, uint32_t exc_return)
{
    struct lab_fault fault;
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    fault.exception = ipsr & 0x3Fu;
    fault.frame = frame;
    fault.exc_return = exc_return;
    fault.cfsr = 0u;
    fault.hfsr = 0u;
    fault.mmfar = 0u;
    fault.bfar = 0u;
    lab_fault_report(&fault);
}

/* Every exception nobody else handles (HardFault, unclaimed system exceptions and device
 * interrupts): find the stacked frame (MSP or PSP, from EXC_RETURN bit 2) and report.
 * ARMv6-M: no IT blocks, tst takes registers only. */
__attribute__((naked)) void lab_target_default_handler(void)
{
    __asm__ volatile("movs r0, #4\n\t"
                     "mov r1, lr\n\t"
                     "tst r0, r1\n\t"
                     "bne 1f\n\t"
                     "mrs r0, msp\n\t"
                     "b 2f\n"
                     "1:\n\t"
                     "mrs r0, psp\n"
                     "2:\n\t"
                     "ldr r2, =lab_target_fault_capture\n\t"
                     "bx r2\n\t"
                     ".ltorg\n\t");
}
