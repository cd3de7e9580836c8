/*
 * nand_sim.c - RAM-backed NAND simulator (see nand_sim.h for the rules).
 *
 * State per block: a write pointer (the only page that may be programmed
 * next) and a physical erase count. "Program only erased pages" and
 * "program pages in order" are both the single check page == write
 * pointer; a block whose erase was torn gets its write pointer set to the
 * end so nothing can be programmed into it before a full erase.
 */
#include "nand_sim.h"

#include <string.h>

#include "rand.h"

/* Page data and spare records. The two big arrays may be placed by the
 * linker via FTL_NAND_STORAGE_ATTR. */
static uint8_t s_data[FTL_NAND_TOTAL_PAGES][FTL_NAND_PAGE_SIZE] FTL_NAND_STORAGE_ATTR;
static ftl_nand_spare_t s_spare[FTL_NAND_TOTAL_PAGES] FTL_NAND_STORAGE_ATTR;

typedef struct {
    uint32_t erase_count; /* physical erases of this block */
    uint16_t write_ptr;   /* next programmable page, PAGES_PER_BLOCK = none */
} nand_block_t;

static nand_block_t s_block[FTL_NAND_BLOCKS];

/* Power-cut injection state. */
static struct {
    bool armed;                 /* a cut is pending */
    bool powered;               /* false after a cut until restore */
    ftl_nand_cut_mode_t mode;   /* what the cut operation leaves behind */
    uint32_t countdown;         /* mutating ops left until the cut (1 = next) */
    uint32_t prng;              /* garbage generator for torn erases */
} s_power;

static uint32_t s_mutations;
static ftl_nand_stats_t s_stats;

/* Seed of the torn-erase garbage: fixed, so a cut run is reproducible. */
#define NAND_GARBAGE_SEED 0x6D2B79F5u

void ftl_nand_factory_reset(void)
{
    memset(s_data, 0xFF, sizeof s_data);
    memset(s_spare, 0xFF, sizeof s_spare);
    for (uint32_t b = 0; b < FTL_NAND_BLOCKS; b++) {
        s_block[b].erase_count = 0u;
        s_block[b].write_ptr = 0u;
    }
    s_power.armed = false;
    s_power.powered = true;
    s_power.mode = FTL_NAND_CUT_BEFORE;
    s_power.countdown = 0u;
    s_power.prng = NAND_GARBAGE_SEED;
    s_mutations = 0u;
    memset(&s_stats, 0, sizeof s_stats);
}

/* Called at the start of every mutating operation that passed argument
 * checks. Returns true if this operation is the one to cut; the caller
 * then applies s_power.mode and reports FTL_NAND_ERR_POWER. */
static bool power_cut_now(void)
{
    s_mutations++;
    if (!s_power.armed) {
        return false;
    }
    if (--s_power.countdown != 0u) {
        return false;
    }
    s_power.armed = false;
    s_power.powered = false;
    s_stats.power_fails++;
    return true;
}

ftl_nand_status_t ftl_nand_read(uint32_t ppn, uint8_t *data, ftl_nand_spare_t *spare)
{
    if (ppn >= FTL_NAND_TOTAL_PAGES) {
        s_stats.rejected++;
        return FTL_NAND_ERR_RANGE;
    }
    if (!s_power.powered) {
        s_stats.power_fails++;
        return FTL_NAND_ERR_POWER;
    }
    if (data != NULL) {
        memcpy(data, s_data[ppn], FTL_NAND_PAGE_SIZE);
        s_stats.reads++;
    } else {
        s_stats.spare_reads++;
    }
    if (spare != NULL) {
        *spare = s_spare[ppn];
    }
    return FTL_NAND_OK;
}

/* Torn program: half of the data and the first two spare words reach the
 * cells; everything else stays erased. */
static void program_torn(uint32_t ppn, const uint8_t *data, const ftl_nand_spare_t *spare)
{
    memcpy(s_data[ppn], data, FTL_NAND_PAGE_SIZE / 2u);
    s_spare[ppn].lpn = spare->lpn;
    s_spare[ppn].seq = spare->seq;
}

ftl_nand_status_t ftl_nand_program(uint32_t ppn, const uint8_t *data,
                                   const ftl_nand_spare_t *spare)
{
    if (ppn >= FTL_NAND_TOTAL_PAGES || data == NULL || spare == NULL) {
        s_stats.rejected++;
        return FTL_NAND_ERR_RANGE;
    }
    if (!s_power.powered) {
        s_stats.power_fails++;
        return FTL_NAND_ERR_POWER;
    }
    nand_block_t *blk = &s_block[FTL_PPN_BLOCK(ppn)];
    uint32_t page = FTL_PPN_PAGE(ppn);
    if (page < blk->write_ptr) {
        s_stats.rejected++;
        return FTL_NAND_ERR_NOT_ERASED;
    }
    if (page > blk->write_ptr) {
        s_stats.rejected++;
        return FTL_NAND_ERR_ORDER;
    }
    if (power_cut_now()) {
        if (s_power.mode == FTL_NAND_CUT_BEFORE) {
            return FTL_NAND_ERR_POWER;
        }
        blk->write_ptr = (uint16_t)(page + 1u);
        if (s_power.mode == FTL_NAND_CUT_TORN) {
            program_torn(ppn, data, spare);
        } else {
            memcpy(s_data[ppn], data, FTL_NAND_PAGE_SIZE);
            s_spare[ppn] = *spare;
        }
        return FTL_NAND_ERR_POWER;
    }
    memcpy(s_data[ppn], data, FTL_NAND_PAGE_SIZE);
    s_spare[ppn] = *spare;
    blk->write_ptr = (uint16_t)(page + 1u);
    s_stats.programs++;
    return FTL_NAND_OK;
}

