/* The Cortex-M architecture as the shared target code uses it: system control block and
 * NVIC registers, the vector table's size and alignment, and the entry points shared
 * between startup.c and lab_cortex_m_target.h. Private to targets (kernel ports never include
 * it; they reach exceptions through the CMSIS handler names only).
 *
 * The register forms follow the architecture the compiler targets (__ARM_ARCH_6M__ or
 * not), never a list of boards. Addresses: ARMv7-M ARM (DDI 0403E) B3.2 (SCB) and B3.4
 * (NVIC), ARMv6-M ARM (DDI 0419) B3.2 and B3.4, ARMv8-M ARM (DDI 0553) D1.2.
 *
 * Needs the board's lab_board.h first: LAB_BOARD_IRQ_COUNT (device interrupt lines the
 * vector table holds). The highest line with no device, for lab_target_irq_soft(), is
 * LAB_TARGET_IRQ_SOFT_TOP, from target.toml's irq_soft_top (passed by rtoslab). */
#ifndef LAB_CORTEX_M_H
#define LAB_CORTEX_M_H

#include <stdint.h>

#include "lab_board.h"

#if !defined(LAB_BOARD_IRQ_COUNT)
#error "the target's lab_board.h must define LAB_BOARD_IRQ_COUNT"
#endif
#if !defined(LAB_TARGET_IRQ_SOFT_TOP)
#error "LAB_TARGET_IRQ_SOFT_TOP is not set: rtoslab passes it from target.toml irq_soft_top"
#endif
#if !defined(LAB_TARGET_CLOCK_HZ)
#error "LAB_TARGET_CLOCK_HZ must be set by the build (target.toml clock_hz)"
#endif

#if defined(__ARM_ARCH_6M__)
#define LAB_CM_ARMV6M 1
#else
#define LAB_CM_ARMV6M 0
#endif

#define LAB_CM_REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

/* A bounded wait, as a board's clock setup needs one: read *reg until (*reg & mask) ==
 * want, at most `polls` times. 1 when it got there, 0 when the polls ran out (the caller
 * then leaves its clock as it is and records that, instead of hanging). */
static inline int lab_cm_wait(volatile uint32_t *reg, uint32_t mask, uint32_t want, uint32_t polls)
{
    for (uint32_t n = 0; n < polls; n++) {
        if ((*reg & mask) == want) {
            return 1;
        }
    }
    return 0;
}

#if !defined(LAB_PROBE_MODE_BUFFER)
#error "LAB_PROBE_MODE_BUFFER is not set: rtoslab passes it from target.toml [probe] mode"
#endif
#if LAB_PROBE_MODE_BUFFER
/* The RAM console of buffer mode (docs/boards.md, "Console"): a board run has no UART the
 * host can read, so the console also goes to this buffer, which the GDB runner reads after
 * the run. `written` counts every byte ever written; the last `size` of them are in
 * `data` (data[i % size]), so the end of the output (LAB-DONE) always survives and the
 * host names how many bytes were lost before it. A target's lab_target_console_write
 * calls lab_cm_console_ram_write first. Layout shared with the host
 * (src/rtoslab/runners/probe_buffer.py): magic, size, written, data. */
#if !defined(LAB_CONSOLE_RAM_BYTES)
#error "LAB_CONSOLE_RAM_BYTES is not set: rtoslab passes it from target.toml [probe] console"
#endif
#define LAB_CONSOLE_RAM_MAGIC 0x434E4F43u /* "CONC" */
struct lab_console_ram {
    uint32_t magic;
    uint32_t size;
    uint32_t written;
    char data[LAB_CONSOLE_RAM_BYTES];
};
extern struct lab_console_ram lab_console_ram;

static inline void lab_cm_console_ram_write(const char *buf, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++) {
        lab_console_ram.data[lab_console_ram.written % LAB_CONSOLE_RAM_BYTES] = buf[i];
        lab_console_ram.written++;
    }
}
#else
static inline void lab_cm_console_ram_write(const char *buf, uint32_t len)
{
    (void)buf;
    (void)len;
}
#endif
#define LAB_CM_REG8(addr) (*(volatile uint8_t *)(uintptr_t)(addr))

/* 16 system exception entries, then one per device interrupt line. */
#define LAB_CM_VECTOR_COUNT (16u + LAB_BOARD_IRQ_COUNT)
/* VTOR needs the table aligned to its size rounded up to a power of two, at least 128
 * bytes (ARMv7-M ARM B3.2.5; ARMv8-M likewise): bytes. */
#define LAB_CM_VECTOR_ALIGN                                                             \
    (LAB_CM_VECTOR_COUNT <= 32u    ? 128                                                \
     : LAB_CM_VECTOR_COUNT <= 64u  ? 256                                                \
     : LAB_CM_VECTOR_COUNT <= 128u ? 512                                                \
                                   : 1024)

/* System control block */
#define SCB_VTOR LAB_CM_REG(0xE000ED08u)
#if !LAB_CM_ARMV6M
#define SCB_CFSR LAB_CM_REG(0xE000ED28u)
#define SCB_HFSR LAB_CM_REG(0xE000ED2Cu)
#define SCB_MMFAR LAB_CM_REG(0xE000ED34u)
#define SCB_BFAR LAB_CM_REG(0xE000ED38u)
#define SCB_CPACR LAB_CM_REG(0xE000ED88u)
#endif

/* NVIC */
#if LAB_CM_ARMV6M
/* ARMv6-M: at most 32 lines, one register each; no STIR (software sets a line pending
 * through ISPR); the priority registers are word access only, four lines each. */
#define NVIC_ISER LAB_CM_REG(0xE000E100u)
#define NVIC_ICER LAB_CM_REG(0xE000E180u)
#define NVIC_ISPR LAB_CM_REG(0xE000E200u)
#define NVIC_ICPR LAB_CM_REG(0xE000E280u)
#define NVIC_IPR(n) LAB_CM_REG(0xE000E400u + 4u * (n))
#else
#define NVIC_ISER(n) LAB_CM_REG(0xE000E100u + 4u * (n))
#define NVIC_ICER(n) LAB_CM_REG(0xE000E180u + 4u * (n))
#define NVIC_ICPR(n) LAB_CM_REG(0xE000E280u + 4u * (n))
#define NVIC_IPR(irq) LAB_CM_REG8(0xE000E400u + (irq))
#define NVIC_STIR LAB_CM_REG(0xE000EF00u)
#endif

typedef void (*lab_vector_t)(void);

/* The live (RAM) vector table, LAB_CM_VECTOR_COUNT entries (startup.c). */
extern lab_vector_t lab_ram_vectors[LAB_CM_VECTOR_COUNT];

/* Copy the flash vector table to RAM (unclaimed entries: the default handler) and point
 * VTOR at the copy. Call first in lab_target_init(). */
void lab_target_vectors_init(void);
/* The handler of every exception nobody claimed: reports a fault, never returns. */
void lab_target_default_handler(void);

#endif /* LAB_CORTEX_M_H */
