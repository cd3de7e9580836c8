/*
 * alloc.c - free pool, block states and open write blocks (see alloc.h).
 */
#include "alloc.h"

#include "wear.h"

typedef struct {
    uint32_t block;     /* open block, FTL_BLOCK_NONE if none */
    uint32_t next_page; /* next page to hand out in that block */
} alloc_stream_t;

static uint8_t s_state[FTL_NAND_BLOCKS];       /* ftl_block_state_t */
static uint8_t s_needs_erase[FTL_NAND_BLOCKS]; /* 1: erase before use */
static uint32_t s_last_seq[FTL_NAND_BLOCKS];
static uint32_t s_free_count;
static alloc_stream_t s_stream[FTL_STREAM_COUNT];
static uint32_t s_wear_triggers;

void ftl_alloc_init(void)
{
    for (uint32_t b = 0; b < FTL_NAND_BLOCKS; b++) {
        s_state[b] = (uint8_t)FTL_BLOCK_CLOSED;
        s_needs_erase[b] = 0u;
        s_last_seq[b] = 0u;
    }
    s_free_count = 0u;
    s_wear_triggers = 0u;
    for (uint32_t s = 0; s < FTL_STREAM_COUNT; s++) {
        s_stream[s].block = FTL_BLOCK_NONE;
        s_stream[s].next_page = 0u;
    }
}

static ftl_status_t release(uint32_t block, bool verified)
{
    if (block >= FTL_NAND_BLOCKS) {
        return FTL_ERR_PARAM;
    }
    switch ((ftl_block_state_t)s_state[block]) {
    case FTL_BLOCK_OPEN:
        return FTL_ERR_STATE;
    case FTL_BLOCK_FREE:
        break;
    case FTL_BLOCK_CLOSED:
    default:
        s_state[block] = (uint8_t)FTL_BLOCK_FREE;
        s_free_count++;
        break;
    }
    s_needs_erase[block] = (uint8_t)(verified ? 0u : 1u);
    s_last_seq[block] = 0u;
    return FTL_OK;
}

ftl_status_t ftl_alloc_release(uint32_t block)
{
    return release(block, true);
}

ftl_status_t ftl_alloc_release_unverified(uint32_t block)
{
    return release(block, false);
}

bool ftl_alloc_needs_erase(uint32_t block)
{
    return block < FTL_NAND_BLOCKS && s_needs_erase[block] != 0u;
}

void ftl_alloc_erase_done(uint32_t block)
{
    if (block < FTL_NAND_BLOCKS) {
        s_needs_erase[block] = 0u;
    }
}

ftl_status_t ftl_alloc_set_closed(uint32_t block)
{
    if (block >= FTL_NAND_BLOCKS) {
        return FTL_ERR_PARAM;
    }
    switch ((ftl_block_state_t)s_state[block]) {
    case FTL_BLOCK_OPEN:
        return FTL_ERR_STATE;
    case FTL_BLOCK_FREE:
        s_free_count--;
        break;
    case FTL_BLOCK_CLOSED:
    default:
        break;
    }
    s_state[block] = (uint8_t)FTL_BLOCK_CLOSED;
    return FTL_OK;
}

ftl_status_t ftl_alloc_resume(ftl_stream_t stream, uint32_t block, uint32_t next_page)
{
    if ((uint32_t)stream >= FTL_STREAM_COUNT || block >= FTL_NAND_BLOCKS ||
        next_page >= FTL_NAND_PAGES_PER_BLOCK) {
        return FTL_ERR_PARAM;
    }
    alloc_stream_t *st = &s_stream[stream];
    if (st->block != FTL_BLOCK_NONE || s_state[block] != (uint8_t)FTL_BLOCK_CLOSED) {
        return FTL_ERR_STATE;
    }
    s_state[block] = (uint8_t)FTL_BLOCK_OPEN;
    st->block = block;
    st->next_page = next_page;
    return FTL_OK;
}

ftl_block_state_t ftl_alloc_state(uint32_t block)
{
    if (block >= FTL_NAND_BLOCKS) {
        return FTL_BLOCK_CLOSED;
    }
    return (ftl_block_state_t)s_state[block];
}

uint32_t ftl_alloc_free_count(void)
{
    return s_free_count;
}

/* Free blocks `stream` may still take out of the pool. */
static bool pool_allows(ftl_stream_t stream)
{
    if (stream == FTL_STREAM_HOST) {
        return s_free_count > FTL_GC_RESERVE_BLOCKS;
    }
    return s_free_count > 0u;
}

/* Free block for `stream`: least worn for the host, most worn for GC;
 * lowest index on ties. FTL_BLOCK_NONE if the pool is empty. */
