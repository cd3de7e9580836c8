/*
 * gc.h - incremental garbage collection and wear-levelling relocation.
 *
 * A GC job empties one victim block: every valid page is read, programmed
 * into the GC stream's open block (keeping its original sequence number,
 * so a newer host write of the same logical page always wins at mount),
 * and remapped; then the victim is erased and returns to the free pool.
 * Two kinds of job share this machinery:
 *   RECLAIM  victim chosen by the victim policy, to gain free blocks
 *   WEAR     victim chosen by ftl_alloc_pick_cold(), to move cold data
 *
 * The job never blocks and never calls the NAND itself. It is driven in
 * split phase by the engine (ftl.c):
 *   ftl_gc_step(req)      -> FTL_GC_NAND: *req holds the next NAND
 *                            operation; execute it, then
 *   ftl_gc_complete(req)  -> FTL_GC_CONTINUE / FTL_GC_UNIT_DONE /
 *                            FTL_GC_JOB_DONE / FTL_GC_ERROR
 * One "unit" of work is one page relocation (a READ then a PROGRAM) or the
 * final ERASE, so every unit is at most two NAND operations (three when
 * the GC stream opens a block that must be erased first) and at most
 * O(pages per block) CPU work: the bound that lets a state machine or a
 * task interleave host commands between units.
 *
 * Victim policies (ftl_gc_pick_victim), over CLOSED blocks that have at
 * least one invalid page; a block with no valid page always wins first:
 *   GREEDY        fewest valid pages; ties: lower erase count, lower index
 *   COST_BENEFIT  largest (P - v) * (age + 1) / (P + v), P pages per block,
 *                 v valid pages, age = now_seq - youngest seq in the block
 *                 (LFS cleaning formula); ties: lower index
 *   WEAR_AWARE    smallest v * FTL_GC_WEAR_EC_PER_PAGE + (ec - min ec);
 *                 ties: lower index
 */
#ifndef FTL_GC_H
#define FTL_GC_H

#include "ftl_types.h"
#include "nand_sim.h"

typedef enum {
    FTL_GC_POLICY_GREEDY = 0,
    FTL_GC_POLICY_COST_BENEFIT = 1,
    FTL_GC_POLICY_WEAR_AWARE = 2
} ftl_gc_policy_t;

typedef enum {
    FTL_GC_JOB_NONE = 0,
    FTL_GC_JOB_RECLAIM,
    FTL_GC_JOB_WEAR
} ftl_gc_job_t;

typedef enum {
    FTL_GC_IDLE = 0,  /* step: no job active */
    FTL_GC_NAND,      /* step: *req filled, execute it */
    FTL_GC_WAIT,      /* step: a request is still outstanding */
    FTL_GC_CONTINUE,  /* complete: job goes on, no unit finished yet */
    FTL_GC_UNIT_DONE, /* complete: one page relocated (or dropped) */
    FTL_GC_JOB_DONE,  /* complete: victim erased and freed, job over */
    FTL_GC_ERROR      /* step/complete: job failed, see ftl_gc_error() */
} ftl_gc_result_t;

/* GC statistics since ftl_gc_init(). */
typedef struct {
    uint32_t reclaim_jobs;    /* RECLAIM jobs started */
    uint32_t wear_jobs;       /* WEAR jobs started */
    uint32_t pages_reclaim;   /* pages relocated by RECLAIM jobs */
    uint32_t pages_wear;      /* pages relocated by WEAR jobs */
    uint32_t stale_copies;    /* copies made obsolete before remapping */
    uint32_t dropped;         /* valid pages lost to a failed read check */
    uint32_t erases;          /* victims erased */
    uint32_t erases_on_open;  /* unverified free blocks erased before the
                                 GC stream used them */
} ftl_gc_counters_t;

/* No job, default policy (FTL_GC_DEFAULT_POLICY), counters cleared. */
void ftl_gc_init(void);

void ftl_gc_set_policy(ftl_gc_policy_t policy);
ftl_gc_policy_t ftl_gc_policy(void);

/* Victim chosen by `policy` among CLOSED blocks with an invalid page, or
 * FTL_BLOCK_NONE. `now_seq` is the next sequence number (for ages).
 * Pure: changes nothing. O(blocks). */
uint32_t ftl_gc_pick_victim(ftl_gc_policy_t policy, uint32_t now_seq);

/* Starts a job on `block` (must be CLOSED). FTL_ERR_BUSY if a job is
 * active, FTL_ERR_STATE if the block is not CLOSED. */
ftl_status_t ftl_gc_start(ftl_gc_job_t kind, uint32_t block);

/* Picks a victim with the current policy and starts a RECLAIM job on it.
 * FTL_ERR_NOSPACE if there is no victim. */
ftl_status_t ftl_gc_start_reclaim(uint32_t now_seq);

bool ftl_gc_active(void);
ftl_gc_job_t ftl_gc_job(void);
uint32_t ftl_gc_victim(void);

/* Next NAND operation of the active job (see top of file). */
ftl_gc_result_t ftl_gc_step(ftl_nand_req_t *req);

/* Consumes the result of the operation issued by ftl_gc_step(). */
ftl_gc_result_t ftl_gc_complete(const ftl_nand_req_t *req);

/* Why the last FTL_GC_ERROR happened (FTL_ERR_IO, FTL_ERR_NOSPACE,
 * FTL_ERR_STATE); FTL_OK if none. After an error the job is abandoned. */
ftl_status_t ftl_gc_error(void);

ftl_gc_counters_t ftl_gc_counters(void);

#endif /* FTL_GC_H */
