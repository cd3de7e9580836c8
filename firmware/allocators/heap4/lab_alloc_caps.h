/* Capabilities of heap4 (FreeRTOS heap_4, firmware/allocators/heap4): see lab/alloc.h. */
#ifndef LAB_ALLOC_CAPS_H
#define LAB_ALLOC_CAPS_H

#define LAB_ALLOC_NAME "heap4"
#define LAB_ALLOC_ALIGN 8u /* portBYTE_ALIGNMENT of the Cortex-M ports */

#define LAB_ALLOC_HAS_REALLOC 0 /* FreeRTOS heap_4 has no realloc */
#define LAB_ALLOC_HAS_ALIGNED 0 /* FreeRTOS heap_4 has no aligned allocation */
#define LAB_ALLOC_HAS_FREE_BYTES 1   /* vPortGetHeapStats */
#define LAB_ALLOC_HAS_LARGEST_FREE 1 /* vPortGetHeapStats (walks the free list) */
#define LAB_ALLOC_HAS_ANY_REGION 0   /* heap_4 manages one fixed array: lab_alloc_region */
#define LAB_ALLOC_HAS_REINIT 1       /* vPortHeapResetState */

#endif /* LAB_ALLOC_CAPS_H */
