/*
 * map.c - L2P table, P2L table, valid bitmaps and valid counts.
 */
#include "map.h"

#define MAP_WORDS_PER_BLOCK ((FTL_NAND_PAGES_PER_BLOCK + 31u) / 32u)

static ftl_ppn_t s_l2p[FTL_LOGICAL_PAGES];
static ftl_lpn_t s_p2l[FTL_NAND_TOTAL_PAGES];
static uint32_t s_valid_bits[FTL_NAND_BLOCKS][MAP_WORDS_PER_BLOCK];
static uint16_t s_valid_count[FTL_NAND_BLOCKS];
static uint32_t s_mapped;

static bool bit_get(uint32_t ppn)
{
    uint32_t page = FTL_PPN_PAGE(ppn);
    return (s_valid_bits[FTL_PPN_BLOCK(ppn)][page / 32u] >> (page % 32u)) & 1u;
}

static void bit_set(uint32_t ppn)
{
    uint32_t page = FTL_PPN_PAGE(ppn);
    s_valid_bits[FTL_PPN_BLOCK(ppn)][page / 32u] |= 1u << (page % 32u);
}

static void bit_clear(uint32_t ppn)
{
    uint32_t page = FTL_PPN_PAGE(ppn);
    s_valid_bits[FTL_PPN_BLOCK(ppn)][page / 32u] &= ~(1u << (page % 32u));
}

/* Marks `ppn` valid for `lpn` (reverse side only). */
static void reverse_add(uint32_t ppn, uint32_t lpn)
{
    bit_set(ppn);
    s_p2l[ppn] = (ftl_lpn_t)lpn;
    s_valid_count[FTL_PPN_BLOCK(ppn)]++;
}

/* Marks `ppn` invalid (reverse side only). */
static void reverse_remove(uint32_t ppn)
{
    bit_clear(ppn);
    s_p2l[ppn] = FTL_LPN_NONE;
    s_valid_count[FTL_PPN_BLOCK(ppn)]--;
}

void ftl_map_init(void)
{
    for (uint32_t l = 0; l < FTL_LOGICAL_PAGES; l++) {
        s_l2p[l] = FTL_PPN_NONE;
    }
    for (uint32_t p = 0; p < FTL_NAND_TOTAL_PAGES; p++) {
        s_p2l[p] = FTL_LPN_NONE;
    }
    for (uint32_t b = 0; b < FTL_NAND_BLOCKS; b++) {
        for (uint32_t w = 0; w < MAP_WORDS_PER_BLOCK; w++) {
            s_valid_bits[b][w] = 0u;
        }
        s_valid_count[b] = 0u;
    }
    s_mapped = 0u;
}

uint32_t ftl_map_lookup(uint32_t lpn)
{
    if (lpn >= FTL_LOGICAL_PAGES) {
        return FTL_PPN_NONE;
    }
    return s_l2p[lpn];
}

ftl_status_t ftl_map_update(uint32_t lpn, uint32_t ppn, uint32_t *old_ppn)
{
    if (lpn >= FTL_LOGICAL_PAGES || ppn >= FTL_NAND_TOTAL_PAGES || bit_get(ppn)) {
        return FTL_ERR_PARAM;
    }
    uint32_t old = s_l2p[lpn];
    if (old != FTL_PPN_NONE) {
        reverse_remove(old);
    } else {
        s_mapped++;
    }
    reverse_add(ppn, lpn);
    s_l2p[lpn] = (ftl_ppn_t)ppn;
    if (old_ppn != NULL) {
        *old_ppn = old;
    }
    return FTL_OK;
}

bool ftl_map_relocate(uint32_t lpn, uint32_t old_ppn, uint32_t new_ppn)
{
    if (lpn >= FTL_LOGICAL_PAGES || old_ppn >= FTL_NAND_TOTAL_PAGES ||
        new_ppn >= FTL_NAND_TOTAL_PAGES) {
        return false;
    }
    if (s_l2p[lpn] != old_ppn || bit_get(new_ppn)) {
        return false;
    }
    reverse_remove(old_ppn);
    reverse_add(new_ppn, lpn);
    s_l2p[lpn] = (ftl_ppn_t)new_ppn;
    return true;
}

