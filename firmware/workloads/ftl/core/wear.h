/*
 * wear.h - per-block erase counters.
 *
 * The FTL keeps its own erase count per block (the simulated chip's count
 * is the physical truth, used only for statistics). The count is written
 * into the spare record of every page programmed into the block, so mount
 * can recover it; a block that holds no readable page at mount gets the
 * mean of the known counts (see mount.c).
 *
 * Dynamic wear levelling is done by the allocator (host writes go to the
 * least-worn free block, GC copies to the most-worn one). Static wear
 * levelling's pick is the allocator's too (ftl_alloc_pick_cold in alloc.h:
 * the closed block with the fewest erases, when the spread exceeds
 * FTL_WL_THRESHOLD), which reads these counts with the block states it
 * owns. This module is a leaf: it owns the counts, knows no block state.
 *
 * RAM: 4 bytes per block. ftl_wear_min/max scan all blocks (O(blocks));
 * the others are O(1).
 */
#ifndef FTL_WEAR_H
#define FTL_WEAR_H

#include "ftl_types.h"

/* All counts zero. */
void ftl_wear_init(void);

/* Sets a block's count (mount, format, tests). */
void ftl_wear_set(uint32_t block, uint32_t erase_count);

/* Erase count of a block (0 if out of range). */
uint32_t ftl_wear_count(uint32_t block);

/* Records one erase of `block`. */
void ftl_wear_on_erase(uint32_t block);

/* Smallest / largest erase count over all blocks. */
uint32_t ftl_wear_min(void);
uint32_t ftl_wear_max(void);

#endif /* FTL_WEAR_H */
