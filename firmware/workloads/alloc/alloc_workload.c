/*
 * alloc_workload.c - the allocation lab's workloads (alloc_workload.h). The measured path
 * is only what lies between a pair of probes: one allocator call.
 */
#include "alloc_workload.h"

#include "alloc_pipeline.h"
#include "lab/console.h"

/* The heap region every workload hands to the allocator (lab/alloc.h). */
uint8_t lab_alloc_region[LAB_ALLOC_HEAP_BYTES] __attribute__((aligned(64)));

#define SLOTS 2048u

/* 1: change one byte of the 100th block behind the allocator's back; the run must fail
 * (tests/e2e/test_alloc.py). */
#ifndef LAB_ALLOC_SABOTAGE
#define LAB_ALLOC_SABOTAGE 0
#endif

struct slot {
    uint8_t *p;      /* NULL: empty */
    uint32_t size;   /* requested bytes */
    uint32_t serial; /* pattern seed */
    uint32_t death;  /* mix: the step at which it is freed */
};

static struct slot slots[SLOTS];
static uint32_t rng_state;
static uint32_t next_serial = 1;
static uint32_t live_bytes;

static uint32_t rnd(void) /* xorshift32 (Marsaglia 2003); never 0 */
{
    uint32_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    rng_state = x;
    return x;
}

static uint8_t pattern(uint32_t serial, uint32_t i) { return (uint8_t)(serial * 167u + i * 13u + (i >> 8)); }

/* After a successful malloc of `size` into slot s: placement checks, then the pattern. */
static void take(struct slot *s, uint8_t *p, uint32_t size)
{
    LAB_CHECK(p >= lab_alloc_region && p + size <= lab_alloc_region + LAB_ALLOC_HEAP_BYTES);
    LAB_CHECK(((uintptr_t)p % LAB_ALLOC_ALIGN) == 0u);
    for (unsigned i = 0; i < SLOTS; i++) {
        const struct slot *o = &slots[i];
        LAB_CHECK(o == s || o->p == NULL || p >= o->p + o->size || o->p >= p + size);
    }
    s->p = p;
    s->size = size;
    s->serial = next_serial++;
    for (uint32_t i = 0; i < size; i++) {
        p[i] = pattern(s->serial, i);
    }
#if LAB_ALLOC_SABOTAGE
    if (s->serial == 100u) {
        p[size / 2u] ^= 0x5au; /* the test of the integrity check: one byte changed */
    }
#endif
    live_bytes += size;
}

/* Before freeing slot s: its pattern must be intact (a corrupted block fails the run). */
static void check_block(const struct slot *s)
{
    for (uint32_t i = 0; i < s->size; i++) {
        LAB_CHECK(s->p[i] == pattern(s->serial, i));
    }
}

static void release(struct slot *s)
{
    live_bytes -= s->size;
    s->p = NULL;
    s->size = 0;
}

static struct slot *empty_slot(void)
{
    for (unsigned i = 0; i < SLOTS; i++) {
        if (slots[i].p == NULL) {
            return &slots[i];
        }
    }
    lab_fail_status(LAB_EXIT_CHECK_FAILED, "alloc workload: more than 2048 live blocks");
}

static void put_kv2(const char *a, const char *b, uint32_t v)
{
    char key[48];
    unsigned n = 0;
    for (; *a != '\0' && n < sizeof key - 1u; a++) {
        key[n++] = *a;
    }
    for (; *b != '\0' && n < sizeof key - 1u; b++) {
        key[n++] = *b;
    }
    key[n] = '\0';
    lab_console_put_kv(key, v);
}

static void put_kv_size(const char *a, uint32_t size, const char *b, uint32_t v)
{
    char num[12];
    unsigned n = sizeof num - 1u;
    num[n] = '\0';
    do {
        num[--n] = (char)('0' + size % 10u);
        size /= 10u;
    } while (size != 0u && n > 0u);
    char key[48];
    unsigned k = 0;
    for (const char *c = a; *c != '\0' && k < sizeof key - 1u; c++) {
        key[k++] = *c;
    }
    for (const char *c = &num[n]; *c != '\0' && k < sizeof key - 1u; c++) {
        key[k++] = *c;
    }
    key[k] = '\0';
    put_kv2(key, b, v);
}

void alloc_wl_init(void)
{
    rng_state = LAB_ALLOC_SEED ? LAB_ALLOC_SEED : 1u;
    lab_console_put_kv("alloc_seed", LAB_ALLOC_SEED);
    lab_console_put_kv("alloc_heap_bytes", LAB_ALLOC_HEAP_BYTES);
    if (lab_alloc_init(lab_alloc_region, LAB_ALLOC_HEAP_BYTES) != 0) {
        lab_fail_status(LAB_EXIT_OUT_OF_MEMORY,
                        "allocator " LAB_ALLOC_NAME " refused the heap region (LAB_ALLOC_HEAP_BYTES too "
                        "small for it?): give a larger --define LAB_ALLOC_HEAP_BYTES");
    }
}

