/*
 * Cortex-M startup shared by every target: vector table in flash, reset handler, a RAM copy
 * of the vector table (so device interrupt handlers can be installed at run time), the
 * fault handler (it captures the registers; the harness prints the report, lab/fault.h).
 * What differs by architecture is chosen by the compiler's predefined macros
 * (__ARM_ARCH_6M__, __ARM_ARCH_8M_MAIN__, __ARM_FP), never by board: the table's fault
 * entries, the FPU enable, the fault registers and the default handler's instructions.
 * The board's numbers (IRQ count) come from its lab_board.h through lab_cortex_m.h.
 */
#include <stdint.h>
#include <string.h>

#include "lab/exit.h"
#include "lab/fault.h"
#include "lab/target.h"
#include "lab_cortex_m.h"

extern uint32_t __lab_data_start, __lab_data_end, __lab_data_load;
extern uint32_t __lab_bss_start, __lab_bss_end;
extern uint32_t __lab_main_stack_top;

int main(void);
void Reset_Handler(void);

/* Kernel ports connect to these by defining them; until then they report a fault. */
void NMI_Handler(void) __attribute__((weak, alias("lab_target_default_handler")));
void HardFault_Handler(void) __attribute__((alias("lab_target_default_handler")));
#if !LAB_CM_ARMV6M
void MemManage_Handler(void) __attribute__((weak, alias("lab_target_default_handler")));
void BusFault_Handler(void) __attribute__((weak, alias("lab_target_default_handler")));
void UsageFault_Handler(void) __attribute__((weak, alias("lab_target_default_handler")));
#endif
#if defined(__ARM_ARCH_8M_MAIN__)
void SecureFault_Handler(void) __attribute__((weak, alias("lab_target_default_handler")));
#endif
void SVC_Handler(void) __attribute__((weak, alias("lab_target_default_handler")));
#if !LAB_CM_ARMV6M
void DebugMon_Handler(void) __attribute__((weak, alias("lab_target_default_handler")));
#endif
void PendSV_Handler(void) __attribute__((weak, alias("lab_target_default_handler")));
void SysTick_Handler(void) __attribute__((weak, alias("lab_target_default_handler")));

/* ARMv6-M has no MemManage, BusFault, UsageFault or DebugMonitor exception (their entries
 * are reserved: 0); only ARMv8-M Mainline has SecureFault (entry 7). */
#if LAB_CM_ARMV6M
#define LAB_CM_MEMMANAGE 0
#define LAB_CM_BUSFAULT 0
#define LAB_CM_USAGEFAULT 0
#define LAB_CM_DEBUGMON 0
#else
#define LAB_CM_MEMMANAGE MemManage_Handler
#define LAB_CM_BUSFAULT BusFault_Handler
#define LAB_CM_USAGEFAULT UsageFault_Handler
#define LAB_CM_DEBUGMON DebugMon_Handler
#endif
#if defined(__ARM_ARCH_8M_MAIN__)
#define LAB_CM_SECUREFAULT SecureFault_Handler
#else
#define LAB_CM_SECUREFAULT 0
#endif

__attribute__((section(".vectors"), used)) static const lab_vector_t lab_flash_vectors[LAB_CM_VECTOR_COUNT] = {
    (lab_vector_t)(uintptr_t)&__lab_main_stack_top,
    Reset_Handler,
    NMI_Handler,
    HardFault_Handler,
    LAB_CM_MEMMANAGE,
    LAB_CM_BUSFAULT,
    LAB_CM_USAGEFAULT,
    LAB_CM_SECUREFAULT,
    0,
    0,
    0,
    SVC_Handler,
    LAB_CM_DEBUGMON,
    0,
    PendSV_Handler,
    SysTick_Handler,
    /* device IRQs: filled with the default handler by the RAM copy */
};

/* The live vector table: VTOR points here after lab_target_init(). ARMv6-M makes VTOR
 * optional (the nRF51's Cortex-M0 has none); QEMU's Cortex-M0 model implements it, and
 * the ARMv6-M emulator targets rely on that (microbit README.md, "QEMU quirks"). */
__attribute__((section(".ram_vectors"), aligned(LAB_CM_VECTOR_ALIGN))) lab_vector_t lab_ram_vectors[LAB_CM_VECTOR_COUNT];

void Reset_Handler(void)
{
#if defined(__ARM_FP)
    /* The image is built for a hardware-FP ABI: grant full access to the FPU (CPACR
     * CP10/CP11 = 0b11; ARMv7-M ARM B3.2.20, ARMv8-M ARM D1.2 CPACR) before any code that
     * may use it. FPCCR keeps its reset value (ASPEN = LSPEN = 1: automatic, lazy FP
     * context stacking). */
    SCB_CPACR |= (0xFu << 20);
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
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
    for (uint32_t i = 1; i < LAB_CM_VECTOR_COUNT; i++) {
        lab_vector_t v = i < 16u ? lab_flash_vectors[i] : 0;
        lab_ram_vectors[i] = v != 0 ? v : lab_target_default_handler;
    }
    __asm__ volatile("dsb" ::: "memory");
    SCB_VTOR = (uint32_t)(uintptr_t)lab_ram_vectors;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
}

/* Collect what the core tells about the fault and hand it to the harness, which prints it
 * and stops (lab/fault.h). ARMv6-M has no fault status or address registers: those fields
 * are 0 there. `frame` is the exception stack frame (r0-r3, r12, lr, pc, xpsr) or 0 when
 * it could not be found. Never returns. */
__attribute__((used, noreturn)) void lab_target_fault_capture(const uint32_t *frame, uint32_t exc_return)
{
    struct lab_fault fault;
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
#if LAB_CM_ARMV6M
    fault.exception = ipsr & 0x3Fu;
#else
    fault.exception = ipsr & 0x1FFu;
#endif
    fault.frame = frame;
    fault.exc_return = exc_return;
#if LAB_CM_ARMV6M
    fault.cfsr = 0u;
    fault.hfsr = 0u;
    fault.mmfar = 0u;
    fault.bfar = 0u;
#else
    fault.cfsr = SCB_CFSR;
    fault.hfsr = SCB_HFSR;
    fault.mmfar = SCB_MMFAR;
    fault.bfar = SCB_BFAR;
#endif
    lab_fault_report(&fault);
}

/* Every exception nobody else handles (HardFault, the other faults, unclaimed system
 * exceptions and device interrupts): find the stacked frame (MSP or PSP, from EXC_RETURN
 * bit 2) and report. */
#if LAB_CM_ARMV6M
/* ARMv6-M: no IT blocks, tst takes registers only, and b reaches +-2 KiB only. */
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
#else
__attribute__((naked)) void lab_target_default_handler(void)
{
    __asm__ volatile("tst lr, #4\n\t"
                     "ite eq\n\t"
                     "mrseq r0, msp\n\t"
                     "mrsne r0, psp\n\t"
                     "mov r1, lr\n\t"
                     "b lab_target_fault_capture\n\t");
}
#endif
