/*
 * alloc.h - block states, the free-block pool and the open write blocks.
 *
 * Every block is in one of three states:
 *   FREE    erased and unused; in the free pool
 *   OPEN    the current write block of a stream, filled page by page
 *   CLOSED  holds data (valid or not), or garbage; only GC can free it
 *
 * Two write streams have an open block each: HOST (data written by host
 * commands) and GC (pages copied by garbage collection and wear levelling).
 * Keeping them apart separates hot from cold data.
 *
 * Block choice (dynamic wear levelling): the host stream takes the free
 * block with the lowest erase count, the GC stream the one with the
 * highest (cold data rests on worn blocks). Ties go to the lowest index.
 *
 * Reserve: the host stream may not open a block while the pool holds
 * FTL_GC_RESERVE_BLOCKS or fewer free blocks; those are kept for GC so
 * that a reclaim can always complete.
 *
 * RAM: 5 bytes per block plus a few words. Opening a block scans the pool
 * (O(blocks)); everything else is O(1).
 */
#ifndef FTL_ALLOC_H
#define FTL_ALLOC_H

#include "ftl_types.h"

typedef enum {
    FTL_BLOCK_FREE = 0,
    FTL_BLOCK_OPEN,
    FTL_BLOCK_CLOSED
} ftl_block_state_t;

typedef enum {
    FTL_STREAM_HOST = 0,
    FTL_STREAM_GC,
    FTL_STREAM_COUNT
} ftl_stream_t;

/* Every block CLOSED (contents unknown), no open stream, empty pool. */
void ftl_alloc_init(void);

/* Puts an erased block into the free pool (from CLOSED; format, mount, and
 * after GC erased it). FTL_ERR_STATE if the block is an open stream block. */
ftl_status_t ftl_alloc_release(uint32_t block);

/* Marks a block CLOSED (mount: the block holds data). FTL_ERR_STATE if the
 * block is an open stream block. */
ftl_status_t ftl_alloc_set_closed(uint32_t block);

/* State of a block (CLOSED for an out-of-range index). */
ftl_block_state_t ftl_alloc_state(uint32_t block);

/* Blocks in the free pool. */
uint32_t ftl_alloc_free_count(void);

/* Next physical page of `stream`, in program order. Opens a new block from
 * the pool if the stream has none or its block is full (the full block is
 * closed). FTL_ERR_NOSPACE if a block is needed and the pool may not give
 * one to this stream (reserve rule above); *ppn is then unchanged. */
ftl_status_t ftl_alloc_page(ftl_stream_t stream, uint32_t *ppn);

/* True if ftl_alloc_page(stream) would succeed now. */
bool ftl_alloc_can_write(ftl_stream_t stream);

/* Open block of a stream, FTL_BLOCK_NONE if none. */
uint32_t ftl_alloc_open_block(ftl_stream_t stream);

/* Block age bookkeeping for the cost-benefit policy: the largest sequence
 * number programmed into the block (its youngest data). */
void ftl_alloc_note_seq(uint32_t block, uint32_t seq);
void ftl_alloc_set_last_seq(uint32_t block, uint32_t seq);
uint32_t ftl_alloc_last_seq(uint32_t block);

#endif /* FTL_ALLOC_H */
