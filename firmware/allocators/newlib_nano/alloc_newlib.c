/*
 * alloc_newlib.c - lab/alloc.h on the C library's malloc as the toolchain ships it:
 * newlib-nano's (allocators/newlib_nano) or newlib's full dlmalloc-derived one
 * (allocators/newlib, the same file linked with newlib's malloc objects). Shared by both
 * folders; target only (the libraries are prebuilt for ARM, so there is no host build).
 *
 * Both take memory from _sbrk, defined here over the caller's region: the break starts
 * at the region and never passes its end (then _sbrk fails with ENOMEM and malloc
 * returns NULL). The allocator's state is global and the break only grows, so the heap
 * cannot be started over (LAB_ALLOC_HAS_REINIT 0). The libraries' __malloc_lock hooks are
 * the toolchain's (empty without an RTOS that provides them).
 */
#include "lab/alloc.h"

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>

static uint8_t *brk_start;
static uint8_t *brk_cur;
static uint8_t *brk_end;

void *_sbrk(ptrdiff_t incr);

void *_sbrk(ptrdiff_t incr)
{
    if (brk_cur == NULL || incr > brk_end - brk_cur || incr < brk_start - brk_cur) {
        errno = ENOMEM;
        return (void *)-1;
    }
    uint8_t *old = brk_cur;
    brk_cur += incr;
    return old;
}

int lab_alloc_init(void *region, size_t size)
{
    if (region == NULL || brk_cur != NULL || size < 256u) {
        return -1; /* once only: newlib's heap cannot be started over */
    }
    brk_cur = (uint8_t *)(((uintptr_t)region + 7u) & ~(uintptr_t)7u);
    brk_start = brk_cur;
    brk_end = (uint8_t *)region + size;
    return 0;
}

void *lab_alloc_malloc(size_t size) { return malloc(size); }
void lab_alloc_free(void *ptr) { free(ptr); }
void *lab_alloc_realloc(void *ptr, size_t size) { return realloc(ptr, size); }
void *lab_alloc_aligned(size_t align, size_t size) { return memalign(align, size); }

void lab_alloc_stats(struct lab_alloc_stats *out)
{
    struct mallinfo mi = mallinfo();
    out->free_bytes = (size_t)mi.fordblks + (size_t)(brk_end - brk_cur);
    out->largest_free = 0;
}
