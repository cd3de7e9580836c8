/*
 * gc.c - victim policies and the incremental relocation job (see gc.h).
 */
#include "gc.h"

#include "alloc.h"
#include "map.h"
#include "util.h"
#include "wear.h"

typedef enum {
    GC_PH_SCAN = 0,    /* look for the next valid page of the victim */
    GC_PH_READING,     /* READ of the source page outstanding */
    GC_PH_COPY,        /* source read and checked: program it next */
    GC_PH_OPENING,     /* ERASE of a new GC block (unverified) outstanding */
    GC_PH_PROGRAMMING, /* PROGRAM of the copy outstanding */
    GC_PH_ERASING      /* ERASE of the victim outstanding */
} gc_phase_t;

static struct {
    ftl_gc_job_t job;
    gc_phase_t phase;
    ftl_gc_policy_t policy;
    uint32_t victim;
    uint32_t cursor;        /* next page index of the victim to examine */
    uint32_t src_ppn;       /* page being relocated */
    uint32_t dst_ppn;       /* its new location */
    uint32_t lpn;           /* logical page being relocated */
    uint32_t opening;       /* block being erased before use */
    ftl_nand_spare_t spare; /* spare record read from the source */
    ftl_status_t error;
    ftl_gc_counters_t counters;
} s_gc;

/* Relocation buffer: one page. */
static uint8_t s_buf[FTL_NAND_PAGE_SIZE];

void ftl_gc_init(void)
{
    s_gc.job = FTL_GC_JOB_NONE;
    s_gc.phase = GC_PH_SCAN;
    s_gc.policy = (ftl_gc_policy_t)FTL_GC_DEFAULT_POLICY;
    s_gc.victim = FTL_BLOCK_NONE;
    s_gc.cursor = 0u;
    s_gc.src_ppn = FTL_PPN_NONE;
    s_gc.dst_ppn = FTL_PPN_NONE;
    s_gc.lpn = FTL_LPN_NONE;
    s_gc.opening = FTL_BLOCK_NONE;
    s_gc.error = FTL_OK;
    s_gc.counters = (ftl_gc_counters_t){0};
}

void ftl_gc_set_policy(ftl_gc_policy_t policy)
{
    s_gc.policy = policy;
}

ftl_gc_policy_t ftl_gc_policy(void)
{
    return s_gc.policy;
}

/* ------------------------------------------------------------------ */
/* Victim selection                                                     */
/* ------------------------------------------------------------------ */

/* True if `b` (with `valid` valid pages) can be a victim at all. */
static bool is_candidate(uint32_t b, uint32_t valid)
{
    return ftl_alloc_state(b) == FTL_BLOCK_CLOSED && valid < FTL_NAND_PAGES_PER_BLOCK;
}

static uint32_t pick_greedy(void)
{
    uint32_t best = FTL_BLOCK_NONE;
    uint32_t best_valid = 0u;
    uint32_t best_ec = 0u;
    for (uint32_t b = 0; b < FTL_NAND_BLOCKS; b++) {
        uint32_t valid = ftl_map_valid_count(b);
        if (!is_candidate(b, valid)) {
            continue;
        }
        uint32_t ec = ftl_wear_count(b);
        if (best == FTL_BLOCK_NONE || valid < best_valid ||
            (valid == best_valid && ec < best_ec)) {
            best = b;
            best_valid = valid;
            best_ec = ec;
        }
    }
    return best;
}

static uint32_t pick_cost_benefit(uint32_t now_seq)
{
    uint32_t best = FTL_BLOCK_NONE;
    uint64_t best_num = 0u; /* (P - v) * (age + 1) */
    uint64_t best_den = 1u; /* P + v */
    for (uint32_t b = 0; b < FTL_NAND_BLOCKS; b++) {
        uint32_t valid = ftl_map_valid_count(b);
        if (!is_candidate(b, valid)) {
            continue;
        }
        uint32_t last = ftl_alloc_last_seq(b);
        uint64_t age = now_seq >= last ? (uint64_t)(now_seq - last) : 0u;
        uint64_t num = (uint64_t)(FTL_NAND_PAGES_PER_BLOCK - valid) * (age + 1u);
        uint64_t den = (uint64_t)FTL_NAND_PAGES_PER_BLOCK + valid;
        /* num/den > best_num/best_den, compared without division. Bounds:
         * num <= 2^10 * 2^32, den <= 2^11, so products stay below 2^54. */
        if (best == FTL_BLOCK_NONE || num * best_den > best_num * den) {
            best = b;
            best_num = num;
            best_den = den;
        }
    }
    return best;
}