void ftl_map_trim(uint32_t lpn)
{
    if (lpn >= FTL_LOGICAL_PAGES || s_l2p[lpn] == FTL_PPN_NONE) {
        return;
    }
    reverse_remove(s_l2p[lpn]);
    s_l2p[lpn] = FTL_PPN_NONE;
    s_mapped--;
}

bool ftl_map_is_valid(uint32_t ppn)
{
    return ppn < FTL_NAND_TOTAL_PAGES && bit_get(ppn);
}

uint32_t ftl_map_reverse(uint32_t ppn)
{
    if (!ftl_map_is_valid(ppn)) {
        return FTL_LPN_NONE;
    }
    return s_p2l[ppn];
}

uint32_t ftl_map_valid_count(uint32_t block)
{
    return block < FTL_NAND_BLOCKS ? s_valid_count[block] : 0u;
}

uint32_t ftl_map_next_valid(uint32_t block, uint32_t from)
{
    if (block >= FTL_NAND_BLOCKS) {
        return FTL_NAND_PAGES_PER_BLOCK;
    }
    uint32_t page = from;
    while (page < FTL_NAND_PAGES_PER_BLOCK) {
        uint32_t word = s_valid_bits[block][page / 32u] >> (page % 32u);
        if (word == 0u) {
            /* Nothing left in this word: skip to the next word. */
            page = (page / 32u + 1u) * 32u;
            continue;
        }
        while ((word & 1u) == 0u) {
            word >>= 1;
            page++;
        }
        return page < FTL_NAND_PAGES_PER_BLOCK ? page : FTL_NAND_PAGES_PER_BLOCK;
    }
    return FTL_NAND_PAGES_PER_BLOCK;
}

ftl_status_t ftl_map_block_erased(uint32_t block)
{
    if (block >= FTL_NAND_BLOCKS) {
        return FTL_ERR_PARAM;
    }
    if (s_valid_count[block] != 0u) {
        return FTL_ERR_STATE;
    }
    uint32_t first = FTL_PPN_MAKE(block, 0u);
    for (uint32_t p = 0; p < FTL_NAND_PAGES_PER_BLOCK; p++) {
        s_p2l[first + p] = FTL_LPN_NONE;
    }
    return FTL_OK;
}

uint32_t ftl_map_mapped_count(void)
{
    return s_mapped;
}

ftl_status_t ftl_map_check(void)
{
    uint32_t mapped = 0u;
    for (uint32_t l = 0; l < FTL_LOGICAL_PAGES; l++) {
        uint32_t p = s_l2p[l];
        if (p == FTL_PPN_NONE) {
            continue;
        }
        if (p >= FTL_NAND_TOTAL_PAGES || !bit_get(p) || s_p2l[p] != l) {
            return FTL_ERR_CORRUPT;
        }
        mapped++;
    }
    if (mapped != s_mapped) {
        return FTL_ERR_CORRUPT;
    }
    uint32_t valid_total = 0u;
    for (uint32_t b = 0; b < FTL_NAND_BLOCKS; b++) {
        uint32_t count = 0u;
        for (uint32_t page = 0; page < FTL_NAND_PAGES_PER_BLOCK; page++) {
            uint32_t p = FTL_PPN_MAKE(b, page);
            if (!bit_get(p)) {
                continue;
            }
            uint32_t l = s_p2l[p];
            if (l >= FTL_LOGICAL_PAGES || s_l2p[l] != p) {
                return FTL_ERR_CORRUPT;
            }
            count++;
        }
        if (count != s_valid_count[b]) {
            return FTL_ERR_CORRUPT;
        }
        valid_total += count;
    }
    return valid_total == mapped ? FTL_OK : FTL_ERR_CORRUPT;
}
