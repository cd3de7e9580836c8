/*
 * The "cores" part of lab/target.h and lab_target_tick_start(), the same on every
 * Cortex-M target (function definitions: included once per image, by
 * lab_cortex_m_target.h, inside the board's target.c).
 *
 * What is built is chosen by LAB_TARGET_CORES (target.toml `cores`), never by a board
 * list:
 * - one core: the documented single-core behaviour (core id 0, no core to start, no
 *   doorbell);
 * - several cores: the core-1 boot path and the doorbell dispatch here, on top of the
 *   board's hooks, which the board's lab_board.h provides as static inline functions:
 *     uint32_t lab_board_core_id(void)             the calling core's index (a device
 *                                                  load of the board's identity register)
 *     int lab_board_core_release(uint32_t core, uint32_t vtor)
 *                                                  let `core` leave reset with its
 *                                                  initial vector table at `vtor`
 *                                                  (128-byte aligned): 0, or -1
 *     void lab_board_doorbell_raise(uint32_t core) make `core`'s doorbell line pending
 *     void lab_board_doorbell_ack(uint32_t core)   clear `core`'s doorbell request
 *     LAB_BOARD_DOORBELL_IRQ                       the device line the doorbell raises on
 *                                                  each core (each core's own NVIC)
 *
 * Every function here is in its own section (-ffunction-sections) and an image that
 * calls none of them links none of them (--gc-sections): single-core images are
 * unchanged by this file.
 */
#ifndef LAB_CORTEX_M_CORES_H
#define LAB_CORTEX_M_CORES_H

#include <stdint.h>

#include "lab/target.h"
#include "lab_cortex_m.h"

/* SysTick (ARMv7-M ARM DDI 0403E B3.3.2, ARMv6-M ARM DDI 0419 B3.3.2, ARMv8-M ARM
 * DDI 0553 B11.1): SYST_CSR (ENABLE bit 0, TICKINT bit 1, CLKSOURCE bit 2 = the processor
 * clock), SYST_RVR (24-bit reload: the counter wraps every RELOAD + 1 clock cycles),
 * SYST_CVR (any write clears it; the next cycle loads RELOAD). SHPR3 (ARMv7-M B3.2.12,
 * ARMv6-M B3.2.8, ARMv8-M D1.2 SHPR3): PRI_14 (PendSV) is bits 23:16, PRI_15 (SysTick)
 * bits 31:24; unimplemented low priority bits read as zero, so 0xFF is the least urgent
 * priority whatever the implemented bits. SHPR3 is written as a word: ARMv6-M allows
 * only word accesses to it. The SSE-200 wires no SysTick reference clock (QEMU
 * hw/arm/armsse.c), so CLKSOURCE selects the processor clock on every target. */
#define LAB_CM_SYST_CSR LAB_CM_REG(0xE000E010u)
#define LAB_CM_SYST_RVR LAB_CM_REG(0xE000E014u)
#define LAB_CM_SYST_CVR LAB_CM_REG(0xE000E018u)
#define LAB_CM_SCB_SHPR3 LAB_CM_REG(0xE000ED20u)
#define LAB_CM_SYST_CSR_ENABLE_TICKINT_CPUCLK 0x7u
#define LAB_CM_SYST_RELOAD_MAX 0xFFFFFFu

int lab_target_tick_start(uint32_t hz)
{
    if (hz == 0u) {
        return -1;
    }
    /* Cycles of the core clock per tick; RELOAD is one less (the count includes 0). */
    uint32_t period = lab_target_clock_hz() / hz;
    if (period < 2u || period - 1u > LAB_CM_SYST_RELOAD_MAX) {
        return -1;
    }
#if LAB_PROBE_MODE_BUFFER
    /* The probes read SysTick (on a core without a cycle counter): mark the change. */
    lab_probe_buf_systick_reload(period - 1u);
#endif
    LAB_CM_SYST_CSR = 0u;
    LAB_CM_SCB_SHPR3 = LAB_CM_SCB_SHPR3 | 0xFFFF0000u;
    LAB_CM_SYST_RVR = period - 1u;
    LAB_CM_SYST_CVR = 0u;
    LAB_CM_SYST_CSR = LAB_CM_SYST_CSR_ENABLE_TICKINT_CPUCLK;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    return 0;
}