void alloc_wl_report_state(const char *tag)
{
    struct lab_alloc_stats st = {0, 0};
    lab_alloc_stats(&st);
#if LAB_ALLOC_HAS_FREE_BYTES
    put_kv2(tag, "_free_bytes", (uint32_t)st.free_bytes);
#endif
#if LAB_ALLOC_HAS_LARGEST_FREE
    put_kv2(tag, "_largest_free", (uint32_t)st.largest_free);
    put_kv2(tag, "_frag_permille",
            st.free_bytes ? (uint32_t)(1000u - (uint64_t)st.largest_free * 1000u / st.free_bytes) : 0u);
#endif
    (void)st;
}

/* One sweep size: `reps` malloc/free pairs with the probes of index k. */
#define SWEEP_ONE(k, sz)                                                                   \
    for (unsigned r = 0; r < reps; r++) {                                                  \
        struct slot *s = empty_slot();                                                     \
        LAB_PROBE(100 + 4 * (k));                                                          \
        uint8_t *p = lab_alloc_malloc(sz);                                                 \
        LAB_PROBE(101 + 4 * (k));                                                          \
        if (p == NULL) {                                                                   \
            failures++;                                                                    \
            continue;                                                                      \
        }                                                                                  \
        take(s, p, sz);                                                                    \
        check_block(s);                                                                    \
        LAB_PROBE(102 + 4 * (k));                                                          \
        lab_alloc_free(p);                                                                 \
        LAB_PROBE(103 + 4 * (k));                                                          \
        release(s);                                                                        \
    }

void alloc_wl_sweep(unsigned reps)
{
    uint32_t failures = 0;
    ALLOC_SWEEP_SIZES(SWEEP_ONE)
    lab_console_put_kv("sweep_failures", failures);
}

void alloc_wl_fragment(void)
{
    uint32_t holes = 0;
    const uint32_t target = (uint32_t)((uint64_t)LAB_ALLOC_HEAP_BYTES * LAB_ALLOC_FRAG_PERMILLE / 1000u);
    while (live_bytes + 1u <= target) { /* (not "<": target may be the constant 0) */
        struct slot *h = empty_slot();
        uint32_t hs = 16u + rnd() % 81u;
        uint8_t *p = lab_alloc_malloc(hs);
        if (p == NULL) {
            break;
        }
        take(h, p, hs);
        struct slot *k = empty_slot();
        uint32_t ks = 16u + rnd() % 81u;
        p = lab_alloc_malloc(ks);
        if (p == NULL) {
            break;
        }
        take(k, p, ks);
        k->death = 1u; /* keeper: stays */
        h->death = 0u;
    }
    for (unsigned i = 0; i < SLOTS; i++) {
        struct slot *s = &slots[i];
        if (s->p != NULL && s->death == 0u) {
            check_block(s);
            lab_alloc_free(s->p);
            release(s);
            holes++;
        }
    }
    lab_console_put_kv("frag_holes", holes);
    lab_console_put_kv("frag_live_bytes", live_bytes);
    alloc_wl_report_state("frag");
}

static uint32_t draw_size(enum alloc_dist dist)
{
    switch (dist) {
    case ALLOC_DIST_UNIFORM:
        return 8u + rnd() % 1017u;
    case ALLOC_DIST_EXPONENTIAL: {
        /* Exponential with mean 64 B, approximated without floating point: the number
         * of ln 2 steps (64 ln 2 = 44 B) is geometric with p = 1/2, exactly as for an
         * exponential; within a step the size is uniform (the exact density falls by
         * half across a step). */
        uint32_t s;
        do { /* cut at 512 B: redraw above */
            uint32_t e = 0;
            while ((rnd() & 1u) == 0u && e < 12u) {
                e++;
            }
            s = 44u * e + rnd() % 44u + 1u;
        } while (s > 512u);
        return s;
    }
    case ALLOC_DIST_BIMODAL:
    default:
        if (rnd() % 10u != 0u) {
            return 16u + rnd() % 49u;
        }
        return 1024u + rnd() % 3073u;
    }
}

static unsigned size_class(uint32_t size) { return size <= 64u ? 0u : size <= 512u ? 1u : 2u; }

/* malloc / free with the probes of size class c (a constant in each expansion). */
#define MIX_MALLOC(c, size, out)                                                           \
    do {                                                                                   \
        LAB_PROBE(300 + 4 * (c));                                                          \
        (out) = lab_alloc_malloc(size);                                                    \
        LAB_PROBE(301 + 4 * (c));                                                          \
    } while (0)
