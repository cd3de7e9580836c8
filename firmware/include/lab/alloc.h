/*
 * lab/alloc.h - the allocator seam: one interface over every allocator the allocation lab
 * measures (docs/allocation.md).
 *
 * An allocator is one folder firmware/allocators/<name>/ holding
 *   alloc.cmake        its sources (ours, strict warnings) and third-party sources (their
 *                      own warning level), includes and definitions;
 *   lab_alloc_caps.h   every LAB_ALLOC_HAS_* below, defined 0 (with the reason in a comment)
 *                      or 1, LAB_ALLOC_NAME and LAB_ALLOC_ALIGN;
 *   alloc_<name>.c     this header implemented on the allocator's own API, which is used
 *                      unmodified.
 * A build picks one with the preprocessor definition LAB_ALLOC=<name> (an experiment's
 * [matrix] defines axis); without it the build uses tlsf. The same folder builds for the
 * target and, for the correctness tests, for the host (tests/host/alloc/).
 *
 * Capabilities (0 or 1, checked with -Wundef):
 *   LAB_ALLOC_HAS_REALLOC      lab_alloc_realloc exists
 *   LAB_ALLOC_HAS_ALIGNED      lab_alloc_aligned exists
 *   LAB_ALLOC_HAS_FREE_BYTES   lab_alloc_stats fills free_bytes
 *   LAB_ALLOC_HAS_LARGEST_FREE lab_alloc_stats fills largest_free
 *   LAB_ALLOC_HAS_ANY_REGION   lab_alloc_init takes any region; 0: the allocator manages a
 *                              fixed array (FreeRTOS heap_4: lab_alloc_region below)
 *   LAB_ALLOC_HAS_REINIT       lab_alloc_init may be called again to start over with an
 *                              empty heap (newlib cannot: its state and break are global)
 * A benchmark that needs a capability lists it in its bench.toml `requires`; rtoslab reads
 * the build's allocator's lab_alloc_caps.h and reports the benchmark "n/a" with the reason
 * beside the 0, without building it (the benchmark also guards it with #error).
 *
 * Not thread-safe unless the caller locks: the lab measures locking strategies itself
 * (firmware/workloads/alloc/), so an allocator's own lock hooks are left empty where it
 * has any (FreeRTOS heap_4/5 suspend the scheduler, which is a no-op without tasks).
 */
#ifndef LAB_ALLOC_H
#define LAB_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#include "lab_alloc_caps.h" /* from firmware/allocators/<LAB_ALLOC>/ */

#if !defined(LAB_ALLOC_NAME) || !defined(LAB_ALLOC_ALIGN)
#error "lab_alloc_caps.h must define LAB_ALLOC_NAME and LAB_ALLOC_ALIGN"
#endif

/* Bytes of the heap region a workload hands to lab_alloc_init (a multiple of 64). */
#ifndef LAB_ALLOC_HEAP_BYTES
#define LAB_ALLOC_HEAP_BYTES 32768u
#endif

/* The region workloads use, LAB_ALLOC_HEAP_BYTES long and aligned to 64 bytes; defined by
 * the workload (or host test). Allocators without LAB_ALLOC_HAS_ANY_REGION manage it
 * directly. */
extern uint8_t lab_alloc_region[LAB_ALLOC_HEAP_BYTES];

struct lab_alloc_stats {
    size_t free_bytes;   /* bytes the allocator holds as free (payload or raw, per allocator) */
    size_t largest_free; /* the largest free block's bytes (0 without LARGEST_FREE) */
};

/* Take [region, region + size) as the heap. Returns 0, or -1 when the allocator cannot use
 * the region (too small, misaligned, not its fixed array); nothing is allocated then. */
int lab_alloc_init(void *region, size_t size);

/* size bytes aligned to at least LAB_ALLOC_ALIGN, or NULL when no block is free. size 0
 * may return NULL or a unique pointer. */
void *lab_alloc_malloc(size_t size);

/* Give back a block from lab_alloc_malloc/_realloc/_aligned; NULL is ignored. */
void lab_alloc_free(void *ptr);

#if LAB_ALLOC_HAS_REALLOC
/* Resize: contents kept up to the smaller size; NULL on failure (ptr still valid). */
void *lab_alloc_realloc(void *ptr, size_t size);
#endif

#if LAB_ALLOC_HAS_ALIGNED
/* size bytes at an address that is a multiple of align (a power of two); NULL on failure. */
void *lab_alloc_aligned(size_t align, size_t size);
#endif

/* Fill *out as far as the capabilities say (the rest 0). May walk the heap: never call it
 * on a measured path. */
void lab_alloc_stats(struct lab_alloc_stats *out);

#endif /* LAB_ALLOC_H */
