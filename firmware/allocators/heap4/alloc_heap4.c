/*
 * alloc_heap4.c - lab/alloc.h on FreeRTOS heap_4.c (FreeRTOS-Kernel V11.2.0 from the crate
 * freertos-next; unmodified, public names renamed by alloc.cmake).
 *
 * heap_4 is first fit over an address-ordered free list with coalescing of adjacent free
 * blocks (FreeRTOS documentation, "Memory Management"); malloc and free walk the list, so
 * their time grows with the number of free blocks. It manages one fixed array
 * (configAPPLICATION_ALLOCATED_HEAP): here the lab's region, lab_alloc_region. Payloads
 * are portBYTE_ALIGNMENT (8) aligned.
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
    if (region != (void *)lab_alloc_region || size != LAB_ALLOC_HEAP_BYTES) {
        return -1;
    }
    vPortHeapResetState();
    /* heap_4 builds its free list on the first malloc: do it here, not on a measured call */
    void *p = pvPortMalloc(1);
    if (p == NULL) {
        return -1;
    }
    vPortFree(p);
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
