/*
 * rtoslab's own FreeRTOS SMP portable layer for ARMv8-M mainline, Secure-only (portmacro.h
 * says what the kernel gets; README.md how it works). The C half: the kernel's spinlocks,
 * the cross-core yield, task stacks, scheduler start on every core, the tick, the idle
 * hook. The exception half (PendSV_Handler, the first-task start) is port_smp_asm.S.
 *
 * The board is reached only through lab/target.h: lab_target_core_id (portmacro.h),
 * lab_target_core_start (core 1), lab_target_doorbell_install / _ring (the cross-core
 * yield) and lab_target_tick_start (SysTick, core 0 only). The architectural registers
 * used here are ARMv8-M's (Arm DDI0553, B3: SHPR3; ICSR in portmacro.h).
 */
#include <stdbool.h>
#include <stdint.h>

#include "lab/bench.h"
#include "lab/port.h"
#include "lab/target.h"

#include "FreeRTOS.h"
#include "task.h"

#if !LAB_HAS_SMP
#error "freertos-smp: lab_port_caps.h must declare LAB_HAS_SMP 1"
#endif
_Static_assert(labSMP_START_CORES >= 1 && labSMP_START_CORES <= configNUMBER_OF_CORES,
               "labSMP_START_CORES must be 1 .. configNUMBER_OF_CORES");
#ifdef LAB_TARGET_CORES
_Static_assert(configNUMBER_OF_CORES <= LAB_TARGET_CORES,
               "configNUMBER_OF_CORES exceeds the target's cores (target.toml cores)");
#endif

/* The kernel's running task per core (tasks.c); its first member is the saved stack top. */
extern TaskHandle_t volatile pxCurrentTCBs[configNUMBER_OF_CORES];

/* ------------------------------------------------------------------ spinlocks */

#if !labSMP_ELIDE_LOCKS
/* A recursive spinlock: `owner` is the holding core + 1 (0: free), `depth` how often that
 * core took it, `waiting` that another core sleeps in WFE for it or will soon ask for it. Only the owner writes `depth`; the owner check needs no atomic access
 * because only the owning core can have written its own number there. The kernel takes
 * and releases both locks with its interrupts masked on the calling core (critical
 * sections, vTaskSuspendAll, PendSV), so an interrupt handler of the same core never sees
 * a half-taken lock. */
typedef struct lab_smp_lock {
    volatile uint32_t owner;
    uint32_t depth;
    volatile uint32_t waiting; /* another core waits for it, or was rung and will ask */
    uint32_t unused;           /* 16 bytes: indexing the array is one shift */
} lab_smp_lock_t;

static lab_smp_lock_t lab_smp_locks[2]; /* 0: task lock, 1: ISR lock */

/* Take lock `lock` for core `core`: returns when the caller holds it (at once if it
 * already did). A waiting core sleeps in WFE; the holder's SEV on release wakes it (and
 * QEMU runs the other vCPU meanwhile instead of spinning). */
void lab_smp_lock_get(uint32_t lock, uint32_t core)
{
    lab_smp_lock_t *l = &lab_smp_locks[lock];
    uint32_t me = core + 1u;
    if (l->owner == me) {
        l->depth++;
        return;
    }
    for (;;) {
        uint32_t seen;
        uint32_t failed = 1u;
        __asm volatile("ldrex %0, [%1]" : "=r"(seen) : "r"(&l->owner) : "memory");
        if (seen == 0u) {
            __asm volatile("strex %0, %2, [%1]" : "=&r"(failed) : "r"(&l->owner), "r"(me) : "memory");
            if (failed == 0u) {
                break;
            }
        } else {
            l->waiting = 1u;
            __asm volatile("clrex\n"
                           "wfe" ::: "memory");
        }
    }
    /* Acquire: nothing the lock protects is read before the lock is ours. */
    __asm volatile("dmb" ::: "memory");
    l->depth = 1u;
}

/* A released lock that another core waits for, or will ask for: WFE right after our own
 * SEV. On the chip it returns at once (the SEV set this core's event register too: a
 * no-op pair). Under QEMU, whose vCPUs take turns on one thread (an interrupt or SEV for
 * the other vCPU does not switch, WFE does), it hands over to the other core now, which
 * takes the lock, or the doorbell this core rang, at once, as on a chip where both cores
 * run, instead of when this core's turn ends (when it next sleeps). Not while this core
 * still holds the other lock (the ISR lock is released before the task lock): the other
 * core would only find it taken. Out of line: the common release stays short. */
