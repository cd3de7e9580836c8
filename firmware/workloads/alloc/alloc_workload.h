/*
 * alloc_workload.h - the allocation lab's workloads (seed 004), shared by the a_*
 * benchmarks. Every workload drives the build's allocator through lab/alloc.h only; the
 * allocator's code is not changed: probes sit around the calls.
 *
 * Determinism: sizes, lifetimes and choices come from a xorshift32 generator seeded with
 * LAB_ALLOC_SEED (default 1); the seed is printed as LAB-KV alloc_seed.
 *
 * Integrity (on the target, every workload): each block handed out is checked to lie in
 * the heap region, to be aligned to LAB_ALLOC_ALIGN and to overlap no live block; it is
 * filled with a pattern derived from its serial number, and the whole pattern is checked
 * before it is freed. A corrupted block fails the run (LAB_CHECK). None of this is
 * between probes.
 *
 * Probe ids (all below 1024):
 *   sweep   100 + 4k .. 103 + 4k for size k of ALLOC_SWEEP_SIZES (malloc start/end,
 *           free start/end)
 *   mix     300 + 4c .. 303 + 4c for size class c (0 small <= 64 B, 1 medium <= 512 B,
 *           2 large)
 *   fill    400..403 (successful malloc, failing malloc)
 *   realloc 420..423 (grow, shrink); aligned 430..433 (allocation, free)
 *   replay  440..443 (malloc, free)
 */
#ifndef ALLOC_WORKLOAD_H
#define ALLOC_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "lab/alloc.h"
#include "lab/bench.h"

#ifndef LAB_ALLOC_SEED
#define LAB_ALLOC_SEED 1u
#endif

/* The sweep's request sizes in bytes: powers of two 8 .. 4096 and odd sizes between. */
#define ALLOC_SWEEP_SIZES(X)                                                               \
    X(0, 8) X(1, 13) X(2, 16) X(3, 32) X(4, 64) X(5, 100) X(6, 128) X(7, 256) X(8, 512)  \
    X(9, 1000) X(10, 1024) X(11, 2048) X(12, 3000) X(13, 4096)
#define ALLOC_SWEEP_COUNT 14

