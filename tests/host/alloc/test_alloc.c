/*
 * test_alloc.c - randomised correctness test of one allocator behind lab/alloc.h, built
 * for the host with ASan/UBSan (tests/host/alloc/CMakeLists.txt).
 *
 * Checks: bad regions are refused; every block is inside the region, aligned to
 * LAB_ALLOC_ALIGN (or the requested alignment) and overlaps no live block; a block's
 * contents stay intact until it is freed (and across realloc up to the smaller size);
 * stats stay consistent (free bytes + live bytes <= region, largest <= free) and return
 * to their initial values once everything is freed; exhaustion returns NULL.
 * Usage: test_alloc [seed ...]. Environment LAB_ALLOC_TEST_SABOTAGE=1 corrupts one live
 * byte behind the allocator's back: the test must then fail.
 * Output: one line per seed, then "N passed, M failed".
 */
#include "lab/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint8_t lab_alloc_region[LAB_ALLOC_HEAP_BYTES] __attribute__((aligned(64)));

#define SLOTS 192
#define OPS 40000

struct slot {
    uint8_t *p;
    size_t size;
    uint32_t tag;
};

static struct slot slots[SLOTS];
static uint64_t rng;
static int sabotage;
static const char *failed_what;

static uint32_t rnd(void) /* xorshift64* */
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * 2685821657736338717ull) >> 32);
}

#define CHECK(c)                                                                      \
    do {                                                                              \
        if (!(c)) {                                                                   \
            failed_what = #c;                                                         \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);               \
            return 0;                                                                 \
        }                                                                             \
    } while (0)

static uint8_t pattern(uint32_t tag, size_t i) { return (uint8_t)(tag * 131u + i * 7u + (i >> 8)); }

static void fill(struct slot *s)
{
    for (size_t i = 0; i < s->size; i++) {
        s->p[i] = pattern(s->tag, i);
    }
}

static int intact(const struct slot *s, size_t upto)
{
    for (size_t i = 0; i < upto; i++) {
        if (s->p[i] != pattern(s->tag, i)) {
            return 0;
        }
    }
    return 1;
}

static size_t live_bytes(void)
{
    size_t n = 0;
    for (int i = 0; i < SLOTS; i++) {
        n += slots[i].p ? slots[i].size : 0;
    }
    return n;
}

/* p..p+size inside the region, aligned, and disjoint from every live block but `self`. */
static int placed_ok(const uint8_t *p, size_t size, size_t align, int self)
{
    if ((uintptr_t)p % align != 0) {
        return 0;
    }
    if (p < lab_alloc_region || p + size > lab_alloc_region + LAB_ALLOC_HEAP_BYTES) {
        return 0;
    }
    for (int i = 0; i < SLOTS; i++) {
        if (i == self || slots[i].p == NULL) {
            continue;
        }
        if (p < slots[i].p + slots[i].size && slots[i].p < p + size) {
            return 0;
        }
    }
    return 1;
}

static size_t random_size(void)
{
    uint32_t k = rnd() % 100u;
    if (k < 60u) {
        return 1u + rnd() % 64u; /* small */
    }
    if (k < 90u) {
        return 1u + rnd() % 512u; /* medium */
    }
    return 1u + rnd() % 4096u; /* large */
}

static int stats_ok(void)
{
    struct lab_alloc_stats st = {0, 0};
    lab_alloc_stats(&st);
#if LAB_ALLOC_HAS_FREE_BYTES
    CHECK(st.free_bytes + live_bytes() <= LAB_ALLOC_HEAP_BYTES);
#endif
#if LAB_ALLOC_HAS_LARGEST_FREE
    CHECK(st.largest_free <= st.free_bytes);
#endif
    return 1;
}

