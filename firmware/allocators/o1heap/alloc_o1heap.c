/*
 * alloc_o1heap.c - lab/alloc.h on o1heap (crate o1heap, pinned in deps/Cargo.toml; sources
 * used unmodified).
 *
 * o1heap (Pavel Kirienko) is a constant-time half-fit allocator: fragments are powers of
 * two, so malloc and free are O(1) and the worst-case fragmentation is bounded (its
 * README); every fragment carries O1HEAP_ALIGNMENT bytes of overhead (16 on 32-bit).
 * Its instance lives at the start of the region. On the target its assertions are off
 * (O1HEAP_ASSERT empty, as a release build); the host tests keep them.
 */
#include "lab/alloc.h"

#include "o1heap.h"

static O1HeapInstance *heap;

int lab_alloc_init(void *region, size_t size)
{
    heap = (region == NULL) ? NULL : o1heapInit(region, size);
    return heap == NULL ? -1 : 0;
}

void *lab_alloc_malloc(size_t size) { return o1heapAllocate(heap, size); }
void lab_alloc_free(void *ptr) { o1heapFree(heap, ptr); }

void lab_alloc_stats(struct lab_alloc_stats *out)
{
    O1HeapDiagnostics d = o1heapGetDiagnostics(heap);
    out->free_bytes = d.capacity - d.allocated;
    out->largest_free = 0;
}