#define MIX_FREE(c, ptr)                                                                   \
    do {                                                                                   \
        LAB_PROBE(302 + 4 * (c));                                                          \
        lab_alloc_free(ptr);                                                               \
        LAB_PROBE(303 + 4 * (c));                                                          \
    } while (0)

static uint8_t *mix_malloc(uint32_t size)
{
    uint8_t *p;
    switch (size_class(size)) {
    case 0:
        MIX_MALLOC(0, size, p);
        break;
    case 1:
        MIX_MALLOC(1, size, p);
        break;
    default:
        MIX_MALLOC(2, size, p);
        break;
    }
    return p;
}

static void mix_free(struct slot *s)
{
    check_block(s);
    switch (size_class(s->size)) {
    case 0:
        MIX_FREE(0, s->p);
        break;
    case 1:
        MIX_FREE(1, s->p);
        break;
    default:
        MIX_FREE(2, s->p);
        break;
    }
    release(s);
}

static uint32_t used_bytes(void) /* heap bytes not free (payload + overhead) */
{
#if LAB_ALLOC_HAS_FREE_BYTES
    struct lab_alloc_stats st = {0, 0};
    lab_alloc_stats(&st);
    return (uint32_t)(LAB_ALLOC_HEAP_BYTES - st.free_bytes);
#else
    return live_bytes;
#endif
}

void alloc_wl_mix(enum alloc_dist dist, unsigned steps, unsigned max_life)
{
    uint32_t failures = 0, allocs = 0, peak = 0, frag_max = 0;
    for (uint32_t t = 1; t <= steps; t++) {
        for (unsigned i = 0; i < 64u; i++) {
            if (slots[i].p != NULL && slots[i].death <= t) {
                mix_free(&slots[i]);
            }
        }
        struct slot *s = NULL;
        for (unsigned i = 0; i < 64u && s == NULL; i++) {
            if (slots[i].p == NULL) {
                s = &slots[i];
            }
        }
        /* the request sequence does not depend on the allocator's answers */
        uint32_t size = draw_size(dist);
        uint32_t death = t + 1u + rnd() % max_life;
        if (s == NULL) {
            continue;
        }
        uint8_t *p = mix_malloc(size);
        if (p == NULL) {
            failures++;
            continue;
        }
        take(s, p, size);
        s->death = death;
        allocs++;
        if (t % 16u == 0u) {
            uint32_t used = used_bytes();
            peak = used > peak ? used : peak;
#if LAB_ALLOC_HAS_LARGEST_FREE
            struct lab_alloc_stats st = {0, 0};
            lab_alloc_stats(&st);
            uint32_t frag = st.free_bytes ? (uint32_t)(1000u - (uint64_t)st.largest_free * 1000u / st.free_bytes) : 0u;
            frag_max = frag > frag_max ? frag : frag_max;
#endif
        }
    }
    lab_console_put_kv("mix_allocs", allocs);
    lab_console_put_kv("mix_failures", failures);
    lab_console_put_kv("peak_used_bytes", peak);
#if LAB_ALLOC_HAS_LARGEST_FREE
    lab_console_put_kv("frag_permille_max", frag_max);
#endif
    (void)frag_max;
}

void alloc_wl_free_all(void)
{
    for (unsigned i = 0; i < SLOTS; i++) {
        if (slots[i].p != NULL) {
            check_block(&slots[i]);
            lab_alloc_free(slots[i].p);
            release(&slots[i]);
        }
    }
}

void alloc_wl_fill(size_t size)
{
    uint32_t count = 0;
    for (;;) {
        struct slot *s = empty_slot();
        uint8_t *p;
        LAB_PROBE(400);
        p = lab_alloc_malloc(size);
        LAB_PROBE(401);
        if (p == NULL) {
            break;
        }
        take(s, p, (uint32_t)size);
        count++;
    }
    LAB_PROBE(402);
    uint8_t *p = lab_alloc_malloc(size); /* the failure again, now on its own probes */
    LAB_PROBE(403);
    LAB_CHECK(p == NULL);
    put_kv_size("fill_", (uint32_t)size, "_count", count);
    put_kv_size("fill_", (uint32_t)size, "_permille",
                (uint32_t)((uint64_t)count * size * 1000u / LAB_ALLOC_HEAP_BYTES));
#if LAB_ALLOC_HAS_FREE_BYTES
    if (count != 0u) {
        put_kv_size("fill_", (uint32_t)size, "_overhead", (used_bytes() - count * (uint32_t)size) / count);
    }
#endif
    alloc_wl_free_all();
}