static int run_seed(uint64_t seed)
{
    memset(slots, 0, sizeof slots);
    rng = seed * 0x9E3779B97F4A7C15ull + 1u;
    uint32_t next_tag = 1;
    unsigned failures = 0;

#if LAB_ALLOC_HAS_ANY_REGION
    static uint8_t tiny[8] __attribute__((aligned(64)));
    CHECK(lab_alloc_init(tiny, sizeof tiny) != 0);
#else
    CHECK(lab_alloc_init(lab_alloc_region + 64, LAB_ALLOC_HEAP_BYTES - 64u) != 0);
#endif
    CHECK(lab_alloc_init(lab_alloc_region, LAB_ALLOC_HEAP_BYTES) == 0);
    struct lab_alloc_stats st0 = {0, 0};
    lab_alloc_stats(&st0);
#if LAB_ALLOC_HAS_FREE_BYTES
    CHECK(st0.free_bytes > LAB_ALLOC_HEAP_BYTES / 2u && st0.free_bytes <= LAB_ALLOC_HEAP_BYTES);
#endif

    for (int op = 0; op < OPS; op++) {
        int i = (int)(rnd() % SLOTS);
        struct slot *s = &slots[i];
        if (s->p == NULL) {
            size_t size = random_size();
            size_t align = LAB_ALLOC_ALIGN;
            uint8_t *p;
#if LAB_ALLOC_HAS_ALIGNED
            if (rnd() % 8u == 0) {
                align = (size_t)16u << (rnd() % 5u);
                p = lab_alloc_aligned(align, size);
            } else {
                p = lab_alloc_malloc(size);
            }
#else
            p = lab_alloc_malloc(size);
#endif
            if (p == NULL) {
                failures++;
                continue;
            }
            CHECK(placed_ok(p, size, align, i));
            s->p = p;
            s->size = size;
            s->tag = next_tag++;
            fill(s);
            if (sabotage && op == OPS / 2) {
                s->p[size / 2] ^= 0x5a; /* behind the allocator's back */
            }
        } else {
            CHECK(intact(s, s->size));
#if LAB_ALLOC_HAS_REALLOC
            if (rnd() % 4u == 0) {
                size_t size = random_size();
                uint8_t *p = lab_alloc_realloc(s->p, size);
                if (p == NULL) {
                    failures++;
                    CHECK(intact(s, s->size)); /* old block untouched */
                    continue;
                }
                size_t keep = size < s->size ? size : s->size;
                s->p = p;
                CHECK(intact(s, keep));
                s->size = size;
                CHECK(placed_ok(p, size, LAB_ALLOC_ALIGN, i));
                fill(s);
                continue;
            }
#endif
            lab_alloc_free(s->p);
            s->p = NULL;
        }
        if (op % 256 == 0 && !stats_ok()) {
            return 0;
        }
    }
    for (int i = 0; i < SLOTS; i++) {
        if (slots[i].p != NULL) {
            CHECK(intact(&slots[i], slots[i].size));
            lab_alloc_free(slots[i].p);
            slots[i].p = NULL;
        }
    }
    struct lab_alloc_stats st1 = {0, 0};
    lab_alloc_stats(&st1);
    CHECK(st1.free_bytes == st0.free_bytes);
    CHECK(st1.largest_free == st0.largest_free);

    /* exhaustion: 256-byte blocks until NULL; all inside, disjoint; then all back */
    int n = 0;
    while (n < SLOTS) {
        uint8_t *p = lab_alloc_malloc(256u);
        if (p == NULL) {
            break;
        }
        CHECK(placed_ok(p, 256u, LAB_ALLOC_ALIGN, n));
        slots[n].p = p;
        slots[n].size = 256u;
        slots[n].tag = next_tag++;
        fill(&slots[n]);
        n++;
    }
    CHECK(n > 0 && n < SLOTS); /* the 32 KiB heap holds fewer than 192 x 256 B */
    for (int i = 0; i < n; i++) {
        CHECK(intact(&slots[i], 256u));
        lab_alloc_free(slots[i].p);
        slots[i].p = NULL;
    }
    lab_alloc_stats(&st1);
    CHECK(st1.free_bytes == st0.free_bytes);
    printf("ok %s seed=%llu allocation_failures=%u blocks_of_256=%d\n", LAB_ALLOC_NAME,
           (unsigned long long)seed, failures, n);
    return 1;
}

int main(int argc, char **argv)
{
    const char *sab = getenv("LAB_ALLOC_TEST_SABOTAGE");
    sabotage = sab != NULL && strcmp(sab, "1") == 0;
    int passed = 0, failed = 0;
    static const uint64_t default_seeds[] = {1, 2, 3, 42, 20260};
    int nseeds = argc > 1 ? argc - 1 : (int)(sizeof default_seeds / sizeof default_seeds[0]);
    for (int k = 0; k < nseeds; k++) {
        uint64_t seed = argc > 1 ? strtoull(argv[k + 1], NULL, 10) : default_seeds[k];
        if (run_seed(seed)) {
            passed++;
        } else {
            printf("FAILED %s seed=%llu: %s\n", LAB_ALLOC_NAME, (unsigned long long)seed, failed_what);
            failed++;
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
