/*
 * lab/port.h for FreeRTOS-Kernel (GCC port of the target's core). Each function is a thin call into the
 * kernel's documented API; what it adds to a measurement is the wrapper call itself and
 * one load of the kernel handle (a few instructions, the same for every port).
 *
 * The freertos-smp port compiles this file too, for FreeRTOS's SMP kernel
 * (configNUMBER_OF_CORES > 1): there task creation sets the core affinity (lab/port.h
 * "several cores"); everything else is the same code.
 *
 * Also here: the kernel's hook functions (assert, stack overflow, malloc failed), which
 * end the run with the matching exit status; the idle hook, which sleeps until the next
 * interrupt (WFI); and SysTick_Handler, which brackets the kernel's tick handler with the
 * tick hooks (LAB_HAS_TICK_HOOKS).
 */
#include <stdbool.h>
#include <stdint.h>

#include "lab/bench.h"
#include "lab/port.h"

#include "FreeRTOS.h"
#include "queue.h"
#include "semphr.h"
#include "task.h"

#if LAB_PROBE_MODE_BUFFER && configNUMBER_OF_CORES == 1
/* Buffer mode (a board, docs/boards.md): the kernel's tick goes through the target's
 * lab_target_tick_start (FreeRTOS's own vPortSetupTimerInterrupt is weak, and programs the
 * same SysTick reload, CLKSOURCE, TICKINT and ENABLE), so that a SysTick probe clock learns
 * the new reload and the host unwraps every timestamp by it. Region-mode images keep
 * FreeRTOS's own code (their figures do not change). */
#include "lab/target.h"

void vPortSetupTimerInterrupt(void);
void vPortSetupTimerInterrupt(void)
{
    if (lab_target_tick_start((uint32_t)configTICK_RATE_HZ) != 0) {
        lab_fail_status(LAB_EXIT_KERNEL_ASSERT, "lab_target_tick_start refused configTICK_RATE_HZ");
    }
}
#endif

_Static_assert(configTICK_TYPE_WIDTH_IN_BITS == TICK_TYPE_WIDTH_32_BITS,
               "lab_tick_t is 32 bits: the kernel's tick type must be too");
_Static_assert(LAB_WAIT_FOREVER == portMAX_DELAY, "LAB_WAIT_FOREVER must be portMAX_DELAY");

/* ------------------------------------------------------------------ kernel hooks */

void lab_freertos_assert_failed(const char *file, int line);

/* configASSERT (option configASSERT_ENABLED): end the run with LAB_EXIT_KERNEL_ASSERT and
 * "FreeRTOS configASSERT failed at <file name>:<line>" on the console. */