static uint32_t pick_wear_aware(void)
{
    uint32_t min_ec = ftl_wear_min();
    uint32_t best = FTL_BLOCK_NONE;
    uint64_t best_cost = 0u;
    for (uint32_t b = 0; b < FTL_NAND_BLOCKS; b++) {
        uint32_t valid = ftl_map_valid_count(b);
        if (!is_candidate(b, valid)) {
            continue;
        }
        uint64_t cost = (uint64_t)valid * FTL_GC_WEAR_EC_PER_PAGE +
                        (uint64_t)(ftl_wear_count(b) - min_ec);
        if (best == FTL_BLOCK_NONE || cost < best_cost) {
            best = b;
            best_cost = cost;
        }
    }
    return best;
}

/* A closed block without valid pages costs nothing to reclaim. */
static uint32_t pick_empty(void)
{
    for (uint32_t b = 0; b < FTL_NAND_BLOCKS; b++) {
        if (ftl_alloc_state(b) == FTL_BLOCK_CLOSED && ftl_map_valid_count(b) == 0u) {
            return b;
        }
    }
    return FTL_BLOCK_NONE;
}

uint32_t ftl_gc_pick_victim(ftl_gc_policy_t policy, uint32_t now_seq)
{
    uint32_t empty = pick_empty();
    if (empty != FTL_BLOCK_NONE) {
        return empty;
    }
    switch (policy) {
    case FTL_GC_POLICY_COST_BENEFIT:
        return pick_cost_benefit(now_seq);
    case FTL_GC_POLICY_WEAR_AWARE:
        return pick_wear_aware();
    case FTL_GC_POLICY_GREEDY:
    default:
        return pick_greedy();
    }
}

/* ------------------------------------------------------------------ */
/* Job control                                                          */
/* ------------------------------------------------------------------ */

ftl_status_t ftl_gc_start(ftl_gc_job_t kind, uint32_t block)
{
    if (kind != FTL_GC_JOB_RECLAIM && kind != FTL_GC_JOB_WEAR) {
        return FTL_ERR_PARAM;
    }
    if (s_gc.job != FTL_GC_JOB_NONE) {
        return FTL_ERR_BUSY;
    }
    if (ftl_alloc_state(block) != FTL_BLOCK_CLOSED) {
        return FTL_ERR_STATE;
    }
    s_gc.job = kind;
    s_gc.phase = GC_PH_SCAN;
    s_gc.victim = block;
    s_gc.cursor = 0u;
    s_gc.error = FTL_OK;
    if (kind == FTL_GC_JOB_RECLAIM) {
        s_gc.counters.reclaim_jobs++;
    } else {
        s_gc.counters.wear_jobs++;
    }
    return FTL_OK;
}

ftl_status_t ftl_gc_start_reclaim(uint32_t now_seq)
{
    if (s_gc.job != FTL_GC_JOB_NONE) {
        return FTL_ERR_BUSY;
    }
    uint32_t victim = ftl_gc_pick_victim(s_gc.policy, now_seq);
    if (victim == FTL_BLOCK_NONE) {
        return FTL_ERR_NOSPACE;
    }
    return ftl_gc_start(FTL_GC_JOB_RECLAIM, victim);
}

bool ftl_gc_active(void)
{
    return s_gc.job != FTL_GC_JOB_NONE;
}

ftl_gc_job_t ftl_gc_job(void)
{
    return s_gc.job;
}

uint32_t ftl_gc_victim(void)
{
    return s_gc.job != FTL_GC_JOB_NONE ? s_gc.victim : FTL_BLOCK_NONE;
}

ftl_status_t ftl_gc_error(void)
{
    return s_gc.error;
}

ftl_gc_counters_t ftl_gc_counters(void)
{
    return s_gc.counters;
}

/* Abandons the job with `error`. */
static ftl_gc_result_t fail(ftl_status_t error)
{
    s_gc.error = error;
    s_gc.job = FTL_GC_JOB_NONE;
    s_gc.phase = GC_PH_SCAN;
    return FTL_GC_ERROR;
}

/* ------------------------------------------------------------------ */
/* Split-phase job execution                                            */
/* ------------------------------------------------------------------ */

