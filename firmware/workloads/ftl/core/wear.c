/*
 * wear.c - per-block erase counters (see wear.h).
 */
#include "wear.h"

static uint32_t s_erase_count[FTL_NAND_BLOCKS];

void ftl_wear_init(void)
{
    for (uint32_t b = 0; b < FTL_NAND_BLOCKS; b++) {
        s_erase_count[b] = 0u;
    }
}

void ftl_wear_set(uint32_t block, uint32_t erase_count)
{
    if (block < FTL_NAND_BLOCKS) {
        s_erase_count[block] = erase_count;
    }
}

uint32_t ftl_wear_count(uint32_t block)
{
    return block < FTL_NAND_BLOCKS ? s_erase_count[block] : 0u;
}

void ftl_wear_on_erase(uint32_t block)
{
    if (block < FTL_NAND_BLOCKS && s_erase_count[block] != UINT32_MAX) {
        s_erase_count[block]++;
    }
}

uint32_t ftl_wear_min(void)
{
    uint32_t min = UINT32_MAX;
    for (uint32_t b = 0; b < FTL_NAND_BLOCKS; b++) {
        if (s_erase_count[b] < min) {
            min = s_erase_count[b];
        }
    }
    return min;
}

uint32_t ftl_wear_max(void)
{
    uint32_t max = 0u;
    for (uint32_t b = 0; b < FTL_NAND_BLOCKS; b++) {
        if (s_erase_count[b] > max) {
            max = s_erase_count[b];
        }
    }
    return max;
}
