/*
 * mount.h - format, and rebuild of all RAM state from the NAND at mount.
 *
 * Nothing but the pages themselves is persistent: every programmed page
 * carries (lpn, seq, data CRC, block erase count) in its spare record, so
 * the map can be rebuilt from a scan of the chip. This makes the FTL
 * consistent after a power cut at ANY point: there is no metadata that
 * could be half-updated.
 *
 * Rebuild rules:
 *   - a page whose spare and data are all 0xFF is erased;
 *   - a page is intact if its spare record checks (magic, kind, checksum),
 *     its lpn is in range and its data matches the data CRC; any other
 *     programmed page is garbage (a torn program or erase) and is ignored;
 *   - for each lpn, the intact page with the highest sequence number wins;
 *     a tie only happens between a page and its GC copy (identical
 *     contents) and goes to the copy;
 *   - a block whose pages are all erased is free, but flagged to be
 *     erased again before first use (an interrupted erase can leave a
 *     block that reads as erased yet is not safely programmable);
 *   - a partly written block whose programmed pages form a prefix
 *     (pages 0..k-1 programmed, k..end erased) is a block that was open
 *     when power went away. The youngest such block whose newest intact
 *     page is a host write is re-opened for the host stream at page k, the
 *     youngest one holding a GC copy for the GC stream: a power cut costs
 *     at most the page it tore, so repeated cuts cannot leak free blocks.
 *     (Assumption shared with the simulator: an interrupted erase never
 *     leaves that prefix shape; nand_sim erases the first half first.)
 *   - every other block is CLOSED; GC reclaims it;
 *   - the erase count of a block is the largest one found in an intact
 *     spare record of the block; a block with none gets the mean of the
 *     known counts;
 *   - the next sequence number is one more than the largest intact one.
 *
 * Both functions are synchronous and call the NAND simulator directly:
 * they run once, before the timed workload, never from ftl_step().
 * Cost: rebuild reads every page once plus one spare read per superseded
 * page; format reads every spare once and erases every block.
 */
#ifndef FTL_MOUNT_H
#define FTL_MOUNT_H

#include "ftl_types.h"

typedef struct {
    uint32_t next_seq;        /* first sequence number to use */
    uint32_t pages_intact;    /* pages that passed every check */
    uint32_t pages_superseded;/* intact pages that lost to a newer copy */
    uint32_t pages_garbage;   /* programmed pages that failed a check */
    uint32_t pages_erased;    /* erased pages */
    uint32_t pages_mapped;    /* logical pages mapped after the rebuild */
    uint32_t blocks_free;     /* blocks found fully erased */
    uint32_t blocks_closed;   /* blocks holding data or garbage */
    uint32_t blocks_resumed;  /* partly written blocks re-opened for writing */
    uint32_t blocks_wear_estimated; /* erase count set to the mean */
} ftl_mount_report_t;

/* Erases every block (keeping the erase counts readable from the spare
 * areas) and initialises map, allocator and wear state for an empty
 * device. `report` may be NULL. FTL_ERR_IO if a NAND operation fails. */
ftl_status_t ftl_mount_format(ftl_mount_report_t *report);

/* Rebuilds map, allocator and wear state from the NAND contents (rules
 * above). `report` may be NULL. FTL_ERR_IO if a NAND read fails. */
ftl_status_t ftl_mount_rebuild(ftl_mount_report_t *report);

#endif /* FTL_MOUNT_H */