static uint32_t pool_choose(ftl_stream_t stream)
{
    uint32_t best = FTL_BLOCK_NONE;
    uint32_t best_ec = 0u;
    for (uint32_t b = 0; b < FTL_NAND_BLOCKS; b++) {
        if (s_state[b] != (uint8_t)FTL_BLOCK_FREE) {
            continue;
        }
        uint32_t ec = ftl_wear_count(b);
        bool better;
        if (best == FTL_BLOCK_NONE) {
            better = true;
        } else if (stream == FTL_STREAM_HOST) {
            better = ec < best_ec;
        } else {
            better = ec > best_ec;
        }
        if (better) {
            best = b;
            best_ec = ec;
        }
    }
    return best;
}

uint32_t ftl_alloc_pick_cold(void)
{
    uint32_t max = 0u;
    uint32_t cold = FTL_BLOCK_NONE;
    uint32_t cold_count = UINT32_MAX;
    for (uint32_t b = 0; b < FTL_NAND_BLOCKS; b++) {
        uint32_t ec = ftl_wear_count(b);
        if (ec > max) {
            max = ec;
        }
        if (s_state[b] == (uint8_t)FTL_BLOCK_CLOSED && ec < cold_count) {
            cold_count = ec;
            cold = b;
        }
    }
    if (cold == FTL_BLOCK_NONE || max - cold_count <= FTL_WL_THRESHOLD) {
        return FTL_BLOCK_NONE;
    }
    s_wear_triggers++;
    return cold;
}

uint32_t ftl_alloc_wear_triggers(void)
{
    return s_wear_triggers;
}

static bool stream_has_room(const alloc_stream_t *st)
{
    return st->block != FTL_BLOCK_NONE && st->next_page < FTL_NAND_PAGES_PER_BLOCK;
}

bool ftl_alloc_can_write(ftl_stream_t stream)
{
    if ((uint32_t)stream >= FTL_STREAM_COUNT) {
        return false;
    }
    return stream_has_room(&s_stream[stream]) || pool_allows(stream);
}

/* Gives `st` a new block from the pool, closing its full one. False if the
 * pool may not give a block to this stream. */
static bool stream_open(ftl_stream_t stream, alloc_stream_t *st)
{
    if (st->block != FTL_BLOCK_NONE) {
        /* Full: close it so that GC may pick it. */
        s_state[st->block] = (uint8_t)FTL_BLOCK_CLOSED;
        st->block = FTL_BLOCK_NONE;
    }
    if (!pool_allows(stream)) {
        return false;
    }
    uint32_t b = pool_choose(stream);
    if (b == FTL_BLOCK_NONE) {
        return false;
    }
    s_state[b] = (uint8_t)FTL_BLOCK_OPEN;
    s_free_count--;
    st->block = b;
    st->next_page = 0u;
    return true;
}

uint32_t ftl_alloc_prepare(ftl_stream_t stream)
{
    if ((uint32_t)stream >= FTL_STREAM_COUNT) {
        return FTL_BLOCK_NONE;
    }
    alloc_stream_t *st = &s_stream[stream];
    if (!stream_has_room(st) && !stream_open(stream, st)) {
        return FTL_BLOCK_NONE;
    }
    return s_needs_erase[st->block] != 0u ? st->block : FTL_BLOCK_NONE;
}

ftl_status_t ftl_alloc_page(ftl_stream_t stream, uint32_t *ppn)
{
    if ((uint32_t)stream >= FTL_STREAM_COUNT || ppn == NULL) {
        return FTL_ERR_PARAM;
    }
    alloc_stream_t *st = &s_stream[stream];
    if (!stream_has_room(st) && !stream_open(stream, st)) {
        return FTL_ERR_NOSPACE;
    }
    if (s_needs_erase[st->block] != 0u) {
        return FTL_ERR_STATE;
    }
    *ppn = FTL_PPN_MAKE(st->block, st->next_page);
    st->next_page++;
    return FTL_OK;
}

uint32_t ftl_alloc_open_block(ftl_stream_t stream)
{
    if ((uint32_t)stream >= FTL_STREAM_COUNT) {
        return FTL_BLOCK_NONE;
    }
    return s_stream[stream].block;
}

void ftl_alloc_note_seq(uint32_t block, uint32_t seq)
{
    if (block < FTL_NAND_BLOCKS && seq > s_last_seq[block]) {
        s_last_seq[block] = seq;
    }
}

void ftl_alloc_set_last_seq(uint32_t block, uint32_t seq)
{
    if (block < FTL_NAND_BLOCKS) {
        s_last_seq[block] = seq;
    }
}

uint32_t ftl_alloc_last_seq(uint32_t block)
{
    return block < FTL_NAND_BLOCKS ? s_last_seq[block] : 0u;
}