void alloc_wl_mix_to_failure(enum alloc_dist dist)
{
    uint32_t allocs = 0;
    for (;;) {
        if (rnd() % 3u == 0u) {
            unsigned i = rnd() % SLOTS;
            if (slots[i].p != NULL) {
                check_block(&slots[i]);
                lab_alloc_free(slots[i].p);
                release(&slots[i]);
            }
            continue;
        }
        struct slot *s = empty_slot();
        uint32_t size = draw_size(dist);
        uint8_t *p = lab_alloc_malloc(size);
        if (p == NULL) {
            break;
        }
        take(s, p, size);
        allocs++;
    }
    lab_console_put_kv("mix_fail_allocs", allocs);
    lab_console_put_kv("mix_fail_live_bytes", live_bytes);
    lab_console_put_kv("mix_fail_permille", (uint32_t)((uint64_t)live_bytes * 1000u / LAB_ALLOC_HEAP_BYTES));
    alloc_wl_report_state("mix_fail");
    alloc_wl_free_all();
}

#if LAB_ALLOC_HAS_REALLOC
void alloc_wl_realloc(void)
{
    struct slot *b[2] = {empty_slot(), NULL};
    uint32_t moves = 0;
    uint8_t *p = lab_alloc_malloc(16u);
    LAB_CHECK(p != NULL);
    take(b[0], p, 16u);
    b[1] = empty_slot();
    p = lab_alloc_malloc(16u);
    LAB_CHECK(p != NULL);
    take(b[1], p, 16u);
    for (int dir = 0; dir < 2; dir++) {
        for (unsigned step = 0; step < 2u * 84u; step++) {
            struct slot *s = b[step & 1u];
            uint32_t size = dir == 0 ? s->size + 48u : s->size - 48u;
            uint8_t *q;
            if (dir == 0) {
                LAB_PROBE(420);
                q = lab_alloc_realloc(s->p, size);
                LAB_PROBE(421);
            } else {
                LAB_PROBE(422);
                q = lab_alloc_realloc(s->p, size);
                LAB_PROBE(423);
            }
            LAB_CHECK(q != NULL); /* two blocks of at most 4 KiB fit the heap */
            moves += q != s->p;
            struct slot kept = *s;
            kept.p = q;
            kept.size = size < s->size ? size : s->size;
            check_block(&kept); /* the prefix realloc keeps */
            release(s);
            take(s, q, size);
        }
    }
    lab_console_put_kv("realloc_moves", moves);
    alloc_wl_free_all();
}
#endif

#if LAB_ALLOC_HAS_ALIGNED
void alloc_wl_aligned(void)
{
    for (uint32_t align = 16u; align <= 256u; align *= 2u) {
        for (unsigned r = 0; r < 20u; r++) {
            struct slot *s = empty_slot();
            uint8_t *p;
            LAB_PROBE(430);
            p = lab_alloc_aligned(align, 100u);
            LAB_PROBE(431);
            LAB_CHECK(p != NULL && ((uintptr_t)p % align) == 0u);
            take(s, p, 100u);
            check_block(s);
            LAB_PROBE(432);
            lab_alloc_free(p);
            LAB_PROBE(433);
            release(s);
        }
    }
}
#endif

void alloc_wl_replay(const uint32_t *trace)
{
    LAB_CHECK(trace[0] == ALLOC_TRACE_MAGIC && trace[1] == 1u && trace[3] <= ALLOC_TRACE_SLOTS);
    struct slot *map[ALLOC_TRACE_SLOTS] = {0};
    uint32_t failures = 0, peak = 0;
    for (uint32_t e = 0; e < trace[2]; e++) {
        uint32_t w = trace[4u + e];
        uint32_t id = (w >> 16) & 0x7FFFu;
        LAB_CHECK(id < ALLOC_TRACE_SLOTS);
        if (w & ALLOC_TRACE_FREE) {
            struct slot *s = map[id];
            map[id] = NULL;
            if (s == NULL) {
                continue; /* its malloc failed */
            }
            check_block(s);
            LAB_PROBE(442);
            lab_alloc_free(s->p);
            LAB_PROBE(443);
            release(s);
        } else {
            uint32_t size = w & 0xFFFFu;
            struct slot *s = empty_slot();
            uint8_t *p;
            LAB_CHECK(map[id] == NULL);
            LAB_PROBE(440);
            p = lab_alloc_malloc(size);
            LAB_PROBE(441);
            if (p == NULL) {
                failures++;
                continue;
            }
            take(s, p, size);
            map[id] = s;
        }
        if (e % 64u == 0u) {
            uint32_t used = used_bytes();
            peak = used > peak ? used : peak;
        }
    }
    lab_console_put_kv("replay_events", trace[2]);
    lab_console_put_kv("replay_failures", failures);
    lab_console_put_kv("peak_used_bytes", peak);
    alloc_wl_free_all();
}
