/*
 * portmacro.h of rtoslab's own FreeRTOS SMP port for ARMv8-M mainline (Cortex-M33, with or
 * without the FPU), run Secure-only on a multi-core target (mps2-an521: two Cortex-M33 in
 * an SSE-200). Written for rtoslab: the kernel's portable API as FreeRTOS-Kernel V11.2.0
 * declares it (include/FreeRTOS.h: the SMP macros; include/portable.h: the functions a
 * port provides), nothing taken from FreeRTOS's own ports. README.md says how it works.
 *
 * The port reaches the board only through lab/target.h (core id, core start, doorbell,
 * tick start); everything else here is the architecture's (ARMv8-M Architecture Reference
 * Manual, DDI0553: BASEPRI, PSPLIM, ICSR.PENDSVSET, LDREX/STREX, WFE/SEV).
 *
 * Options (port.toml, rendered into FreeRTOSConfig.h): labSMP_START_CORES (1 or 2 cores
 * run the scheduler), labSMP_ELIDE_LOCKS (the kernel's spinlocks compile to nothing),
 * labSMP_ELIDE_CORE_ID (the core id is the constant 0). The elisions are only correct with
 * one core started; rtoslab refuses any other combination before building and the
 * FreeRTOSConfig.h checks it again (#error).
 */
#ifndef PORTMACRO_H
#define PORTMACRO_H

#include <stdint.h>

#include "lab/target.h" /* lab_target_core_id (the only board function the kernel calls) */

/* ------------------------------------------------------------------ types */
#define portCHAR char
#define portFLOAT float
#define portDOUBLE double
#define portLONG long
#define portSHORT short
#define portSTACK_TYPE uint32_t
#define portBASE_TYPE long

typedef portSTACK_TYPE StackType_t;
typedef long BaseType_t;
typedef unsigned long UBaseType_t;

#if (configTICK_TYPE_WIDTH_IN_BITS == TICK_TYPE_WIDTH_32_BITS)
typedef uint32_t TickType_t;
#define portMAX_DELAY ((TickType_t)0xffffffffUL)
/* A 32-bit load or store is single-copy atomic on ARMv8-M: no critical section around
 * reading the tick count. */
#define portTICK_TYPE_IS_ATOMIC 1
#else
#error "rtoslab's freertos-smp port supports 32-bit ticks only (lab_tick_t is 32 bits)"
#endif

/* ------------------------------------------------------------------ architecture */
#define portSTACK_GROWTH (-1)
#define portTICK_PERIOD_MS ((TickType_t)1000 / configTICK_RATE_HZ)
/* AAPCS: 8-byte aligned stacks at public interfaces (exception entry keeps it so). */
#define portBYTE_ALIGNMENT 8
#define portNOP() __asm volatile("nop")
#define portINLINE __inline
#define portFORCE_INLINE inline __attribute__((always_inline))
#define portDONT_DISCARD __attribute__((used))
#define portARCH_NAME "rtoslab ARMv8-M mainline SMP"
/* Each task's stack limit goes to PSPLIM on every switch in (ARMv8-M stack limit check):
 * the kernel passes the stack's low end to pxPortInitialiseStack. */
#define portHAS_STACK_OVERFLOW_CHECKING 1
/* The compiler must not move memory accesses across the points the kernel marks. */
#define portMEMORY_BARRIER() __asm volatile("" ::: "memory")

#define portTASK_FUNCTION_PROTO(vFunction, pvParameters) void vFunction(void *pvParameters)
#define portTASK_FUNCTION(vFunction, pvParameters) void vFunction(void *pvParameters)

/* ------------------------------------------------------------------ interrupt masking
 * Critical sections mask by priority: BASEPRI = configMAX_SYSCALL_INTERRUPT_PRIORITY masks
 * every interrupt the kernel manages (SysTick, PendSV, the doorbell, and handlers that call
 * the *FromISR API) on the calling core; more urgent ones still run. */
static inline uint32_t lab_smp_mask_raise(void)
{
    uint32_t old;
    uint32_t mask = (uint32_t)configMAX_SYSCALL_INTERRUPT_PRIORITY;
    __asm volatile("mrs %0, basepri\n"
                   "msr basepri, %1\n"
                   "dsb\n"
                   "isb"
                   : "=&r"(old)
                   : "r"(mask)
                   : "memory");
    return old;
}

static inline void lab_smp_mask_restore(uint32_t old)
{
    __asm volatile("msr basepri, %0" ::"r"(old) : "memory");
}

#define portSET_INTERRUPT_MASK() lab_smp_mask_raise()
#define portCLEAR_INTERRUPT_MASK(x) lab_smp_mask_restore((uint32_t)(x))
#define portSET_INTERRUPT_MASK_FROM_ISR() lab_smp_mask_raise()
#define portCLEAR_INTERRUPT_MASK_FROM_ISR(x) lab_smp_mask_restore((uint32_t)(x))
#define portDISABLE_INTERRUPTS() ((void)lab_smp_mask_raise())
#define portENABLE_INTERRUPTS() lab_smp_mask_restore(0u)

