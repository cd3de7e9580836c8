/*
 * alloc_pipeline.c - the pipeline model of alloc_pipeline.h. Only slot bookkeeping: the
 * blocks themselves belong to whoever implements the ops (the host recorder, or a_replay).
 */
#include "alloc_pipeline.h"

#define TXQ 12u

struct pkt {
    uint32_t buf;  /* slot of the payload buffer */
    uint32_t desc; /* slot of the descriptor */
};

static uint32_t pl_rng;

static uint32_t pl_rnd(void)
{
    uint32_t x = pl_rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    pl_rng = x;
    return x;
}

static uint8_t slot_used[ALLOC_TRACE_SLOTS];

static uint32_t slot_take(void)
{
    for (uint32_t i = 0; i < ALLOC_TRACE_SLOTS; i++) {
        if (!slot_used[i]) {
            slot_used[i] = 1u;
            return i;
        }
    }
    return ALLOC_TRACE_SLOTS; /* never: the model holds at most 2 x 12 + 3 blocks */
}

static uint32_t pl_malloc(const struct alloc_pipeline_ops *ops, uint32_t size)
{
    uint32_t s = slot_take();
    ops->malloc_slot(ops->ctx, s, size);
    return s;
}

static void pl_free(const struct alloc_pipeline_ops *ops, uint32_t slot)
{
    ops->free_slot(ops->ctx, slot);
    slot_used[slot] = 0u;
}

void alloc_pipeline_run(const struct alloc_pipeline_ops *ops, uint32_t seed, uint32_t packets)
{
    struct pkt txq[TXQ];
    uint32_t head = 0, count = 0, stats = ALLOC_TRACE_SLOTS;
    pl_rng = seed ? seed : 1u;
    for (uint32_t i = 0; i < ALLOC_TRACE_SLOTS; i++) {
        slot_used[i] = 0u;
    }
    for (uint32_t n = 0; n < packets; n++) {
        uint32_t len = (pl_rnd() % 10u == 0u) ? 1024u + pl_rnd() % 495u : 60u + pl_rnd() % 141u;
        struct pkt p;
        p.buf = pl_malloc(ops, len);                   /* receive */
        p.desc = pl_malloc(ops, 32u + pl_rnd() % 17u); /* parse: descriptor */
        if (len < 256u) {                              /* parse: copy small payloads */
            uint32_t copy = pl_malloc(ops, len);
            pl_free(ops, p.buf);
            p.buf = copy;
        }
        if (count == TXQ) { /* transmit: the oldest leaves */
            pl_free(ops, txq[head].buf);
            pl_free(ops, txq[head].desc);
            head = (head + 1u) % TXQ;
            count--;
        }
        txq[(head + count) % TXQ] = p;
        count++;
        if (n % 64u == 63u) { /* statistics block */
            uint32_t s = pl_malloc(ops, 512u);
            if (stats != ALLOC_TRACE_SLOTS) {
                pl_free(ops, stats);
            }
            stats = s;
        }
    }
    while (count > 0u) {
        pl_free(ops, txq[head].buf);
        pl_free(ops, txq[head].desc);
        head = (head + 1u) % TXQ;
        count--;
    }
    if (stats != ALLOC_TRACE_SLOTS) {
        pl_free(ops, stats);
    }
}
