/* The FreeRTOS configuration heap_4.c / heap_5.c are compiled with in the allocation lab
 * (firmware/allocators/heap4, heap5). Found first through -iquote, so it applies whatever
 * kernel the image runs; only what the heap sources and FreeRTOS.h read matters here. The
 * heap's own calls to vTaskSuspendAll/xTaskResumeAll are renamed to the lab's empty
 * hooks (alloc.cmake): the lab measures lock strategies around the allocator itself. */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#include "lab/alloc.h" /* LAB_ALLOC_HEAP_BYTES */

#define configTICK_TYPE_WIDTH_IN_BITS TICK_TYPE_WIDTH_32_BITS
#define configUSE_PREEMPTION 1
#define configUSE_IDLE_HOOK 0
#define configUSE_TICK_HOOK 0
#define configMAX_PRIORITIES 8
#define configMINIMAL_STACK_SIZE 128
#define configMAX_TASK_NAME_LEN 8
#define configNUMBER_OF_CORES 1
#define configSUPPORT_DYNAMIC_ALLOCATION 1
#define configSUPPORT_STATIC_ALLOCATION 0
#define configUSE_MALLOC_FAILED_HOOK 0
#define configENABLE_BACKWARD_COMPATIBILITY 0
/* heap_4 manages the lab's region array (alloc.cmake renames ucHeap to lab_alloc_region) */
#define configAPPLICATION_ALLOCATED_HEAP 1
#define configTOTAL_HEAP_SIZE ((size_t)LAB_ALLOC_HEAP_BYTES)
/* read only by portmacro.h's inline interrupt-mask functions, which the heaps never call */
#define configMAX_SYSCALL_INTERRUPT_PRIORITY 0

#endif /* FREERTOS_CONFIG_H */
