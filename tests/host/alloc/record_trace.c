/*
 * record_trace.c - records the allocation trace of the pipeline model
 * (firmware/workloads/alloc/alloc_pipeline.c) into the compact trace format of
 * alloc_pipeline.h. Usage: record_trace OUT.trace SEED PACKETS. Built and run by
 * scripts/alloc_trace.py (which writes firmware/workloads/alloc/traces/pipeline.trace).
 */
#include <stdio.h>
#include <stdlib.h>

#include "alloc_pipeline.h"

#define MAX_EVENTS 200000u

static uint32_t events[MAX_EVENTS];
static uint32_t n_events;
static uint32_t slots_seen;
static uint32_t live[ALLOC_TRACE_SLOTS];

static void put(uint32_t w)
{
    if (n_events == MAX_EVENTS) {
        fprintf(stderr, "record_trace: more than %u events\n", MAX_EVENTS);
        exit(1);
    }
    events[n_events++] = w;
}

static void rec_malloc(void *ctx, uint32_t slot, uint32_t size)
{
    (void)ctx;
    if (slot >= ALLOC_TRACE_SLOTS || live[slot] || size == 0u || size > 0xFFFFu) {
        fprintf(stderr, "record_trace: bad malloc event (slot %u, size %u)\n", slot, size);
        exit(1);
    }
    live[slot] = 1u;
    slots_seen = slot + 1u > slots_seen ? slot + 1u : slots_seen;
    put((slot << 16) | size);
}

static void rec_free(void *ctx, uint32_t slot)
{
    (void)ctx;
    if (slot >= ALLOC_TRACE_SLOTS || !live[slot]) {
        fprintf(stderr, "record_trace: free of a slot that is not live (%u)\n", slot);
        exit(1);
    }
    live[slot] = 0u;
    put(ALLOC_TRACE_FREE | (slot << 16));
}

static void put_le(FILE *f, uint32_t w)
{
    unsigned char b[4] = {(unsigned char)w, (unsigned char)(w >> 8), (unsigned char)(w >> 16),
                          (unsigned char)(w >> 24)};
    fwrite(b, 1, 4, f);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: record_trace OUT.trace SEED PACKETS\n");
        return 2;
    }
    struct alloc_pipeline_ops ops = {rec_malloc, rec_free, NULL};
    alloc_pipeline_run(&ops, (uint32_t)strtoul(argv[2], NULL, 10), (uint32_t)strtoul(argv[3], NULL, 10));
    for (uint32_t i = 0; i < ALLOC_TRACE_SLOTS; i++) {
        if (live[i]) {
            fprintf(stderr, "record_trace: slot %u still live at the end\n", i);
            return 1;
        }
    }
    FILE *f = fopen(argv[1], "wb");
    if (f == NULL) {
        perror(argv[1]);
        return 1;
    }
    put_le(f, ALLOC_TRACE_MAGIC);
    put_le(f, 1u);
    put_le(f, n_events);
    put_le(f, slots_seen);
    for (uint32_t i = 0; i < n_events; i++) {
        put_le(f, events[i]);
    }
    fclose(f);
    printf("%u events, %u slots\n", n_events, slots_seen);
    return 0;
}