__attribute__((noinline)) static void lab_smp_hand_over(const lab_smp_lock_t *released, uint32_t core)
{
    const lab_smp_lock_t *other = released == &lab_smp_locks[0] ? &lab_smp_locks[1] : &lab_smp_locks[0];
    if (other->owner == core + 1u) {
        return;
    }
    lab_smp_locks[0].waiting = 0u;
    lab_smp_locks[1].waiting = 0u;
    __asm volatile("wfe" ::: "memory");
}

/* Release one level of lock `lock` held by core `core`; the last level frees it and wakes
 * waiting cores (DSB so the store is visible before SEV). */
void lab_smp_lock_release(uint32_t lock, uint32_t core)
{
    lab_smp_lock_t *l = &lab_smp_locks[lock];
    if (--l->depth == 0u) {
        /* Release: everything written under the lock is visible (DMB) before the store
         * that frees it, which is visible (DSB) before SEV wakes the waiting core. */
        __asm volatile("dmb\n"
                       "str %1, [%0]\n"
                       "dsb\n"
                       "sev"
                       :
                       : "r"(&l->owner), "r"(0u)
                       : "memory");
        if (l->waiting != 0u) {
            lab_smp_hand_over(l, core);
        }
    }
}
#endif

/* ------------------------------------------------------------------ cross-core yield */

/* The doorbell's handler on the receiving core: switch there once the handler returns
 * (PendSV, the least urgent exception, tail-chains). */
static void lab_smp_doorbell(void) { portNVIC_INT_CTRL_REG = portNVIC_PENDSVSET_BIT; }

/* portYIELD_CORE: the kernel calls it inside a critical section. A core that was never
 * started (labSMP_START_CORES = 1) has nothing to switch: no ring. */
void lab_smp_yield_core(BaseType_t core)
{
    if (core == portGET_CORE_ID()) {
        portNVIC_INT_CTRL_REG = portNVIC_PENDSVSET_BIT;
    } else if (core < (BaseType_t)labSMP_START_CORES) {
        lab_target_doorbell_ring((uint32_t)core);
#if !labSMP_ELIDE_LOCKS
        /* The rung core will take both locks (vTaskSwitchContext): hand over to it when
         * this core's locked section ends (lab_smp_hand_over). */
        lab_smp_locks[0].waiting = 1u;
        lab_smp_locks[1].waiting = 1u;
#endif
    }
}

/* ------------------------------------------------------------------ task stacks */

/* A task that returns from its function (lab/port.h forbids it) ends the run. */
static void lab_smp_task_returned(void)
{
    lab_fail_status(LAB_EXIT_KERNEL_ASSERT, "FreeRTOS SMP: a task function returned");
}

/* The frame a task is first switched in from (port_smp_asm.S reads it in this order), from
 * the lowest address: PSPLIM, EXC_RETURN, r4-r11 (what PendSV saves), then the frame the
 * processor pops on exception return: r0 (the argument), r1-r3, r12, lr, pc, xPSR. `top`
 * is 8-byte aligned (the kernel aligns it to portBYTE_ALIGNMENT); the word at `top` is
 * left unused, so the exception frame ends 8-byte aligned at `top`. */
StackType_t *pxPortInitialiseStack(StackType_t *top, StackType_t *end, TaskFunction_t code, void *params)
{
    StackType_t *frame = top - 8;
    frame[0] = (StackType_t)(uintptr_t)params;                        /* r0 */
    frame[1] = 0u;                                                    /* r1 */
    frame[2] = 0u;                                                    /* r2 */
    frame[3] = 0u;                                                    /* r3 */
    frame[4] = 0u;                                                    /* r12 */
    frame[5] = (StackType_t)(uintptr_t)lab_smp_task_returned;         /* lr */
    frame[6] = (StackType_t)((uintptr_t)code & ~(uintptr_t)1u);       /* pc: bit 0 clear */
    frame[7] = 0x01000000u;                                           /* xPSR: Thumb */
    StackType_t *sw = frame - 10;
    /* PSPLIM needs bits [2:0] clear: the stack's low end rounded up to 8 bytes. */
    sw[0] = (StackType_t)(((uintptr_t)end + 7u) & ~(uintptr_t)7u);
    /* EXC_RETURN: return to Thread mode, PSP, Secure, standard (no FP) frame, callee
     * registers not stacked by hardware (DDI0553 B3.19: 0xFFFFFFFD). */
    sw[1] = 0xFFFFFFFDu;
    for (uint32_t i = 2u; i < 10u; i++) {
        sw[i] = 0u; /* r4-r11 */
    }
    return sw;
}

/* ------------------------------------------------------------------ scheduler start */

/* port_smp_asm.S: start the task whose saved stack top is `top` (a first frame, above) in
 * Thread mode on PSP, interrupts enabled; never returns. */
__attribute__((noreturn)) void lab_smp_start_first(StackType_t *top);