/* Sets random bits in `len` bytes: cells caught half-way through an erase
 * drift towards 1 but not all the way. */
static void partially_erase(uint8_t *p, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        p[i] = (uint8_t)(p[i] | (uint8_t)ftl_rand_xorshift32(&s_power.prng));
    }
}

/* Torn erase: the first half of the pages is erased, the second half is
 * left partially erased; the block must be erased again before use. */
static void erase_torn(uint32_t block)
{
    uint32_t first = FTL_PPN_MAKE(block, 0u);
    uint32_t half = FTL_NAND_PAGES_PER_BLOCK / 2u;
    for (uint32_t p = 0; p < FTL_NAND_PAGES_PER_BLOCK; p++) {
        if (p < half) {
            memset(s_data[first + p], 0xFF, FTL_NAND_PAGE_SIZE);
            memset(&s_spare[first + p], 0xFF, sizeof s_spare[0]);
        } else {
            partially_erase(s_data[first + p], FTL_NAND_PAGE_SIZE);
            partially_erase((uint8_t *)&s_spare[first + p], sizeof s_spare[0]);
        }
    }
    s_block[block].write_ptr = FTL_NAND_PAGES_PER_BLOCK;
}

static void erase_full(uint32_t block)
{
    uint32_t first = FTL_PPN_MAKE(block, 0u);
    memset(s_data[first], 0xFF, (size_t)FTL_NAND_PAGES_PER_BLOCK * FTL_NAND_PAGE_SIZE);
    memset(&s_spare[first], 0xFF, (size_t)FTL_NAND_PAGES_PER_BLOCK * sizeof s_spare[0]);
    s_block[block].write_ptr = 0u;
}

ftl_nand_status_t ftl_nand_erase(uint32_t block)
{
    if (block >= FTL_NAND_BLOCKS) {
        s_stats.rejected++;
        return FTL_NAND_ERR_RANGE;
    }
    if (!s_power.powered) {
        s_stats.power_fails++;
        return FTL_NAND_ERR_POWER;
    }
    if (power_cut_now()) {
        if (s_power.mode == FTL_NAND_CUT_BEFORE) {
            return FTL_NAND_ERR_POWER;
        }
        s_block[block].erase_count++;
        if (s_power.mode == FTL_NAND_CUT_TORN) {
            erase_torn(block);
        } else {
            erase_full(block);
        }
        return FTL_NAND_ERR_POWER;
    }
    erase_full(block);
    s_block[block].erase_count++;
    s_stats.erases++;
    return FTL_NAND_OK;
}

ftl_nand_status_t ftl_nand_execute(ftl_nand_req_t *req)
{
    switch (req->op) {
    case FTL_NAND_OP_READ:
        req->status = ftl_nand_read(req->addr, req->data, &req->spare);
        break;
    case FTL_NAND_OP_PROGRAM:
        req->status = ftl_nand_program(req->addr, req->data, &req->spare);
        break;
    case FTL_NAND_OP_ERASE:
        req->status = ftl_nand_erase(req->addr);
        break;
    default:
        s_stats.rejected++;
        req->status = FTL_NAND_ERR_RANGE;
        break;
    }
    return req->status;
}

uint32_t ftl_nand_erase_count(uint32_t block)
{
    return block < FTL_NAND_BLOCKS ? s_block[block].erase_count : 0u;
}

uint32_t ftl_nand_write_pointer(uint32_t block)
{
    return block < FTL_NAND_BLOCKS ? s_block[block].write_ptr : FTL_NAND_PAGES_PER_BLOCK;
}

ftl_nand_stats_t ftl_nand_stats(void)
{
    return s_stats;
}

uint32_t ftl_nand_mutation_count(void)
{
    return s_mutations;
}

void ftl_nand_cut_arm(uint32_t nth, ftl_nand_cut_mode_t mode)
{
    s_mutations = 0u;
    s_power.armed = nth > 0u;
    s_power.countdown = nth;
    s_power.mode = mode;
    s_power.prng = NAND_GARBAGE_SEED;
}

void ftl_nand_cut_disarm(void)
{
    s_power.armed = false;
    s_power.countdown = 0u;
}

bool ftl_nand_powered(void)
{
    return s_power.powered;
}

void ftl_nand_power_restore(void)
{
    s_power.powered = true;
}

ftl_nand_status_t ftl_nand_inject_bitflip(uint32_t ppn, uint32_t bit)
{
    const uint32_t data_bits = FTL_NAND_PAGE_SIZE * 8u;
    const uint32_t spare_bits = (uint32_t)sizeof(ftl_nand_spare_t) * 8u;
    if (ppn >= FTL_NAND_TOTAL_PAGES || bit >= data_bits + spare_bits) {
        return FTL_NAND_ERR_RANGE;
    }
    uint8_t mask;
    if (bit < data_bits) {
        mask = (uint8_t)(1u << (bit % 8u));
        s_data[ppn][bit / 8u] ^= mask;
    } else {
        uint32_t sbit = bit - data_bits;
        uint8_t *raw = (uint8_t *)&s_spare[ppn];
        mask = (uint8_t)(1u << (sbit % 8u));
        raw[sbit / 8u] ^= mask;
    }
    return FTL_NAND_OK;
}
