/*
 * alloc_heap5.c - lab/alloc.h on FreeRTOS heap_5.c (FreeRTOS-Kernel V11.2.0 from the crate
 * freertos-next; unmodified, public names renamed by heap4/alloc.cmake).
 *
 * heap_5 is heap_4's first-fit, coalescing allocator over regions the application defines
 * with vPortDefineHeapRegions (FreeRTOS documentation, "Memory Management"); here one
 * region, the caller's. Payloads are portBYTE_ALIGNMENT (8) aligned.
 */
#include "lab/alloc.h"

#include "FreeRTOS.h"

/* The heap's own locks, renamed (heap4/alloc.cmake) to these empty hooks: the scheduler
 * lock of malloc/free and the critical section of vPortGetHeapStats. The lab applies its
 * lock strategies around the allocator itself. */
void lab_heap_lock(void);
BaseType_t lab_heap_unlock(void);
void lab_heap_critical_enter(void);
void lab_heap_critical_exit(void);
void lab_heap_lock(void) {}
BaseType_t lab_heap_unlock(void) { return pdFALSE; }
void lab_heap_critical_enter(void) {}
void lab_heap_critical_exit(void) {}

int lab_alloc_init(void *region, size_t size)
{
    /* heap_5 needs room for its start marker, one block and its end marker */
    if (region == NULL || size < 64u) {
        return -1;
    }
    HeapRegion_t regions[2] = {{(uint8_t *)region, size}, {NULL, 0}};
    vPortHeapResetState();
    vPortDefineHeapRegions(regions);
    return 0;
}

void *lab_alloc_malloc(size_t size) { return pvPortMalloc(size); }
void lab_alloc_free(void *ptr) { vPortFree(ptr); }

void lab_alloc_stats(struct lab_alloc_stats *out)
{
    HeapStats_t s;
    vPortGetHeapStats(&s);
    out->free_bytes = s.xAvailableHeapSpaceInBytes;
    out->largest_free = s.xSizeOfLargestFreeBlockInBytes;
}