#if !defined(LAB_TARGET_CORES)
#error "LAB_TARGET_CORES is not set: rtoslab passes it from target.toml cores"
#endif

#if LAB_TARGET_CORES == 1

/* One core: the single-core behaviour lab/target.h documents. */
uint32_t lab_target_core_id(void) { return 0u; }

int lab_target_core_start(uint32_t core, void (*entry)(void *arg), void *arg, uint32_t *stack_top)
{
    (void)core;
    (void)entry;
    (void)arg;
    (void)stack_top;
    return -1;
}

int lab_target_doorbell_install(lab_irq_handler_t handler, uint32_t priority)
{
    (void)handler;
    (void)priority;
    return -1;
}

void lab_target_doorbell_ring(uint32_t core) { (void)core; }

#else /* several cores */

#if defined(__ARM_ARCH_6M__)
#error "lab_cortex_m_cores.h: the several-core boot path is written for ARMv7-M/ARMv8-M Mainline"
#endif
#if !defined(LAB_BOARD_DOORBELL_IRQ)
#error "a target with cores > 1 must define LAB_BOARD_DOORBELL_IRQ and the lab_board_core_* / lab_board_doorbell_* hooks in lab_board.h"
#endif

/* The initial vector table a started core resets with: its SP and reset entries (read by
 * the core at reset; ARMv7-M ARM B1.5.5, ARMv8-M ARM B3.30), NMI and HardFault (the fault
 * report, should anything go wrong before the reset code switches VTOR to the shared RAM
 * table). 128-byte aligned: the lowest VTOR alignment (ARMv7-M ARM B3.2.5). */
struct lab_cm_boot_table {
    lab_vector_t v[4];
} __attribute__((aligned(128)));

static struct lab_cm_boot_table lab_cm_boot_tables[LAB_TARGET_CORES];
/* What each started core runs (written by core 0 before the release, read by the core). */
static void (*volatile lab_cm_core_entry[LAB_TARGET_CORES])(void *arg);
static void *volatile lab_cm_core_arg[LAB_TARGET_CORES];
static volatile uint8_t lab_cm_core_started[LAB_TARGET_CORES];

/* The started core's C part: its entry, which must never return; if it does, the
 * undefined instruction reports a fault (and so ends the run as failed). External (not
 * static) so the reset code's branch finds it under -flto too. */
void lab_cm_core_main(void);
__attribute__((used, noreturn)) void lab_cm_core_main(void)
{
    uint32_t core = lab_board_core_id();
    lab_cm_core_entry[core](lab_cm_core_arg[core]);
    __builtin_trap();
}

/* A started core's reset entry. At reset the core took SP (stack_top) and this address
 * from its boot table; interrupts stay masked (PRIMASK = 1) until entry enables them.
 * VTOR goes to the shared RAM vector table. With a hardware-FP image the FPU is enabled
 * as core 0's Reset_Handler does (CPACR CP10/CP11 = 0b11, ARMv8-M ARM D1.2 CPACR): CPACR
 * is banked per core. MSP is already stack_top; no stack is used before the C part. */
__attribute__((naked, noreturn, used)) static void lab_cm_core_reset(void)
{
    __asm__ volatile("cpsid i\n\t"
                     "ldr r0, =lab_ram_vectors\n\t"
                     "ldr r1, =0xE000ED08\n\t" /* SCB VTOR */
                     "str r0, [r1]\n\t"
#if defined(__ARM_FP)
                     "ldr r1, =0xE000ED88\n\t" /* SCB CPACR */
                     "ldr r0, [r1]\n\t"
                     "orr r0, r0, #0xF00000\n\t"
                     "str r0, [r1]\n\t"
#endif
                     "dsb\n\t"
                     "isb\n\t"
                     "b lab_cm_core_main\n\t"
                     ".ltorg\n\t");
}

