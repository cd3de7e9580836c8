/*
 * alloc_pipeline.h - a packet/message pipeline whose allocations the allocation lab
 * records as a trace (traces/pipeline.trace) and replays on every allocator (a_replay).
 *
 * The model (deterministic, xorshift32 seeded): a receive stage takes a buffer for each
 * packet (90 %: 60..200 B, 10 %: 1024..1518 B); a parse stage allocates a 32..48 B
 * descriptor per packet and, for packets under 256 B, copies the payload into an
 * exact-size buffer and frees the receive buffer; a transmit queue holds up to 12
 * packets and frees the oldest (buffer and descriptor) when full; every 64 packets a
 * 512 B statistics block is allocated and the previous one freed.
 * The pipeline never looks at the allocator's answers: the request sequence is the same
 * on every allocator (recorded once, on the host).
 */
#ifndef ALLOC_PIPELINE_H
#define ALLOC_PIPELINE_H

#include <stdint.h>

/* Trace format (docs/allocation.md, "Trace replay"): a header of 4 words (magic
 * ALLOC_TRACE_MAGIC, version 1, event count, slots used), then one little-endian 32-bit
 * word per event: bit 31 = 1 free, 0 malloc; bits 30..16 = slot; bits 15..0 = size in bytes
 * (malloc; 0 for free). A slot names one live block from its malloc to its free. */
#define ALLOC_TRACE_MAGIC 0x5254414Cu /* "LATR" */
#define ALLOC_TRACE_FREE 0x80000000u
#define ALLOC_TRACE_SLOTS 64u

struct alloc_pipeline_ops {
    void (*malloc_slot)(void *ctx, uint32_t slot, uint32_t size);
    void (*free_slot)(void *ctx, uint32_t slot);
    void *ctx;
};

/* Run `packets` packets through the pipeline, then drain it (every block freed). */
void alloc_pipeline_run(const struct alloc_pipeline_ops *ops, uint32_t seed, uint32_t packets);

#endif /* ALLOC_PIPELINE_H */
