/*
 * alloc_pool.c - a fixed-block memory pool (the ITRON / Thread-Metric style fixed-size
 * pool), the lab's baseline.
 *
 * Guarantees: the region is cut into blocks of LAB_ALLOC_POOL_BLOCK bytes (rounded up to
 * 8) at init; malloc pops the head of a singly linked free list and free pushes onto it,
 * both a constant handful of instructions whatever the heap state. A request larger than
 * one block fails (NULL). No fragmentation beyond the per-request waste (block - size).
 */
#include "lab/alloc.h"

#ifndef LAB_ALLOC_POOL_BLOCK
#define LAB_ALLOC_POOL_BLOCK 4096u /* bytes per block: covers the lab's 8 B .. 4 KiB sweep */
#endif
#define POOL_BLOCK ((LAB_ALLOC_POOL_BLOCK + 7u) & ~7u)

struct pool_free {
    struct pool_free *next;
};

static struct pool_free *pool_head;
static size_t pool_nfree;

int lab_alloc_init(void *region, size_t size)
{
    uintptr_t start = ((uintptr_t)region + 7u) & ~(uintptr_t)7u;
    uintptr_t end = (uintptr_t)region + size;
    if (region == NULL || end < start + POOL_BLOCK) {
        return -1;
    }
    pool_head = NULL;
    pool_nfree = 0;
    /* push from the top so the list hands out ascending addresses */
    size_t n = (size_t)(end - start) / POOL_BLOCK;
    for (size_t i = n; i-- > 0;) {
        struct pool_free *f = (struct pool_free *)(start + i * POOL_BLOCK);
        f->next = pool_head;
        pool_head = f;
        pool_nfree++;
    }
    return 0;
}

void *lab_alloc_malloc(size_t size)
{
    struct pool_free *f = pool_head;
    if (size == 0 || size > POOL_BLOCK || f == NULL) {
        return NULL;
    }
    pool_head = f->next;
    pool_nfree--;
    return f;
}

void lab_alloc_free(void *ptr)
{
    if (ptr == NULL) {
        return;
    }
    struct pool_free *f = ptr;
    f->next = pool_head;
    pool_head = f;
    pool_nfree++;
}

void lab_alloc_stats(struct lab_alloc_stats *out)
{
    out->free_bytes = pool_nfree * POOL_BLOCK;
    out->largest_free = pool_nfree ? POOL_BLOCK : 0u;
}