void lab_freertos_assert_failed(const char *file, int line)
{
    static char msg[160];
    static const char prefix[] = "FreeRTOS configASSERT failed at ";
    uint32_t n = 0;
    for (const char *p = prefix; *p != '\0' && n < sizeof msg - 12u; p++) {
        msg[n++] = *p;
    }
    const char *base = file;
    for (const char *p = file; *p != '\0'; p++) {
        if (*p == '/' || *p == '\\') {
            base = p + 1;
        }
    }
    for (const char *p = base; *p != '\0' && n < sizeof msg - 12u; p++) {
        msg[n++] = *p;
    }
    msg[n++] = ':';
    char digits[10];
    uint32_t d = 0;
    uint32_t v = (uint32_t)line;
    do {
        digits[d++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v != 0u && d < sizeof digits);
    while (d > 0u) {
        msg[n++] = digits[--d];
    }
    msg[n] = '\0';
    lab_fail_status(LAB_EXIT_KERNEL_ASSERT, msg);
}

void vApplicationStackOverflowHook(TaskHandle_t task, char *name);

void vApplicationStackOverflowHook(TaskHandle_t task, char *name)
{
    (void)task;
    (void)name;
    lab_fail_status(LAB_EXIT_STACK_OVERFLOW, "FreeRTOS: stack overflow detected");
}

void vApplicationMallocFailedHook(void);

void vApplicationMallocFailedHook(void)
{
    lab_fail_status(LAB_EXIT_OUT_OF_MEMORY, "FreeRTOS: pvPortMalloc failed (raise configTOTAL_HEAP_SIZE)");
}

/* ------------------------------------------------------------------ idle */

void vApplicationIdleHook(void);

/* configUSE_IDLE_HOOK = 1. The idle task calls this on every pass of its loop, with
 * interrupts enabled (PRIMASK and BASEPRI 0), so WFI returns at the next interrupt of any
 * priority: nothing is delayed by it. What it guarantees is that idle time executes no
 * instructions, as on a board whose idle loop sleeps: under QEMU with
 * `-icount sleep=off` the virtual clock jumps to the next timer deadline, so waiting
 * costs no emulation time and the idle task adds no instructions between two events.
 * WFI is an ARMv6-M/ARMv7-M instruction, not a target's: every Cortex-M has it. */
#if defined(__AVR__)
/* AVR: SLEEP, in the idle mode the target enables (any interrupt wakes the core). */
void vApplicationIdleHook(void) { __asm__ volatile("sleep" ::: "memory"); }
#else
void vApplicationIdleHook(void) { __asm__ volatile("wfi" ::: "memory"); }
#endif

/* ------------------------------------------------------------------ tick */

__attribute__((weak)) void lab_tick_hook_enter(void) {}
__attribute__((weak)) void lab_tick_hook_exit(void) {}

#if defined(__AVR__)
/* AVR: the kernel's port.c has the tick ISR itself (renamed SysTick_Handler, with the hooks
 * around its tick work: avr_port.cmake). xTaskGetTickCount's critical section saves and
 * restores SREG, so it is safe in an interrupt handler too. */
lab_tick_t lab_tick_count(void) { return xTaskGetTickCount(); }
#else
void xPortSysTickHandler(void);
void SysTick_Handler(void);

void SysTick_Handler(void)
{
    lab_tick_hook_enter();
    xPortSysTickHandler();
    lab_tick_hook_exit();
}

lab_tick_t lab_tick_count(void)
{
    return xPortIsInsideInterrupt() ? xTaskGetTickCountFromISR() : xTaskGetTickCount();
}
#endif

uint32_t lab_tick_rate_hz(void) { return (uint32_t)configTICK_RATE_HZ; }

void lab_task_delay(lab_tick_t ticks) { vTaskDelay(ticks); }

void lab_task_delay_until(lab_tick_t *previous_wake, lab_tick_t period)
{
    (void)xTaskDelayUntil(previous_wake, period);
}

/* ------------------------------------------------------------------ scheduler and tasks */

void lab_port_init(void) {}

/* ------------------------------------------------------------------ trace hook (LAB_TRACE) */

#if LAB_TRACE
#include "lab/console.h"

/* Names of the tasks made by lab_task_create, by trace number (1 ..); printed by
 * lab_port_start, before the scheduler runs (off the measured path). */
static const char *lab_trace_names[LAB_TRACE_TASKS];
static uint32_t lab_trace_count;

void lab_freertos_trace_switched_in(unsigned long task) { LAB_TRACE_TASK_IN(task); }

void lab_trace_task_name(uint32_t task, const char *name)
{
    lab_console_puts("LAB-TASK ");
    lab_console_put_dec(task);
    lab_console_puts(" ");
    lab_console_puts(name != NULL ? name : "?");
    lab_console_puts("\n");
}

static void lab_trace_created(TaskHandle_t handle, const char *name)
{
    if (handle != NULL && lab_trace_count + 1u < LAB_TRACE_TASKS) {
        lab_trace_count++;
        lab_trace_names[lab_trace_count] = name;
        vTaskSetTaskNumber(handle, (UBaseType_t)lab_trace_count);
    }
}
#endif

void lab_port_start(void)
{
#if LAB_TRACE
    for (uint32_t i = 1u; i <= lab_trace_count; i++) {
        lab_trace_task_name(i, lab_trace_names[i]);
    }
#endif
    vTaskStartScheduler();
    lab_fail_status(LAB_EXIT_KERNEL_ASSERT, "FreeRTOS: vTaskStartScheduler returned");
}

#if configNUMBER_OF_CORES == 1
int lab_task_create(lab_task_t *task, const char *name, lab_task_fn entry, void *arg,
                    unsigned priority, lab_stack_t *stack, uint32_t stack_words)
{
    if (priority < 1u || priority > (unsigned)LAB_PORT_PRIO_MAX || stack_words < LAB_PORT_STACK_MIN_WORDS) {
        return LAB_ERR_FAIL;
    }
#if LAB_FREERTOS_STATIC_ALLOCATION
    task->handle = xTaskCreateStatic(entry, name, stack_words, arg, (UBaseType_t)priority, stack, &task->tcb);
#if LAB_TRACE
    lab_trace_created(task->handle, name);
#endif
    return task->handle != NULL ? LAB_OK : LAB_ERR_FAIL;
#else
    (void)stack;
    int ok = xTaskCreate(entry, name, stack_words, arg, (UBaseType_t)priority, &task->handle) == pdPASS
                 ? LAB_OK
                 : LAB_ERR_FAIL;
#if LAB_TRACE
    lab_trace_created(ok == LAB_OK ? task->handle : NULL, name);
#endif
    return ok;
#endif
}
#else
/* The SMP kernel (port freertos-smp, lab/port.h "several cores"): every task is created
 * with its core affinity already set (xTaskCreate[Static]AffinitySet sets it before the
 * task joins a ready list), so it never runs anywhere else, not even once. `cores` is the
 * affinity mask: bit n = core n. */
static int lab_freertos_create(lab_task_t *task, const char *name, lab_task_fn entry, void *arg,
                               unsigned priority, lab_stack_t *stack, uint32_t stack_words,
                               UBaseType_t cores)
{
    if (priority < 1u || priority > (unsigned)LAB_PORT_PRIO_MAX || stack_words < LAB_PORT_STACK_MIN_WORDS) {
        return LAB_ERR_FAIL;
    }
#if LAB_FREERTOS_STATIC_ALLOCATION
    task->handle = xTaskCreateStaticAffinitySet(entry, name, stack_words, arg, (UBaseType_t)priority, stack,
                                                &task->tcb, cores);
    int ok = task->handle != NULL ? LAB_OK : LAB_ERR_FAIL;
#else
    (void)stack;
    int ok = xTaskCreateAffinitySet(entry, name, stack_words, arg, (UBaseType_t)priority, cores,
                                    &task->handle) == pdPASS
                 ? LAB_OK
                 : LAB_ERR_FAIL;
#endif
#if LAB_TRACE
    lab_trace_created(ok == LAB_OK ? task->handle : NULL, name);
#endif
    return ok;
}

/* On the calling core (core 0 before lab_port_start): a task calling this is pinned
 * itself, so the core it reads is the one it stays on. */
int lab_task_create(lab_task_t *task, const char *name, lab_task_fn entry, void *arg,
                    unsigned priority, lab_stack_t *stack, uint32_t stack_words)
{
    return lab_freertos_create(task, name, entry, arg, priority, stack, stack_words,
                               (UBaseType_t)1u << (uint32_t)portGET_CORE_ID());
}

int lab_task_create_on(lab_task_t *task, const char *name, lab_task_fn entry, void *arg,
                       unsigned priority, lab_stack_t *stack, uint32_t stack_words, uint32_t core)
{
    UBaseType_t cores;
    if (core == LAB_CORE_ANY) {
        cores = ((UBaseType_t)1u << lab_port_cores()) - 1u; /* every core the kernel runs on */
    } else if (core < lab_port_cores()) {
        cores = (UBaseType_t)1u << core;
    } else {
        return LAB_ERR_FAIL;
    }
    return lab_freertos_create(task, name, entry, arg, priority, stack, stack_words, cores);
}
#endif

void lab_task_delete(lab_task_t *task) { vTaskDelete(task->handle); }

void lab_task_yield(void) { taskYIELD(); }

void lab_sched_lock(void) { vTaskSuspendAll(); }

void lab_sched_unlock(void) { (void)xTaskResumeAll(); }

unsigned lab_task_priority(lab_task_t *task) { return (unsigned)uxTaskPriorityGetFromISR(task->handle); }

void lab_task_suspend(lab_task_t *task) { vTaskSuspend(task != NULL ? task->handle : NULL); }

void lab_task_resume(lab_task_t *task) { vTaskResume(task->handle); }

/* ------------------------------------------------------------------ semaphores */

int lab_sem_create(lab_sem_t *sem, uint32_t initial, uint32_t max)
{
    if (max == 0u || initial > max) {
        return LAB_ERR_FAIL;
    }
    if (max == 1u) {
#if LAB_FREERTOS_STATIC_ALLOCATION
        sem->handle = xSemaphoreCreateBinaryStatic(&sem->obj);
#else
        sem->handle = xSemaphoreCreateBinary();
#endif
        if (sem->handle != NULL && initial == 1u) {
            (void)xSemaphoreGive(sem->handle);
        }
    } else {
#if !configUSE_COUNTING_SEMAPHORES
        return LAB_ERR_FAIL; /* configUSE_COUNTING_SEMAPHORES = 0: binary semaphores only */
#elif LAB_FREERTOS_STATIC_ALLOCATION
        sem->handle = xSemaphoreCreateCountingStatic(max, initial, &sem->obj);
#else
        sem->handle = xSemaphoreCreateCounting(max, initial);
#endif
    }
    return sem->handle != NULL ? LAB_OK : LAB_ERR_FAIL;
}

int lab_sem_give(lab_sem_t *sem) { return xSemaphoreGive(sem->handle) == pdTRUE ? LAB_OK : LAB_ERR_FAIL; }

int lab_sem_give_from_isr(lab_sem_t *sem, bool *woken)
{
    BaseType_t higher = pdFALSE;
    BaseType_t ok = xSemaphoreGiveFromISR(sem->handle, &higher);
    if (higher != pdFALSE) {
        *woken = true;
    }
    return ok == pdTRUE ? LAB_OK : LAB_ERR_FAIL;
}

int lab_sem_take(lab_sem_t *sem, lab_tick_t timeout)
{
    return xSemaphoreTake(sem->handle, timeout) == pdTRUE ? LAB_OK : LAB_ERR_TIMEOUT;
}

/* ------------------------------------------------------------------ mutexes */

int lab_mutex_create(lab_mutex_t *mutex)
{
#if LAB_FREERTOS_STATIC_ALLOCATION
    mutex->handle = xSemaphoreCreateMutexStatic(&mutex->obj);
#else
    mutex->handle = xSemaphoreCreateMutex();
#endif
    return mutex->handle != NULL ? LAB_OK : LAB_ERR_FAIL;
}

int lab_mutex_lock(lab_mutex_t *mutex, lab_tick_t timeout)
{
    return xSemaphoreTake(mutex->handle, timeout) == pdTRUE ? LAB_OK : LAB_ERR_TIMEOUT;
}

int lab_mutex_unlock(lab_mutex_t *mutex)
{
    return xSemaphoreGive(mutex->handle) == pdTRUE ? LAB_OK : LAB_ERR_FAIL;
}

/* ------------------------------------------------------------------ queues */

int lab_queue_create(lab_queue_t *queue, uint32_t length, uint32_t item_size, void *storage)
{
    if (length == 0u || item_size == 0u) {
        return LAB_ERR_FAIL;
    }
#if LAB_FREERTOS_STATIC_ALLOCATION
    queue->handle = xQueueCreateStatic(length, item_size, (uint8_t *)storage, &queue->obj);
#else
    (void)storage;
    queue->handle = xQueueCreate(length, item_size);
#endif
    return queue->handle != NULL ? LAB_OK : LAB_ERR_FAIL;
}

int lab_queue_send(lab_queue_t *queue, const void *item, lab_tick_t timeout)
{
    return xQueueSend(queue->handle, item, timeout) == pdTRUE ? LAB_OK : LAB_ERR_TIMEOUT;
}

int lab_queue_send_from_isr(lab_queue_t *queue, const void *item, bool *woken)
{
    BaseType_t higher = pdFALSE;
    BaseType_t ok = xQueueSendFromISR(queue->handle, item, &higher);
    if (higher != pdFALSE) {
        *woken = true;
    }
    return ok == pdTRUE ? LAB_OK : LAB_ERR_TIMEOUT;
}

int lab_queue_receive(lab_queue_t *queue, void *item, lab_tick_t timeout)
{
    return xQueueReceive(queue->handle, item, timeout) == pdTRUE ? LAB_OK : LAB_ERR_TIMEOUT;
}

/* ------------------------------------------------------------------ direct notification */

void lab_notify(lab_task_t *task) { (void)xTaskNotifyGive(task->handle); }

void lab_notify_from_isr(lab_task_t *task, bool *woken)
{
    BaseType_t higher = pdFALSE;
    vTaskNotifyGiveFromISR(task->handle, &higher);
    if (higher != pdFALSE) {
        *woken = true;
    }
}

uint32_t lab_notify_wait(lab_tick_t timeout) { return (uint32_t)ulTaskNotifyTake(pdTRUE, timeout); }

/* ------------------------------------------------------------------ critical sections */

#if defined(__AVR__)
/* The AVR port's taskENTER_CRITICAL pushes SREG onto the stack inside the calling
 * function (portmacro.h), so it cannot be wrapped in a function that returns: the
 * critical sections of lab/port.h save SREG and clear I themselves, nestable
 * (lab/port_critical_primask.h's AVR form), which is what the kernel's do. */
#include "lab/port_critical_primask.h"
#else
void lab_critical_enter(void) { taskENTER_CRITICAL(); }

void lab_critical_exit(void) { taskEXIT_CRITICAL(); }

uint32_t lab_critical_enter_from_isr(void) { return (uint32_t)taskENTER_CRITICAL_FROM_ISR(); }

void lab_critical_exit_from_isr(uint32_t saved) { taskEXIT_CRITICAL_FROM_ISR((UBaseType_t)saved); }
#endif

/* ------------------------------------------------------------------ interrupts */

uint32_t lab_port_irq_prio_kernel(void) { return (uint32_t)configMAX_SYSCALL_INTERRUPT_PRIORITY; }

/* 0 is never masked on ARMv7-M and ARMv8-M mainline: those ports' critical sections raise
 * BASEPRI only to configMAX_SYSCALL_INTERRUPT_PRIORITY. ARMv6-M has no BASEPRI: the
 * ARM_CM0 port's critical sections set PRIMASK and mask this level too (README.md). */
uint32_t lab_port_irq_prio_unmanaged(void) { return 0u; }

void lab_port_isr_enter(void) {}

#if defined(portYIELD_FROM_ISR)
void lab_port_isr_exit(bool woken) { portYIELD_FROM_ISR(woken ? pdTRUE : pdFALSE); }
#else
/* The AVR port has no portYIELD_FROM_ISR: a handler yields with portYIELD (its context
 * save keeps the handler's frame on the task's stack; the handler returns when the task
 * runs again), as the kernel's AVR demos do. */
void lab_port_isr_exit(bool woken)
{
    if (woken) {
        portYIELD();
    }
}
#endif
