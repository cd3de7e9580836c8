/*
 * alloc_umm.c - lab/alloc.h on umm_malloc (crate umm-malloc-sys, pinned in deps/Cargo.toml;
 * sources used unmodified, configured by lab_umm_cfg.h).
 *
 * umm_malloc manages a heap of 8-byte blocks addressed by 15-bit indices (at most 32767
 * blocks, 256 KiB); each allocation carries a 4-byte header and is 4-byte aligned
 * (umm_malloc's README). Its free list is searched best-fit: malloc time grows with the
 * number of free blocks.
 */
#include "lab/alloc.h"

#include "umm_malloc.h"
#include "umm_malloc_cfg.h"

/* umm_init() (not used by the lab) refers to these; they name the lab's region. */
void *UMM_MALLOC_CFG_HEAP_ADDR = lab_alloc_region;
uint32_t UMM_MALLOC_CFG_HEAP_SIZE = LAB_ALLOC_HEAP_BYTES;

int lab_alloc_init(void *region, size_t size)
{
    /* 8-byte blocks, at most 32767 of them; at least a handful to be a heap */
    if (region == NULL || ((uintptr_t)region & 3u) != 0 || size < 64u || size / 8u > 32767u) {
        return -1;
    }
    umm_init_heap(region, size);
    return 0;
}

void *lab_alloc_malloc(size_t size) { return umm_malloc(size); }
void lab_alloc_free(void *ptr) { umm_free(ptr); }
void *lab_alloc_realloc(void *ptr, size_t size) { return umm_realloc(ptr, size); }

void lab_alloc_stats(struct lab_alloc_stats *out)
{
    out->free_bytes = umm_free_heap_size();
    out->largest_free = umm_max_free_block_size();
}
