/*
 * mps2-an521 startup (Cortex-M33, Secure state): vector table in flash, reset handler, a RAM copy of the vector
 * table (so device interrupt handlers can be installed at run time), the fault handler
 * (it captures the registers; the harness prints the report, lab/fault.h).
 */
#include <stdint.h>
#include <string.h>

#include "lab/exit.h"
#include "lab/fault.h"
#include "lab/target.h"
#include "mps2_an521.h"

extern uint32_t __lab_data_start, __lab_data_end, __lab_data_load;
extern uint32_t __lab_bss_start, __lab_bss_end;
extern uint32_t __lab_main_stack_top;

int main(void);
void Reset_Handler(void);
void lab_target_default_handler(void);

/* Kernel ports connect to these by defining them; until then they report a fault. */
void NMI_Handler(void) __attribute__((weak, alias("lab_target_default_handler")));
void HardFault_Handler(void) __attribute__((alias("lab_target_default_handler")));
void MemManage_Handler(void) __attribute__((weak, alias("lab_target_default_handler")));
void BusFault_Handler(void) __attribute__((weak, alias("lab_target_default_handler")));
void UsageFault_Handler(void) __attribute__((weak, alias("lab_target_default_handler")));
void SecureFault_Handler(void) __attribute__((weak, alias("lab_target_default_handler")));
void SVC_Handler(void) __attribute__((weak, alias("lab_target_default_handler")));
void DebugMon_Handler(void) __attribute__((weak, alias("lab_target_default_handler")));
void PendSV_Handler(void) __attribute__((weak, alias("lab_target_default_handler")));
void SysTick_Handler(void) __attribute__((weak, alias("lab_target_default_handler")));

typedef void (*lab_vector_t)(void);

__attribute__((section(".vectors"), used)) static const lab_vector_t lab_flash_vectors[MPS2_VECTOR_COUNT] = {
    (lab_vector_t)(uintptr_t)&__lab_main_stack_top,
    Reset_Handler,
    NMI_Handler,
    HardFault_Handler,
    MemManage_Handler,
    BusFault_Handler,
    UsageFault_Handler,
    SecureFault_Handler,
    0,
    0,
    0,
    SVC_Handler,
    DebugMon_Handler,
    0,
    PendSV_Handler,
    SysTick_Handler,
    /* device IRQs: filled with the default handler by the RAM copy */
};

/* The live vector table: VTOR points here after lab_target_init(). */
__attribute__((section(".ram_vectors"), aligned(512))) lab_vector_t lab_ram_vectors[MPS2_VECTOR_COUNT];

void Reset_Handler(void)
{
    /* The image is built for the hard-float ABI: grant full access to the FPU (CPACR
     * CP10/CP11 = 0b11, ARMv8-M ARM D1.2.x CPACR) before any code that may use it. FPCCR
     * keeps its reset value (ASPEN = LSPEN = 1: automatic, lazy FP context stacking). */
    SCB_CPACR |= (0xFu << 20);
    __asm__ volatile("dsb\n\tisb" ::: "memory");
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
    for (uint32_t i = 1; i < MPS2_VECTOR_COUNT; i++) {
        lab_vector_t v = i < 16u ? lab_flash_vectors[i] : 0;
        lab_ram_vectors[i] = v != 0 ? v : lab_target_default_handler;
    }
    __asm__ volatile("dsb" ::: "memory");
    SCB_VTOR = (uint32_t)(uintptr_t)lab_ram_vectors;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
}

/* Collect what the core tells about the fault and hand it to the harness, which prints it
 * and stops (lab/fault.h). `frame` is the exception stack frame (r0-r3, r12, lr, pc, xpsr)
 * or 0 when it could not be found. Never returns. */
__attribute__((used, noreturn)) void lab_target_fault_capture(const uint32_t *frame, uint32_t exc_return)
{
    struct lab_fault fault;
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    fault.exception = ipsr & 0x1FFu;
    fault.frame = frame;
    fault.exc_return = exc_return;
    fault.cfsr = SCB_CFSR;
    fault.hfsr = SCB_HFSR;
    fault.mmfar = SCB_MMFAR;
    fault.bfar = SCB_BFAR;
    lab_fault_report(&fault);
}

/* Every exception nobody else handles (HardFault, the other faults, unclaimed system
 * exceptions and device interrupts): find the stacked frame (MSP or PSP, from EXC_RETURN
 * bit 2) and report. */
__attribute__((naked)) void lab_target_default_handler(void)
{
    __asm__ volatile("tst lr, #4\n\t"
                     "ite eq\n\t"
                     "mrseq r0, msp\n\t"
                     "mrsne r0, psp\n\t"
                     "mov r1, lr\n\t"
                     "b lab_target_fault_capture\n\t");
}