/* In an exception handler: IPSR (the active exception number) is not 0. */
static inline BaseType_t xPortIsInsideInterrupt(void)
{
    uint32_t ipsr;
    __asm volatile("mrs %0, ipsr" : "=r"(ipsr));
    return ipsr != 0u ? 1 : 0;
}
#define portCHECK_IF_IN_ISR() xPortIsInsideInterrupt()

/* ------------------------------------------------------------------ critical sections
 * The SMP kernel's own (tasks.c): nesting counted in each task's TCB; they take the task
 * lock and the ISR lock (below) so that they exclude every core. */
#define portCRITICAL_NESTING_IN_TCB 1
void vTaskEnterCritical(void);
void vTaskExitCritical(void);
UBaseType_t vTaskEnterCriticalFromISR(void);
void vTaskExitCriticalFromISR(UBaseType_t uxSavedInterruptStatus);
#define portENTER_CRITICAL() vTaskEnterCritical()
#define portEXIT_CRITICAL() vTaskExitCritical()
#define portENTER_CRITICAL_FROM_ISR() vTaskEnterCriticalFromISR()
#define portEXIT_CRITICAL_FROM_ISR(x) vTaskExitCriticalFromISR(x)

/* ------------------------------------------------------------------ core id */
#if labSMP_ELIDE_CORE_ID
/* Elided (seed 003's "processor-ID read removed"): only core 0 runs the kernel. */
#define portGET_CORE_ID() ((BaseType_t)0)
#else
/* lab/target.h: the board's core-identity register (a device load). */
#define portGET_CORE_ID() ((BaseType_t)lab_target_core_id())
#endif

/* ------------------------------------------------------------------ yield */
/* ARMv8-M ICSR (0xE000ED04), bit 28 PENDSVSET: makes PendSV pending on the calling core;
 * the switch happens in PendSV_Handler (port_smp_asm.S) once nothing more urgent runs. */
#define portNVIC_INT_CTRL_REG (*(volatile uint32_t *)0xE000ED04UL)
#define portNVIC_PENDSVSET_BIT (1UL << 28UL)
#define portYIELD()                                                                         \
    do {                                                                                    \
        portNVIC_INT_CTRL_REG = portNVIC_PENDSVSET_BIT;                                     \
        __asm volatile("dsb\nisb" ::: "memory");                                           \
    } while (0)
#define portYIELD_WITHIN_API() portYIELD()
#define portEND_SWITCHING_ISR(xSwitchRequired)                                              \
    do {                                                                                    \
        if ((xSwitchRequired) != 0) {                                                       \
            portNVIC_INT_CTRL_REG = portNVIC_PENDSVSET_BIT;                                 \
        }                                                                                   \
    } while (0)
#define portYIELD_FROM_ISR(x) portEND_SWITCHING_ISR(x)

/* Make core x switch: its own PendSV when x is the caller's core, else the doorbell, whose
 * handler on core x pends PendSV there (port_smp.c). */
void lab_smp_yield_core(BaseType_t core);
#define portYIELD_CORE(x) lab_smp_yield_core((BaseType_t)(x))

/* ------------------------------------------------------------------ the kernel's locks
 * Two recursive spinlocks (port_smp.c): the task lock (index 0) and the ISR lock (index
 * 1); the kernel always takes the task lock first. A core waiting for a lock sleeps in WFE
 * and the releasing core wakes it with SEV. The kernel takes and releases them with the
 * calling core's kernel interrupts masked. */
#if labSMP_ELIDE_LOCKS
/* Elided (seed 003's "locks removed"): with one core running the kernel nothing else can
 * hold them. */
#define portGET_TASK_LOCK(xCoreID) ((void)(xCoreID))
#define portRELEASE_TASK_LOCK(xCoreID) ((void)(xCoreID))
#define portGET_ISR_LOCK(xCoreID) ((void)(xCoreID))
#define portRELEASE_ISR_LOCK(xCoreID) ((void)(xCoreID))
#else
void lab_smp_lock_get(uint32_t lock, uint32_t core);
void lab_smp_lock_release(uint32_t lock, uint32_t core);
#define portGET_TASK_LOCK(xCoreID) lab_smp_lock_get(0u, (uint32_t)(xCoreID))
#define portRELEASE_TASK_LOCK(xCoreID) lab_smp_lock_release(0u, (uint32_t)(xCoreID))
#define portGET_ISR_LOCK(xCoreID) lab_smp_lock_get(1u, (uint32_t)(xCoreID))
#define portRELEASE_ISR_LOCK(xCoreID) lab_smp_lock_release(1u, (uint32_t)(xCoreID))
#endif

/* ------------------------------------------------------------------ tick */
/* The kernel's tick, called by port_freertos.c's SysTick_Handler (between the tick hooks)
 * on core 0 only. */
void xPortSysTickHandler(void);

#endif /* PORTMACRO_H */
