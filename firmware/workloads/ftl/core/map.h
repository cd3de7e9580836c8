/*
 * map.h - the page-mapping table of the FTL.
 *
 * Forward map (L2P): for each logical page, the physical page holding its
 * current data, or FTL_PPN_NONE if the logical page was never written (or
 * was trimmed).
 * Reverse information: for each physical page the logical page it holds
 * (P2L), a per-block bitmap of valid pages, and per-block valid counts.
 * A physical page is "valid" exactly when L2P points to it.
 *
 * Invariants kept by every function (checked by ftl_map_check()):
 *   L2P[l] == p  <=>  valid(p) && P2L[p] == l
 *   valid_count[b] == number of valid pages in block b
 *   sum of valid counts == number of mapped logical pages
 *
 * RAM (default geometry): L2P 14 KiB, P2L 16 KiB, bitmap 1 KiB, counts
 * 0.5 KiB. Every call is O(1) except ftl_map_init (O(pages)),
 * ftl_map_next_valid (O(pages per block)), ftl_map_block_erased
 * (O(pages per block)) and ftl_map_check (O(pages)).
 */
#ifndef FTL_MAP_H
#define FTL_MAP_H

#include "ftl_types.h"

/* Empties the map: nothing mapped, no page valid. */
void ftl_map_init(void);

/* Current physical page of `lpn`, or FTL_PPN_NONE (also for lpn out of
 * range). */
uint32_t ftl_map_lookup(uint32_t lpn);

/* Points `lpn` at the freshly programmed physical page `ppn` and
 * invalidates the page that held it before. *old_ppn (may be NULL)
 * receives that previous page or FTL_PPN_NONE.
 * FTL_ERR_PARAM if an argument is out of range or `ppn` is already valid. */
ftl_status_t ftl_map_update(uint32_t lpn, uint32_t ppn, uint32_t *old_ppn);

/* Moves `lpn` from `old_ppn` to `new_ppn` only if `lpn` still maps to
 * `old_ppn` (a GC relocation that raced with nothing). Returns true if
 * the map changed; false leaves `new_ppn` invalid (a stale copy). */
bool ftl_map_relocate(uint32_t lpn, uint32_t old_ppn, uint32_t new_ppn);

/* Unmaps `lpn` (TRIM, or data lost). Its physical page becomes invalid. */
void ftl_map_trim(uint32_t lpn);

/* True if `ppn` holds the current data of some logical page. */
bool ftl_map_is_valid(uint32_t ppn);

/* Logical page held by a valid `ppn`, FTL_LPN_NONE if not valid. */
uint32_t ftl_map_reverse(uint32_t ppn);

/* Valid pages in `block` (0 for an out-of-range block). */
uint32_t ftl_map_valid_count(uint32_t block);

/* First valid page index >= `from` in `block`, or
 * FTL_NAND_PAGES_PER_BLOCK if there is none. */
uint32_t ftl_map_next_valid(uint32_t block, uint32_t from);

/* Called once a block has been erased: clears its reverse information.
 * FTL_ERR_STATE if the block still had valid pages (which would mean data
 * loss; the map is left unchanged). */
ftl_status_t ftl_map_block_erased(uint32_t block);

/* Number of mapped logical pages. */
uint32_t ftl_map_mapped_count(void);

/* Verifies all invariants above: FTL_OK or FTL_ERR_CORRUPT. O(pages). */
ftl_status_t ftl_map_check(void);

#endif /* FTL_MAP_H */
