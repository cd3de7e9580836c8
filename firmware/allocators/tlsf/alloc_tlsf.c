/*
 * alloc_tlsf.c - a two-level segregated fit allocator (TLSF), written for rtoslab after the
 * algorithm published by M. Masmano, I. Ripoll, A. Crespo, J. Real, "TLSF: a new dynamic
 * memory allocator for real-time systems", ECRTS 2004 (the seed's reference [4,5]).
 *
 * Guarantees:
 * - malloc, free and aligned allocation run in bounded time independent of the number of
 *   blocks: no loop depends on heap state (a constant number of bitmap look-ups with
 *   count-leading/trailing-zeros, list heads, and at most two merges). Only
 *   lab_alloc_stats walks a list (the largest class) and is never on a measured path.
 * - Good fit: a request of n bytes is served from the first non-empty size class whose
 *   every block is >= n (n rounded up to the class's granularity), so internal waste is
 *   below 1/TLSF_SL_COUNT of the request plus the header.
 * - Payloads are aligned to TLSF_ALIGN (8) bytes; each block carries a header of two
 *   pointers (8 bytes on the Cortex-M, 16 on a 64-bit host).
 * - Adjacent free blocks are always merged (immediate coalescing).
 */
#include "lab/alloc.h"

#include <string.h>

#define TLSF_ALIGN_LOG2 3u
#define TLSF_ALIGN (1u << TLSF_ALIGN_LOG2)
#define TLSF_SL_LOG2 4u                      /* 16 second-level classes per power of two */
#define TLSF_SL_COUNT (1u << TLSF_SL_LOG2)
#define TLSF_FL_SHIFT (TLSF_SL_LOG2 + TLSF_ALIGN_LOG2) /* sizes < 128 B: linear classes */
#define TLSF_SMALL ((size_t)1 << TLSF_FL_SHIFT)
#define TLSF_FL_MAX 30u                      /* largest block < 1 GiB */
#define TLSF_FL_COUNT (TLSF_FL_MAX - TLSF_FL_SHIFT + 1u)

#define TLSF_FREE 1u      /* size bit 0: this block is free */
#define TLSF_PREV_FREE 2u /* size bit 1: the physically previous block is free */
#define TLSF_FLAGS 3u

/* A block: the header (prev_phys, size) precedes the payload; a free block's payload
 * starts with its free-list links. prev_phys is valid only while the previous block is
 * free (TLSF_PREV_FREE). */
struct tlsf_block {
    struct tlsf_block *prev_phys;
    size_t size; /* payload bytes (multiple of TLSF_ALIGN) | flags */
    struct tlsf_block *next_free;
    struct tlsf_block *prev_free;
};

#define TLSF_HDR (2u * sizeof(void *))                  /* bytes before the payload */
#define TLSF_MIN_PAYLOAD (2u * sizeof(void *))          /* room for the free links */

struct tlsf_control {
    uint32_t fl_bitmap;
    uint32_t sl_bitmap[TLSF_FL_COUNT];
    struct tlsf_block *heads[TLSF_FL_COUNT][TLSF_SL_COUNT];
    size_t free_bytes; /* sum of free payloads */
};

static struct tlsf_control *tlsf;

static unsigned tlsf_fls(size_t x) /* index of the highest set bit; x != 0 */
{
    return (unsigned)(sizeof(unsigned long) * 8u - 1u) - (unsigned)__builtin_clzl((unsigned long)x);
}

static unsigned tlsf_ffs(uint32_t x) /* index of the lowest set bit; x != 0 */
{
    return (unsigned)__builtin_ctz(x);
}

static size_t block_size(const struct tlsf_block *b) { return b->size & ~(size_t)TLSF_FLAGS; }
static uint8_t *block_payload(struct tlsf_block *b) { return (uint8_t *)b + TLSF_HDR; }
static struct tlsf_block *block_from_payload(void *p) { return (struct tlsf_block *)((uint8_t *)p - TLSF_HDR); }
static struct tlsf_block *block_next(struct tlsf_block *b)
{
    return (struct tlsf_block *)(block_payload(b) + block_size(b));
}

static void mapping(size_t size, unsigned *fl, unsigned *sl)
{
    if (size < TLSF_SMALL) {
        *fl = 0;
        *sl = (unsigned)(size / (TLSF_SMALL / TLSF_SL_COUNT));
    } else {
        unsigned f = tlsf_fls(size);
        *sl = (unsigned)(size >> (f - TLSF_SL_LOG2)) ^ TLSF_SL_COUNT;
        *fl = f - TLSF_FL_SHIFT + 1u;
    }
}

