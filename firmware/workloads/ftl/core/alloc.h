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
 * Unverified free blocks: a block that merely looks erased at mount may be
 * the victim of an interrupted erase (cells weakly erased, not safely
 * programmable). Mount therefore puts such blocks in the pool flagged
 * "erase before use"; whoever opens one must erase it first
 * (ftl_alloc_prepare / ftl_alloc_erase_done). Blocks erased by format or
 * by GC are clean.
 *
 * Reserve: the host stream may not open a block while the pool holds
 * FTL_GC_RESERVE_BLOCKS or fewer free blocks; those are kept for GC so
 * that a reclaim can always complete.
 *
 * Static wear levelling (ftl_alloc_pick_cold) picks among the CLOSED blocks
 * by the erase counts of wear.h, as the pool choice does among free ones:
 * this module owns the block states, wear.c only the counts.
 *
 * RAM: 6 bytes per block plus a few words. Opening a block and the cold
 * pick scan all blocks (O(blocks)); everything else is O(1).
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

/* Puts a block that was just erased into the free pool (from CLOSED;
 * format, and after GC erased it). FTL_ERR_STATE if the block is an open
 * stream block. */
ftl_status_t ftl_alloc_release(uint32_t block);

/* Same, for a block that only looks erased (mount): it will be erased
 * again before its first page is handed out. */
ftl_status_t ftl_alloc_release_unverified(uint32_t block);

/* True if `block` must be erased before it is programmed. */
bool ftl_alloc_needs_erase(uint32_t block);

/* Marks a block CLOSED (mount: the block holds data). FTL_ERR_STATE if the
 * block is an open stream block. */
ftl_status_t ftl_alloc_set_closed(uint32_t block);

/* Mount: makes the CLOSED, partly written `block` the open block of
 * `stream` again, continuing at `next_page`. FTL_ERR_STATE if the stream
 * already has a block or the block is not CLOSED, FTL_ERR_PARAM if
 * next_page is not inside the block. */
ftl_status_t ftl_alloc_resume(ftl_stream_t stream, uint32_t block, uint32_t next_page);

/* State of a block (CLOSED for an out-of-range index). */
ftl_block_state_t ftl_alloc_state(uint32_t block);

/* Blocks in the free pool. */
uint32_t ftl_alloc_free_count(void);

/* Makes sure `stream` has an open block with room, opening one from the
 * pool if needed (the full block is closed). Returns FTL_BLOCK_NONE if
 * pages can be handed out now (or if the pool may not give a block, which
 * ftl_alloc_page then reports), or the newly opened block if it must be
 * erased first: erase it, then call ftl_alloc_erase_done(). */
uint32_t ftl_alloc_prepare(ftl_stream_t stream);

/* Records that an "erase before use" block has been erased. */
void ftl_alloc_erase_done(uint32_t block);

/* Next physical page of `stream`, in program order. Opens a new block from
 * the pool if the stream has none or its block is full (the full block is
 * closed). FTL_ERR_NOSPACE if a block is needed and the pool may not give
 * one to this stream (reserve rule above); FTL_ERR_STATE if the open block
 * still needs its erase (call ftl_alloc_prepare first); *ppn is unchanged
 * on error. */
ftl_status_t ftl_alloc_page(ftl_stream_t stream, uint32_t *ppn);

/* True if ftl_alloc_page(stream) would succeed now. */
bool ftl_alloc_can_write(ftl_stream_t stream);

/* Open block of a stream, FTL_BLOCK_NONE if none. */
uint32_t ftl_alloc_open_block(ftl_stream_t stream);

/* Static wear levelling: the CLOSED block with the smallest erase count
 * (lowest index on ties), if the largest erase count (wear.h) exceeds its
 * count by more than FTL_WL_THRESHOLD; FTL_BLOCK_NONE otherwise. Counts one
 * trigger when it returns a block. O(blocks). */
uint32_t ftl_alloc_pick_cold(void);

/* Times ftl_alloc_pick_cold() returned a block since ftl_alloc_init(). */
uint32_t ftl_alloc_wear_triggers(void);

/* Block age bookkeeping for the cost-benefit policy: the largest sequence
 * number programmed into the block (its youngest data). */
void ftl_alloc_note_seq(uint32_t block, uint32_t seq);
void ftl_alloc_set_last_seq(uint32_t block, uint32_t seq);
uint32_t ftl_alloc_last_seq(uint32_t block);

#endif /* FTL_ALLOC_H */