ftl_gc_result_t ftl_gc_step(ftl_nand_req_t *req)
{
    if (s_gc.job == FTL_GC_JOB_NONE) {
        return FTL_GC_IDLE;
    }
    switch (s_gc.phase) {
    case GC_PH_SCAN: {
        uint32_t page = ftl_map_next_valid(s_gc.victim, s_gc.cursor);
        if (page < FTL_NAND_PAGES_PER_BLOCK) {
            s_gc.cursor = page;
            s_gc.src_ppn = FTL_PPN_MAKE(s_gc.victim, page);
            s_gc.lpn = ftl_map_reverse(s_gc.src_ppn);
            req->op = FTL_NAND_OP_READ;
            req->addr = s_gc.src_ppn;
            req->data = s_buf;
            s_gc.phase = GC_PH_READING;
            return FTL_GC_NAND;
        }
        /* No valid page left: the victim can be erased. */
        req->op = FTL_NAND_OP_ERASE;
        req->addr = s_gc.victim;
        req->data = NULL;
        s_gc.phase = GC_PH_ERASING;
        return FTL_GC_NAND;
    }
    case GC_PH_COPY: {
        uint32_t unverified = ftl_alloc_prepare(FTL_STREAM_GC);
        if (unverified != FTL_BLOCK_NONE) {
            s_gc.opening = unverified;
            req->op = FTL_NAND_OP_ERASE;
            req->addr = unverified;
            req->data = NULL;
            s_gc.phase = GC_PH_OPENING;
            return FTL_GC_NAND;
        }
        uint32_t dst;
        if (ftl_alloc_page(FTL_STREAM_GC, &dst) != FTL_OK) {
            return fail(FTL_ERR_NOSPACE);
        }
        s_gc.dst_ppn = dst;
        req->op = FTL_NAND_OP_PROGRAM;
        req->addr = dst;
        req->data = s_buf;
        req->spare = s_gc.spare; /* same lpn, seq and data CRC */
        req->spare.kind = FTL_SPARE_KIND_RELOC;
        req->spare.erase_count = ftl_wear_count(FTL_PPN_BLOCK(dst));
        ftl_util_spare_seal(&req->spare);
        s_gc.phase = GC_PH_PROGRAMMING;
        return FTL_GC_NAND;
    }
    case GC_PH_READING:
    case GC_PH_OPENING:
    case GC_PH_PROGRAMMING:
    case GC_PH_ERASING:
    default:
        return FTL_GC_WAIT;
    }
}

/* Source page read back: keep it if its records are intact, otherwise
 * the data is lost (no ECC here) and the logical page is unmapped so that
 * it reads as never written instead of returning garbage. */
static ftl_gc_result_t complete_read(const ftl_nand_req_t *req)
{
    bool intact = ftl_util_spare_ok(&req->spare) && req->spare.lpn == s_gc.lpn &&
                  ftl_util_page_crc_ok(&req->spare, s_buf);
    if (!intact) {
        if (ftl_map_lookup(s_gc.lpn) == s_gc.src_ppn) {
            ftl_map_trim(s_gc.lpn);
        }
        s_gc.counters.dropped++;
        s_gc.cursor++;
        s_gc.phase = GC_PH_SCAN;
        return FTL_GC_UNIT_DONE;
    }
    s_gc.spare = req->spare;
    s_gc.phase = GC_PH_COPY;
    return FTL_GC_CONTINUE;
}

static ftl_gc_result_t complete_program(void)
{
    ftl_alloc_note_seq(FTL_PPN_BLOCK(s_gc.dst_ppn), s_gc.spare.seq);
    if (ftl_map_relocate(s_gc.lpn, s_gc.src_ppn, s_gc.dst_ppn)) {
        if (s_gc.job == FTL_GC_JOB_WEAR) {
            s_gc.counters.pages_wear++;
        } else {
            s_gc.counters.pages_reclaim++;
        }
    } else {
        /* The logical page moved meanwhile; the copy is already stale. */
        s_gc.counters.stale_copies++;
    }
    s_gc.cursor++;
    s_gc.phase = GC_PH_SCAN;
    return FTL_GC_UNIT_DONE;
}

static ftl_gc_result_t complete_erase(void)
{
    ftl_status_t st = ftl_map_block_erased(s_gc.victim);
    if (st != FTL_OK) {
        return fail(st);
    }
    ftl_wear_on_erase(s_gc.victim);
    st = ftl_alloc_release(s_gc.victim);
    if (st != FTL_OK) {
        return fail(st);
    }
    s_gc.counters.erases++;
    s_gc.job = FTL_GC_JOB_NONE;
    s_gc.phase = GC_PH_SCAN;
    s_gc.victim = FTL_BLOCK_NONE;
    return FTL_GC_JOB_DONE;
}

ftl_gc_result_t ftl_gc_complete(const ftl_nand_req_t *req)
{
    if (s_gc.job == FTL_GC_JOB_NONE) {
        return fail(FTL_ERR_STATE);
    }
    if (req->status != FTL_NAND_OK) {
        return fail(FTL_ERR_IO);
    }
    switch (s_gc.phase) {
    case GC_PH_READING:
        return complete_read(req);
    case GC_PH_OPENING:
        ftl_alloc_erase_done(s_gc.opening);
        ftl_wear_on_erase(s_gc.opening);
        s_gc.counters.erases_on_open++;
        s_gc.opening = FTL_BLOCK_NONE;
        s_gc.phase = GC_PH_COPY;
        return FTL_GC_CONTINUE;
    case GC_PH_PROGRAMMING:
        return complete_program();
    case GC_PH_ERASING:
        return complete_erase();
    case GC_PH_SCAN:
    case GC_PH_COPY:
    default:
        return fail(FTL_ERR_STATE);
    }
}