static void list_remove(struct tlsf_block *b, unsigned fl, unsigned sl)
{
    if (b->prev_free != NULL) {
        b->prev_free->next_free = b->next_free;
    } else {
        tlsf->heads[fl][sl] = b->next_free;
        if (b->next_free == NULL) {
            tlsf->sl_bitmap[fl] &= ~(1u << sl);
            if (tlsf->sl_bitmap[fl] == 0) {
                tlsf->fl_bitmap &= ~(1u << fl);
            }
        }
    }
    if (b->next_free != NULL) {
        b->next_free->prev_free = b->prev_free;
    }
    tlsf->free_bytes -= block_size(b);
}

static void list_insert(struct tlsf_block *b)
{
    unsigned fl, sl;
    mapping(block_size(b), &fl, &sl);
    b->prev_free = NULL;
    b->next_free = tlsf->heads[fl][sl];
    if (b->next_free != NULL) {
        b->next_free->prev_free = b;
    }
    tlsf->heads[fl][sl] = b;
    tlsf->sl_bitmap[fl] |= 1u << sl;
    tlsf->fl_bitmap |= 1u << fl;
    tlsf->free_bytes += block_size(b);
}

static void unlink_free(struct tlsf_block *b)
{
    unsigned fl, sl;
    mapping(block_size(b), &fl, &sl);
    list_remove(b, fl, sl);
}

/* Mark b free or used and tell its physical successor. */
static void set_free(struct tlsf_block *b, int free)
{
    struct tlsf_block *n = block_next(b);
    if (free) {
        b->size |= TLSF_FREE;
        n->size |= TLSF_PREV_FREE;
        n->prev_phys = b;
    } else {
        b->size &= ~(size_t)TLSF_FREE;
        n->size &= ~(size_t)TLSF_PREV_FREE;
    }
}

/* Cut b to `size` payload bytes if the rest can hold a block; the rest becomes free. */
static void split(struct tlsf_block *b, size_t size)
{
    size_t have = block_size(b);
    if (have < size + TLSF_HDR + TLSF_MIN_PAYLOAD) {
        return;
    }
    struct tlsf_block *rest = (struct tlsf_block *)(block_payload(b) + size);
    rest->size = have - size - TLSF_HDR;
    b->size = size | (b->size & TLSF_FLAGS);
    /* rest's predecessor is b, which is used at this point */
    set_free(rest, 1);
    /* merge rest with a free successor */
    struct tlsf_block *n = block_next(rest);
    if (n->size & TLSF_FREE) {
        unlink_free(n);
        rest->size += block_size(n) + TLSF_HDR;
        set_free(rest, 1);
    }
    list_insert(rest);
}

static size_t adjust(size_t size)
{
    if (size < TLSF_MIN_PAYLOAD) {
        size = TLSF_MIN_PAYLOAD;
    }
    return (size + TLSF_ALIGN - 1u) & ~(size_t)(TLSF_ALIGN - 1u);
}

/* A free block of at least size bytes (size already adjusted), unlinked; NULL if none. */
static struct tlsf_block *find_free(size_t size)
{
    size_t rounded = size;
    if (size >= TLSF_SMALL) {
        rounded += ((size_t)1 << (tlsf_fls(size) - TLSF_SL_LOG2)) - 1u;
    }
    unsigned fl, sl;
    mapping(rounded, &fl, &sl);
    if (fl >= TLSF_FL_COUNT) {
        return NULL;
    }
    uint32_t sl_map = tlsf->sl_bitmap[fl] & (~0u << sl);
    if (sl_map == 0) {
        uint32_t fl_map = (fl + 1u < 32u) ? (tlsf->fl_bitmap & (~0u << (fl + 1u))) : 0u;
        if (fl_map == 0) {
            return NULL;
        }
        fl = tlsf_ffs(fl_map);
        sl_map = tlsf->sl_bitmap[fl];
    }
    sl = tlsf_ffs(sl_map);
    struct tlsf_block *b = tlsf->heads[fl][sl];
    list_remove(b, fl, sl);
    return b;
}