uint32_t lab_target_core_id(void) { return lab_board_core_id(); }

int lab_target_core_start(uint32_t core, void (*entry)(void *arg), void *arg, uint32_t *stack_top)
{
    if (core == 0u || core >= LAB_TARGET_CORES || entry == 0 || lab_cm_core_started[core] != 0u) {
        return -1;
    }
    lab_cm_core_entry[core] = entry;
    lab_cm_core_arg[core] = arg;
    struct lab_cm_boot_table *t = &lab_cm_boot_tables[core];
    t->v[0] = (lab_vector_t)(uintptr_t)stack_top;
    t->v[1] = lab_cm_core_reset;
    t->v[2] = lab_target_default_handler;
    t->v[3] = lab_target_default_handler;
    /* The table and the entry reach memory before the core can read them. */
    __asm__ volatile("dsb" ::: "memory");
    if (lab_board_core_release(core, (uint32_t)(uintptr_t)t->v) != 0) {
        return -1;
    }
    lab_cm_core_started[core] = 1u;
    return 0;
}

/* The handler each core installed (lab_target_doorbell_install), by core index. */
static lab_irq_handler_t lab_cm_doorbell_handler[LAB_TARGET_CORES];

/* The doorbell line's handler on every core (one RAM vector table entry serves all):
 * acknowledge first, so a ring during the installed handler pends the line again, then
 * call the installed handler. */
static void lab_cm_doorbell_isr(void)
{
    uint32_t core = lab_board_core_id();
    lab_board_doorbell_ack(core);
    lab_cm_doorbell_handler[core]();
}

int lab_target_doorbell_install(lab_irq_handler_t handler, uint32_t priority)
{
    if (handler == 0) {
        return -1;
    }
    lab_cm_doorbell_handler[lab_board_core_id()] = handler;
    __asm__ volatile("dsb" ::: "memory");
    /* The function, not lab/target.h's macro: the macro's .lab_isr record would keep
     * lab_cm_doorbell_isr in every image of the target, also those that never install a
     * doorbell (the linker keeps all of .lab_isr), and move their code. The timing model
     * finds the handler in the live vector table without the record (docs/timing-model.md,
     * "Handler entries"). */
    return (lab_target_irq_install)(LAB_BOARD_DOORBELL_IRQ, lab_cm_doorbell_isr, priority);
}

void lab_target_doorbell_ring(uint32_t core)
{
    if (core >= LAB_TARGET_CORES) {
        return;
    }
    /* The caller's earlier stores are observed before the ring (so by the handler). */
    __asm__ volatile("dmb" ::: "memory");
    lab_board_doorbell_raise(core);
    /* Nothing more: one device store. Under QEMU (-icount, the vCPUs run in turn in one
     * thread) the rung core does not run until this core halts (WFI), yields (WFE) or
     * its time slice ends: for an interrupt the running vCPU raises on another, QEMU only
     * flags the target (accel/tcg/tcg-accel-ops.c tcg_handle_interrupt: on the shared
     * thread the target counts as "self", so no kick). Code that wants the rung core to
     * run at once follows the ring with SEV then WFE, a no-op pair on the chip (SEV "also
     * sets the local event register", and WFE with it set clears it and goes on: Cortex-M4
     * Devices Generic User Guide, ARM DUI 0553, SEV and WFE, as quoted in Microchip's
     * SAM4CP datasheet 12.6.12.9/.11; the M33 assumed the same) and a yield under QEMU
     * (x_doorbell's X_DOORBELL_BUSY and X_DOORBELL_YIELD measure both; the README of
     * the two-core MPS2 target). */
}

#endif /* LAB_TARGET_CORES */

#endif /* LAB_CORTEX_M_CORES_H */