/* The sweep's metric records; a sweep benchmark expands this once. */
#define ALLOC_SWEEP_META_ONE(k, size)                                                      \
    LAB_INTERVAL(malloc_##size, 100 + 4 * (k), 101 + 4 * (k), "malloc(" #size ")");        \
    LAB_INTERVAL(free_##size, 102 + 4 * (k), 103 + 4 * (k), "free of a " #size " B block");
#define ALLOC_SWEEP_META() ALLOC_SWEEP_SIZES(ALLOC_SWEEP_META_ONE)

/* The random mix's metric records, per size class (a mix declares the classes its
 * distribution draws from: a class without samples would fail the run). */
#define ALLOC_MIX_META_SMALL()                                                             \
    LAB_INTERVAL(malloc_small, 300, 301, "malloc of 1..64 B");                             \
    LAB_INTERVAL(free_small, 302, 303, "free of a 1..64 B block");
#define ALLOC_MIX_META_MEDIUM()                                                            \
    LAB_INTERVAL(malloc_medium, 304, 305, "malloc of 65..512 B");                          \
    LAB_INTERVAL(free_medium, 306, 307, "free of a 65..512 B block");
#define ALLOC_MIX_META_LARGE()                                                             \
    LAB_INTERVAL(malloc_large, 308, 309, "malloc of more than 512 B");                     \
    LAB_INTERVAL(free_large, 310, 311, "free of a block of more than 512 B");

/* The fill-to-failure records. */
#define ALLOC_FILL_META()                                                                  \
    LAB_INTERVAL(malloc_ok, 400, 401, "a successful malloc while filling the heap");       \
    LAB_INTERVAL(malloc_fail, 402, 403, "the malloc that fails (heap full or fragmented)");

/* Realloc (LAB_ALLOC_HAS_REALLOC) and aligned allocation (LAB_ALLOC_HAS_ALIGNED). */
#define ALLOC_REALLOC_META()                                                               \
    LAB_INTERVAL(realloc_grow, 420, 421, "realloc to 48 B more (two blocks grown in turn)"); \
    LAB_INTERVAL(realloc_shrink, 422, 423, "realloc to 48 B less");
#define ALLOC_ALIGNED_META()                                                               \
    LAB_INTERVAL(aligned_malloc, 430, 431, "aligned allocation of 100 B, alignment 16..256"); \
    LAB_INTERVAL(aligned_free, 432, 433, "free of an aligned block");

/* Trace replay (a_replay). */
#define ALLOC_REPLAY_META()                                                                \
    LAB_INTERVAL(replay_malloc, 440, 441, "malloc of the recorded pipeline trace");        \
    LAB_INTERVAL(replay_free, 442, 443, "free of the recorded pipeline trace");

enum alloc_dist {
    ALLOC_DIST_UNIFORM,     /* 8 .. 1024 B, uniform */
    ALLOC_DIST_EXPONENTIAL, /* about exponential, mean 64 B, cut at 512 B (draw_size) */
    ALLOC_DIST_BIMODAL,     /* 90 %: 16 .. 64 B, 10 %: 1024 .. 4096 B */
};

/* Initialise the allocator over lab_alloc_region; a refusal ends the run with one line. */
void alloc_wl_init(void);

/* Size sweep: `reps` malloc/free pairs per size of ALLOC_SWEEP_SIZES on the heap as it is
 * (after alloc_wl_fragment: the fragmented heap). Failures: LAB-KV sweep_failures. */
void alloc_wl_sweep(unsigned reps);

/* How much of the heap alloc_wl_fragment hands out before freeing the holes, per mille
 * (default 250: a quarter, ~75 holes in 32 KiB); 0 leaves the heap empty. */
#ifndef LAB_ALLOC_FRAG_PERMILLE
#define LAB_ALLOC_FRAG_PERMILLE 250u
#endif

/* Fragment the heap deterministically: pairs (hole, keeper) of 16..96 B each until
 * LAB_ALLOC_FRAG_PERMILLE of the heap is handed out, then free the holes. Prints LAB-KV frag_holes and the heap's
 * state (alloc_wl_report_state). */
void alloc_wl_fragment(void);

/* Random mix: `steps` steps; blocks of the distribution's sizes live 1..`max_life` steps
 * (uniform), at most 64 at once. Prints LAB-KV mix_failures, peak_used_bytes,
 * frag_permille_min (largest free / free, worst seen), mix_allocs. */
void alloc_wl_mix(enum alloc_dist dist, unsigned steps, unsigned max_life);

/* Fill to failure: blocks of `size` bytes until malloc fails; prints fill_<size>_count,
 * fill_<size>_permille (bytes handed out per 1000 heap bytes) and
 * fill_<size>_overhead (heap bytes used per block beyond the request); frees them all. */
void alloc_wl_fill(size_t size);

/* Random mix (distribution dist) allocating twice as often as freeing until the first
 * failure: LAB-KV mix_fail_live_bytes, mix_fail_permille, mix_fail_allocs. */
void alloc_wl_mix_to_failure(enum alloc_dist dist);

#if LAB_ALLOC_HAS_REALLOC
/* Two blocks grown in turn by realloc from 16 B to 4 KiB in 48 B steps, then shrunk back;
 * contents checked after every call (the kept prefix intact). LAB-KV realloc_moves. */
void alloc_wl_realloc(void);
#endif

#if LAB_ALLOC_HAS_ALIGNED
/* 20 aligned allocations of 100 B at each alignment 16, 32, 64, 128, 256, each checked and
 * freed. */
void alloc_wl_aligned(void);
#endif

/* Replay a recorded trace (format: alloc_pipeline.h) on the allocator: every malloc and
 * free between probes, blocks checked as everywhere. A malloc that fails is counted and
 * its later free skipped. LAB-KV replay_events, replay_failures, peak_used_bytes. */
void alloc_wl_replay(const uint32_t *trace);

/* Free everything still live (checking each block). */
void alloc_wl_free_all(void);

/* LAB-KV free_bytes, largest_free, frag_permille where the allocator reports them. */
void alloc_wl_report_state(const char *tag);

#endif /* ALLOC_WORKLOAD_H */