/* SHPR3 (0xE000ED20), byte 2: PendSV's priority on the calling core (each core has its
 * own System Control Block). The least urgent level, the kernel's. */
#define LAB_SMP_SHPR3_PENDSV (*(volatile uint8_t *)0xE000ED22UL)

/* What every core does before its first task: PendSV least urgent (so that it never
 * preempts a critical section, BASEPRI), and its doorbell at the kernel's level. */
static void lab_smp_core_setup(void)
{
    LAB_SMP_SHPR3_PENDSV = (uint8_t)configKERNEL_INTERRUPT_PRIORITY;
#if labSMP_START_CORES > 1
    if (lab_target_doorbell_install(lab_smp_doorbell, (uint32_t)configKERNEL_INTERRUPT_PRIORITY) != 0) {
        lab_fail_status(LAB_EXIT_KERNEL_ASSERT, "FreeRTOS SMP: the target has no inter-core doorbell");
    }
#else
    (void)lab_smp_doorbell;
#endif
}

static StackType_t *lab_smp_first_top(uint32_t core)
{
    return *(StackType_t *volatile *)pxCurrentTCBs[core];
}

#if labSMP_START_CORES > 1
/* Core 1's main stack (its exception handlers: PendSV, the doorbell). Words. */
#define LAB_SMP_CORE1_STACK_WORDS 512u
static uint32_t lab_smp_core1_stack[LAB_SMP_CORE1_STACK_WORDS] __attribute__((aligned(8)));

/* Core 1 from lab_target_core_start: PRIMASK set, on its own main stack. It starts the
 * task the kernel gave it (its idle task, pxCurrentTCBs[1]), which yields at once. */
static void lab_smp_core1_main(void *arg)
{
    (void)arg;
    portDISABLE_INTERRUPTS();
    lab_smp_core_setup();
    lab_smp_start_first(lab_smp_first_top(1u));
}
#endif

/* vTaskStartScheduler calls this on core 0 with the kernel's interrupts masked, after it
 * gave every core its idle task (pxCurrentTCBs[core]). */
BaseType_t xPortStartScheduler(void)
{
    lab_smp_core_setup();
    if (lab_target_tick_start((uint32_t)configTICK_RATE_HZ) != 0) {
        lab_fail_status(LAB_EXIT_KERNEL_ASSERT, "FreeRTOS SMP: the target cannot tick at configTICK_RATE_HZ");
    }
#if labSMP_START_CORES > 1
    if (lab_target_core_start(1u, lab_smp_core1_main, NULL,
                              &lab_smp_core1_stack[LAB_SMP_CORE1_STACK_WORDS]) != 0) {
        lab_fail_status(LAB_EXIT_KERNEL_ASSERT, "FreeRTOS SMP: core 1 could not be started");
    }
#endif
    lab_smp_start_first(lab_smp_first_top(0u));
}

void vPortEndScheduler(void) {}

/* PendSV_Handler (port_smp_asm.S) calls this with the switched-out task's registers saved
 * below `top` on its stack: record it, let the kernel choose this core's next task, return
 * that task's saved stack top. Runs with the kernel's interrupts masked (BASEPRI). */
StackType_t *lab_smp_switch(StackType_t *top);

StackType_t *lab_smp_switch(StackType_t *top)
{
    portDISABLE_INTERRUPTS();
    BaseType_t core = portGET_CORE_ID();
    *(StackType_t *volatile *)pxCurrentTCBs[core] = top;
    vTaskSwitchContext(core);
    top = *(StackType_t *volatile *)pxCurrentTCBs[core];
    portENABLE_INTERRUPTS();
    return top;
}

/* ------------------------------------------------------------------ tick and idle */

/* The kernel's tick (core 0's SysTick only), under the ISR lock. */
void xPortSysTickHandler(void)
{
    UBaseType_t saved = taskENTER_CRITICAL_FROM_ISR();
    if (xTaskIncrementTick() != pdFALSE) {
        portNVIC_INT_CTRL_REG = portNVIC_PENDSVSET_BIT;
    }
    taskEXIT_CRITICAL_FROM_ISR(saved);
}

void vApplicationPassiveIdleHook(void);

/* configUSE_PASSIVE_IDLE_HOOK = 1: every idle task (one per core) calls it on each pass.
 * WFI halts the core until an interrupt (its doorbell, or core 0's tick), as a board that
 * saves power does; under QEMU a halted vCPU executes nothing. */
void vApplicationPassiveIdleHook(void) { __asm volatile("wfi" ::: "memory"); }

/* ------------------------------------------------------------------ lab/port.h */

uint32_t lab_port_cores(void) { return (uint32_t)labSMP_START_CORES; }
