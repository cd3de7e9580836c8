/* A host (x86-64) portmacro.h, just enough for FreeRTOS.h and the heap sources
 * (heap_4.c, heap_5.c) to compile for the allocation lab's host correctness tests. No
 * scheduler runs on the host. Written for rtoslab. */
#ifndef PORTMACRO_H
#define PORTMACRO_H

#include <stdint.h>

#define portCHAR char
#define portFLOAT float
#define portDOUBLE double
#define portLONG long
#define portSHORT short
#define portSTACK_TYPE uintptr_t
#define portBASE_TYPE long

typedef portSTACK_TYPE StackType_t;
typedef long BaseType_t;
typedef unsigned long UBaseType_t;
typedef uint32_t TickType_t;
#define portMAX_DELAY ((TickType_t)0xffffffffUL)
#define portTICK_TYPE_IS_ATOMIC 1

#define portSTACK_GROWTH (-1)
#define portTICK_PERIOD_MS ((TickType_t)1)
#define portBYTE_ALIGNMENT 8
#define portPOINTER_SIZE_TYPE uintptr_t

#define portYIELD() ((void)0)
#define portDISABLE_INTERRUPTS() ((void)0)
#define portENABLE_INTERRUPTS() ((void)0)
#define portENTER_CRITICAL() ((void)0)
#define portEXIT_CRITICAL() ((void)0)
#define portSET_INTERRUPT_MASK_FROM_ISR() 0
#define portCLEAR_INTERRUPT_MASK_FROM_ISR(x) ((void)(x))
#define portNOP() ((void)0)
#define portTASK_FUNCTION_PROTO(vFunction, pvParameters) void vFunction(void *pvParameters)
#define portTASK_FUNCTION(vFunction, pvParameters) void vFunction(void *pvParameters)

#endif /* PORTMACRO_H */
