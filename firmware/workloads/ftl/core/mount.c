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
 * currently mapped for the same lpn: the higher sequence number wins. On a
 * tie (a page and its GC copy, identical contents) a GC copy is preferred
 * to a host-written original, so that a GC job cut short does not have to
 * copy the same pages again. Returns FTL_ERR_IO on a read error. */
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
        bool newer = spare->seq > other.seq ||
                     (spare->seq == other.seq && spare->kind == FTL_SPARE_KIND_RELOC &&
                      other.kind == FTL_SPARE_KIND_HOST);
        if (!newer) {
            return FTL_OK;
        }
    }
    return ftl_map_update(spare->lpn, ppn, NULL) == FTL_OK ? FTL_OK : FTL_ERR_CORRUPT;
}

/* What the scan learnt about one block. */
typedef struct {
    uint32_t youngest;   /* largest intact sequence number, 0 if none */
    uint32_t used;       /* pages before the trailing run of erased pages */
    bool prefix;         /* pages [0, used) all programmed (intact or not) */
    uint8_t last_kind;   /* spare kind of the youngest intact page, 0 if none */
} block_scan_t;

/* Scans one block: classifies every page and claims intact ones. */
static ftl_status_t rebuild_block(uint32_t block, ftl_mount_report_t *rep, block_scan_t *scan)
{
    scan->youngest = 0u;
    scan->used = 0u;
    scan->prefix = true;
    scan->last_kind = 0u;
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
        if (scan->used != page) {
            scan->prefix = false; /* an erased page before this one */
        }
        scan->used = page + 1u;
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
        if (spare.seq >= scan->youngest) {
            scan->youngest = spare.seq;
            scan->last_kind = spare.kind;
        }
        ftl_status_t st = rebuild_claim(ppn, &spare, rep);
        if (st != FTL_OK) {
            return st;
        }
    }
    return FTL_OK;
}

/* Candidate block to resume for each write stream. */
typedef struct {
    uint32_t block;
    uint32_t next_page;
    uint32_t youngest;
} resume_pick_t;

static void resume_consider(resume_pick_t *pick, uint32_t block, const block_scan_t *scan)
{
    if (pick->block == FTL_BLOCK_NONE || scan->youngest > pick->youngest) {
        pick->block = block;
        pick->next_page = scan->used;
        pick->youngest = scan->youngest;
    }
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

    resume_pick_t pick[FTL_STREAM_COUNT];
    for (uint32_t s = 0; s < FTL_STREAM_COUNT; s++) {
        pick[s].block = FTL_BLOCK_NONE;
        pick[s].next_page = 0u;
        pick[s].youngest = 0u;
    }
    uint32_t max_seq = 0u;
    for (uint32_t b = 0; b < FTL_NAND_BLOCKS; b++) {
        block_scan_t scan;
        ftl_status_t st = rebuild_block(b, rep, &scan);
        if (st != FTL_OK) {
            return st;
        }
        if (scan.used == 0u) {
            /* Looks erased, but may be an interrupted erase: erase again
             * before first use. */
            (void)ftl_alloc_release_unverified(b);
            rep->blocks_free++;
        } else {
            ftl_alloc_set_last_seq(b, scan.youngest);
            rep->blocks_closed++;
            if (scan.prefix && scan.used < FTL_NAND_PAGES_PER_BLOCK) {
                if (scan.last_kind == FTL_SPARE_KIND_HOST) {
                    resume_consider(&pick[FTL_STREAM_HOST], b, &scan);
                } else if (scan.last_kind == FTL_SPARE_KIND_RELOC) {
                    resume_consider(&pick[FTL_STREAM_GC], b, &scan);
                }
            }
        }
        if (scan.youngest > max_seq) {
            max_seq = scan.youngest;
        }
    }
    /* Keep filling the blocks that were open when power went away, so that
     * a power cut costs at most the page it tore, never whole blocks. */
    for (uint32_t s = 0; s < FTL_STREAM_COUNT; s++) {
        if (pick[s].block != FTL_BLOCK_NONE &&
            ftl_alloc_resume((ftl_stream_t)s, pick[s].block, pick[s].next_page) == FTL_OK) {
            rep->blocks_closed--;
            rep->blocks_resumed++;
        }
    }
    rep->blocks_wear_estimated = wear_fill_unknown();
    rep->pages_mapped = ftl_map_mapped_count();
    rep->next_seq = max_seq + 1u;
    return FTL_OK;
}