int lab_alloc_init(void *region, size_t size)
{
    uintptr_t start = ((uintptr_t)region + TLSF_ALIGN - 1u) & ~(uintptr_t)(TLSF_ALIGN - 1u);
    uintptr_t end = ((uintptr_t)region + size) & ~(uintptr_t)(TLSF_ALIGN - 1u);
    size_t ctl = (sizeof(struct tlsf_control) + TLSF_ALIGN - 1u) & ~(size_t)(TLSF_ALIGN - 1u);
    if (region == NULL || end <= start || end - start < ctl + 2u * TLSF_HDR + TLSF_MIN_PAYLOAD) {
        return -1;
    }
    size_t payload = (size_t)(end - start) - ctl - 2u * TLSF_HDR; /* first block + sentinel */
    if (tlsf_fls(payload) >= TLSF_FL_MAX) {
        return -1;
    }
    tlsf = (struct tlsf_control *)start;
    memset(tlsf, 0, sizeof *tlsf);
    struct tlsf_block *first = (struct tlsf_block *)(start + ctl);
    first->prev_phys = NULL;
    first->size = payload;
    struct tlsf_block *sentinel = block_next(first);
    sentinel->size = 0; /* used, zero payload: stops merging at the end */
    set_free(first, 1);
    list_insert(first);
    return 0;
}

void *lab_alloc_malloc(size_t size)
{
    if (size == 0 || size > ((size_t)1 << TLSF_FL_MAX)) {
        return NULL;
    }
    size = adjust(size);
    struct tlsf_block *b = find_free(size);
    if (b == NULL) {
        return NULL;
    }
    set_free(b, 0);
    split(b, size);
    return block_payload(b);
}

void lab_alloc_free(void *ptr)
{
    if (ptr == NULL) {
        return;
    }
    struct tlsf_block *b = block_from_payload(ptr);
    if (b->size & TLSF_PREV_FREE) {
        struct tlsf_block *p = b->prev_phys;
        unlink_free(p);
        p->size += block_size(b) + TLSF_HDR;
        b = p;
    }
    struct tlsf_block *n = block_next(b);
    if (n->size & TLSF_FREE) {
        unlink_free(n);
        b->size += block_size(n) + TLSF_HDR;
    }
    set_free(b, 1);
    list_insert(b);
}

void *lab_alloc_realloc(void *ptr, size_t size)
{
    if (ptr == NULL) {
        return lab_alloc_malloc(size);
    }
    if (size == 0) {
        lab_alloc_free(ptr);
        return NULL;
    }
    struct tlsf_block *b = block_from_payload(ptr);
    size_t want = adjust(size);
    if (want <= block_size(b)) {
        split(b, want);
        return ptr;
    }
    void *p = lab_alloc_malloc(size);
    if (p != NULL) {
        memcpy(p, ptr, block_size(b));
        lab_alloc_free(ptr);
    }
    return p;
}

void *lab_alloc_aligned(size_t align, size_t size)
{
    if (align == 0 || (align & (align - 1u)) != 0) {
        return NULL;
    }
    if (align <= TLSF_ALIGN) {
        return lab_alloc_malloc(size);
    }
    if (size == 0 || size > ((size_t)1 << TLSF_FL_MAX) - align) {
        return NULL;
    }
    size = adjust(size);
    /* room for a leading free block (header + minimum payload) before the aligned payload */
    size_t gap_min = TLSF_HDR + TLSF_MIN_PAYLOAD;
    struct tlsf_block *b = find_free(size + align + gap_min);
    if (b == NULL) {
        return NULL;
    }
    uintptr_t p = (uintptr_t)block_payload(b);
    uintptr_t aligned = (p + align - 1u) & ~(uintptr_t)(align - 1u);
    if (aligned != p && aligned - p < gap_min) {
        /* leave room for the leading free block: aligned - p < gap_min + align */
        aligned = (p + gap_min + align - 1u) & ~(uintptr_t)(align - 1u);
    }
    if (aligned != p) {
        /* b keeps the leading bytes as a free block; the aligned block follows it */
        size_t lead = (size_t)(aligned - p) - TLSF_HDR;
        struct tlsf_block *a = (struct tlsf_block *)(aligned - TLSF_HDR);
        a->size = block_size(b) - lead - TLSF_HDR;
        b->size = lead | (b->size & TLSF_FLAGS);
        set_free(b, 1);   /* also sets a's PREV_FREE and prev_phys */
        list_insert(b);
        b = a;
    }
    set_free(b, 0);
    split(b, size);
    return block_payload(b);
}

void lab_alloc_stats(struct lab_alloc_stats *out)
{
    out->free_bytes = tlsf->free_bytes;
    out->largest_free = 0;
    if (tlsf->fl_bitmap == 0) {
        return;
    }
    unsigned fl = 31u - (unsigned)__builtin_clz(tlsf->fl_bitmap);
    unsigned sl = 31u - (unsigned)__builtin_clz(tlsf->sl_bitmap[fl]);
    for (struct tlsf_block *b = tlsf->heads[fl][sl]; b != NULL; b = b->next_free) {
        if (block_size(b) > out->largest_free) {
            out->largest_free = block_size(b);
        }
    }
}
