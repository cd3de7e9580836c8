/* Object types of the FreeRTOS port (see lab/port.h): the kernel's static object storage
 * plus the handle the kernel returned, first so that reaching it is one load. With
 * labSTATIC_ALLOCATION = 0 the storage part is unused and the kernel allocates from
 * heap_4 instead. */
#ifndef LAB_PORT_TYPES_H
#define LAB_PORT_TYPES_H

#include "FreeRTOS.h"
#include "queue.h"
#include "semphr.h"
#include "task.h"

typedef struct lab_task {
    TaskHandle_t handle;
    StaticTask_t tcb;
} lab_task_t;

typedef struct lab_sem {
    SemaphoreHandle_t handle;
    StaticSemaphore_t obj;
} lab_sem_t;

typedef struct lab_mutex {
    SemaphoreHandle_t handle;
    StaticSemaphore_t obj;
} lab_mutex_t;

typedef struct lab_queue {
    QueueHandle_t handle;
    StaticQueue_t obj;
} lab_queue_t;

typedef StackType_t lab_stack_t;

/* AAPCS wants 8-byte aligned stacks; the kernel aligns the top itself but the whole
 * buffer stays usable when it starts aligned. */
#define LAB_STACK_DEFINE(name, words) lab_stack_t name[(words)] __attribute__((aligned(8)))
#define LAB_PORT_STACK_MIN_WORDS ((uint32_t)configMINIMAL_STACK_SIZE)
#define LAB_PORT_PRIO_MAX (configMAX_PRIORITIES - 1)

#endif /* LAB_PORT_TYPES_H */
