/*
 * mount.c - format and map rebuild (see mount.h).
 */
#include "mount.h"

#include <string.h>

#include "alloc.h"
#include "map.h"
#include "nand_sim.h"
#include "util.h"
#include "wear.h"

/* Scratch page for the scan. */
static uint8_t s_page[FTL_NAND_PAGE_SIZE];

/* Per-block erase-count knowledge gathered during a scan. */
static uint8_t s_ec_known[FTL_NAND_BLOCKS];

/* Gives every block whose count is unknown the mean of the known counts
 * (0 if none is known). Returns how many blocks were estimated. */
static uint32_t wear_fill_unknown(void)
{
    uint64_t sum = 0u;
    uint32_t known = 0u;
    for (uint32_t b = 0; b < FTL_NAND_BLOCKS; b++) {
        if (s_ec_known[b] != 0u) {
            sum += ftl_wear_count(b);
            known++;
        }
    }
    uint32_t mean = known != 0u ? (uint32_t)((sum + known / 2u) / known) : 0u;
    uint32_t estimated = 0u;
    for (uint32_t b = 0; b < FTL_NAND_BLOCKS; b++) {
        if (s_ec_known[b] == 0u) {
            ftl_wear_set(b, mean);
            estimated++;
        }
    }
    return estimated;
}

/* Records an erase count read from an intact spare record of `block`. */
static void wear_learn(uint32_t block, uint32_t erase_count)
{
    if (s_ec_known[block] == 0u || erase_count > ftl_wear_count(block)) {
        ftl_wear_set(block, erase_count);
    }
    s_ec_known[block] = 1u;
}

static void report_clear(ftl_mount_report_t *report)
{
    if (report != NULL) {
        memset(report, 0, sizeof *report);
    }
}

ftl_status_t ftl_mount_format(ftl_mount_report_t *report)
{
    ftl_mount_report_t local;
    ftl_mount_report_t *rep = report != NULL ? report : &local;
    report_clear(rep);

    /* Keep the wear history: learn erase counts from intact spares. */
    ftl_wear_init();
    memset(s_ec_known, 0, sizeof s_ec_known);
    for (uint32_t ppn = 0; ppn < FTL_NAND_TOTAL_PAGES; ppn++) {
        ftl_nand_spare_t spare;
        if (ftl_nand_read(ppn, NULL, &spare) != FTL_NAND_OK) {
            return FTL_ERR_IO;
        }
        if (ftl_util_spare_ok(&spare)) {
            wear_learn(FTL_PPN_BLOCK(ppn), spare.erase_count);
        }
    }
    rep->blocks_wear_estimated = wear_fill_unknown();

    ftl_map_init();
    ftl_alloc_init();
    for (uint32_t b = 0; b < FTL_NAND_BLOCKS; b++) {
        if (ftl_nand_erase(b) != FTL_NAND_OK) {
            return FTL_ERR_IO;
        }
        ftl_wear_on_erase(b);
        (void)ftl_alloc_release(b);
    }
    rep->next_seq = 1u;
    rep->pages_erased = FTL_NAND_TOTAL_PAGES;
    rep->blocks_free = FTL_NAND_BLOCKS;
    return FTL_OK;
}

/* Decides between the page `ppn` (intact, record `spare`) and the page
 * currently mapped for the same lpn. Returns FTL_ERR_IO on a read error. */
static ftl_status_t rebuild_claim(uint32_t ppn, const ftl_nand_spare_t *spare,
                                  ftl_mount_report_t *rep)
{
    uint32_t current = ftl_map_lookup(spare->lpn);
    if (current != FTL_PPN_NONE) {
        ftl_nand_spare_t other;
        if (ftl_nand_read(current, NULL, &other) != FTL_NAND_OK) {
            return FTL_ERR_IO;
        }
        rep->pages_superseded++;
        if (spare->seq <= other.seq) {
            return FTL_OK; /* the mapped copy is at least as new */
        }
    }
    return ftl_map_update(spare->lpn, ppn, NULL) == FTL_OK ? FTL_OK : FTL_ERR_CORRUPT;
}

/* Scans one block. Returns FTL_OK and sets *all_erased / *youngest. */
static ftl_status_t rebuild_block(uint32_t block, ftl_mount_report_t *rep, bool *all_erased,
                                  uint32_t *youngest)
{
    *all_erased = true;
    *youngest = 0u;
    for (uint32_t page = 0; page < FTL_NAND_PAGES_PER_BLOCK; page++) {
        uint32_t ppn = FTL_PPN_MAKE(block, page);
        ftl_nand_spare_t spare;
        if (ftl_nand_read(ppn, s_page, &spare) != FTL_NAND_OK) {
            return FTL_ERR_IO;
        }
        if (ftl_util_is_erased(&spare, sizeof spare) &&
            ftl_util_is_erased(s_page, sizeof s_page)) {
            rep->pages_erased++;
            continue;
        }
        *all_erased = false;
        if (!ftl_util_spare_ok(&spare)) {
            rep->pages_garbage++;
            continue;
        }
        wear_learn(block, spare.erase_count);
        if (spare.lpn >= FTL_LOGICAL_PAGES || !ftl_util_page_crc_ok(&spare, s_page)) {
            rep->pages_garbage++;
            continue;
        }
        rep->pages_intact++;
        if (spare.seq > *youngest) {
            *youngest = spare.seq;
        }
        ftl_status_t st = rebuild_claim(ppn, &spare, rep);
        if (st != FTL_OK) {
            return st;
        }
    }
    return FTL_OK;
}

ftl_status_t ftl_mount_rebuild(ftl_mount_report_t *report)
{
    ftl_mount_report_t local;
    ftl_mount_report_t *rep = report != NULL ? report : &local;
    report_clear(rep);

    ftl_map_init();
    ftl_alloc_init(); /* every block CLOSED until proven erased */
    ftl_wear_init();
    memset(s_ec_known, 0, sizeof s_ec_known);

    uint32_t max_seq = 0u;
    for (uint32_t b = 0; b < FTL_NAND_BLOCKS; b++) {
        bool all_erased;
        uint32_t youngest;
        ftl_status_t st = rebuild_block(b, rep, &all_erased, &youngest);
        if (st != FTL_OK) {
            return st;
        }
        if (all_erased) {
            (void)ftl_alloc_release(b);
            rep->blocks_free++;
        } else {
            ftl_alloc_set_last_seq(b, youngest);
            rep->blocks_closed++;
        }
        if (youngest > max_seq) {
            max_seq = youngest;
        }
    }
    rep->blocks_wear_estimated = wear_fill_unknown();
    rep->pages_mapped = ftl_map_mapped_count();
    rep->next_seq = max_seq + 1u;
    return FTL_OK;
}
