/* The SSE-200's two cores (mps2-an521) for the shared several-core code
 * (firmware/arch/cortex-m/lab_cortex_m_cores.h): the core-identity register, the release
 * of core 1 from reset and the inter-core doorbell. Included by the target's lab_board.h;
 * static inline, so an image that uses none of it has none of it. Private to the MPS2
 * targets with an SSE-200.
 *
 * Sources (QEMU 10.0, which the firmware runs on; the Arm CoreLink SSE-200 TRM, DDI 0587,
 * documents the same blocks):
 * - CPU_IDENTITY (QEMU hw/misc/armsse-cpuid.c, mapped per CPU by hw/arm/armsse.c at
 *   0x4001F000 in each CPU's own address space, and at 0x5001F000 through the Secure alias
 *   of 0x4xxxxxxx): register CPUID at offset 0 reads the CPU's index, 0 or 1.
 * - System control element (QEMU hw/misc/iotkit-sysctl.c, at 0x50021000, Secure only):
 *   INITSVTOR0/1 at 0x110/0x114 hold each CPU's initial Secure VTOR, taken when the CPU
 *   resets; CPUWAIT at 0x118 (reset value 2: CPU 1 waits): clearing bit n powers CPU n on
 *   and resets it (arm_set_cpu_on_and_reset).
 * - Message handling units (QEMU hw/misc/armsse-mhu.c; hw/arm/armsse.c maps MHU0 at
 *   0x40003000 and MHU1 at 0x40004000 behind APB PPC0, Secure aliases 0x50003000 and
 *   0x50004000): CPU0INTR_STAT/SET/CLR at 0x00/0x04/0x08, CPU1INTR_STAT/SET/CLR at
 *   0x10/0x14/0x18, four request bits each; the unit's interrupt output n is high while
 *   CPUnINTR_STAT is non-zero (a level). MHU0's output 0 is CPU 0's IRQ 6, output 1 CPU
 *   1's IRQ 6 (MHU1: IRQ 7 of each). The doorbell is MHU0, request bit 0: ringing core n
 *   sets bit 0 in CPUnINTR_SET, core n's handler clears it through CPUnINTR_CLR.
 *   The PPC keeps its reset state, which admits Secure accesses (as for timer 0). */
#ifndef LAB_MPS2_SSE200_CORES_H
#define LAB_MPS2_SSE200_CORES_H

#include <stdint.h>

#define SSE200_CPUID_ADDR 0x5001F000u
#define SSE200_SYSCTL_BASE 0x50021000u
#define SSE200_INITSVTOR(n) (SSE200_SYSCTL_BASE + 0x110u + 4u * (n))
#define SSE200_CPUWAIT (SSE200_SYSCTL_BASE + 0x118u)
#define SSE200_MHU0_BASE 0x50003000u
/* CPUnINTR_SET / CPUnINTR_CLR of MHU0 for core n (n = 0, 1). */
#define SSE200_MHU0_SET(n) (SSE200_MHU0_BASE + 0x04u + 0x10u * (n))
#define SSE200_MHU0_CLR(n) (SSE200_MHU0_BASE + 0x08u + 0x10u * (n))

#define SSE200_REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

/* The doorbell's device line on each core: MHU0. */
#define LAB_BOARD_DOORBELL_IRQ 6u

static inline uint32_t lab_board_core_id(void) { return SSE200_REG(SSE200_CPUID_ADDR); }

static inline int lab_board_core_release(uint32_t core, uint32_t vtor)
{
    if (core != 1u) {
        return -1;
    }
    SSE200_REG(SSE200_INITSVTOR(core)) = vtor;
    __asm__ volatile("dsb" ::: "memory");
    SSE200_REG(SSE200_CPUWAIT) = SSE200_REG(SSE200_CPUWAIT) & ~(1u << core);
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    return 0;
}

static inline void lab_board_doorbell_raise(uint32_t core) { SSE200_REG(SSE200_MHU0_SET(core)) = 1u; }

static inline void lab_board_doorbell_ack(uint32_t core) { SSE200_REG(SSE200_MHU0_CLR(core)) = 1u; }

#endif /* LAB_MPS2_SSE200_CORES_H */
