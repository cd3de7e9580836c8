/*
 * ftl.c - the split-phase FTL engine (see ftl.h).
 *
 * The engine owns one NAND request slot and one "current" host command.
 * Scheduling rule, applied at every step:
 *   1. if a GC job is active and GC is due (the host is blocked on space,
 *      or GC credit is left), issue the job's next NAND operation;
 *   2. otherwise advance the current host command (taking the next one
 *      from the queue if needed);
 *   3. if a host WRITE cannot get a page (free pool at the reserve), mark
 *      GC as foreground, start a job if none is active, and go to 1.
 * GC credit is granted after each host page write while a job is active,
 * so GC units interleave with host pages at fixed points of the stream.
 */
#include "ftl.h"

#include <string.h>

#include "alloc.h"
#include "map.h"
#include "util.h"
#include "wear.h"

typedef enum {
    ENG_UNMOUNTED = 0,
    ENG_READY,
    ENG_HALTED
} eng_state_t;

typedef enum {
    OWNER_NONE = 0, /* no request outstanding */
    OWNER_HOST,     /* outstanding request serves the current command */
    OWNER_GC        /* outstanding request belongs to the GC job */
} owner_t;

typedef enum {
    HOST_NAND = 0, /* a NAND request was prepared */
    HOST_DONE,     /* the current command completed */
    HOST_NEED_GC,  /* a WRITE needs free space first */
    HOST_NONE      /* no command to work on */
} host_result_t;

typedef struct {
    uint32_t cmds_completed;
    uint32_t host_pages_written;
    uint32_t host_pages_read;
    uint32_t host_pages_unmapped;
    uint32_t host_pages_trimmed;
    uint32_t read_errors;
    uint32_t gc_foreground;
    uint32_t erases_on_open;
    uint32_t nand_reads;
    uint32_t nand_programs;
    uint32_t nand_erases;
} eng_counters_t;

static struct {
    eng_state_t state;
    ftl_status_t halt_reason;

    ftl_cmdq_t cmdq;
    ftl_cplq_t cplq;

    bool cur_active;        /* `cur` is being executed */
    ftl_cmd_t cur;
    uint32_t cur_page;      /* next page index of `cur` */
    uint32_t cur_ppn;       /* physical page of the outstanding request */
    uint32_t cur_erase;     /* block of an outstanding erase-before-use,
                               FTL_BLOCK_NONE if the request is a page op */
    ftl_status_t cur_status;/* first error met by `cur` */

    ftl_nand_req_t req;
    owner_t owner;

    uint32_t next_seq;      /* sequence number of the next host page */
    uint32_t gc_credit;     /* GC units allowed before the next host page */
    bool gc_foreground;     /* a host write is blocked on free space */
    bool wl_check;          /* an erase happened: evaluate wear levelling */
    bool done_unreported;   /* a completion was queued by ftl_complete() */

    eng_counters_t n;
} s_eng;

/* ------------------------------------------------------------------ */
/* Lifecycle                                                            */
/* ------------------------------------------------------------------ */

void ftl_init(void)
{
    memset(&s_eng, 0, sizeof s_eng);
    s_eng.state = ENG_UNMOUNTED;
    s_eng.halt_reason = FTL_OK;
    ftl_host_cmdq_init(&s_eng.cmdq);
    ftl_host_cplq_init(&s_eng.cplq);
    s_eng.owner = OWNER_NONE;
    s_eng.cur_erase = FTL_BLOCK_NONE;
    s_eng.next_seq = 1u;
    ftl_map_init();
    ftl_alloc_init();
    ftl_wear_init();
    ftl_gc_init();
}

/* Common tail of format and mount. */
static void become_ready(uint32_t next_seq)
{
    ftl_gc_policy_t policy = ftl_gc_policy();
    ftl_gc_init();
    ftl_gc_set_policy(policy);
    ftl_host_cmdq_init(&s_eng.cmdq);
    ftl_host_cplq_init(&s_eng.cplq);
    s_eng.cur_active = false;
    s_eng.owner = OWNER_NONE;
    s_eng.cur_erase = FTL_BLOCK_NONE;
    s_eng.next_seq = next_seq;
    s_eng.gc_credit = 0u;
    s_eng.gc_foreground = false;
    s_eng.wl_check = true;
    s_eng.done_unreported = false;
    s_eng.halt_reason = FTL_OK;
    s_eng.state = ENG_READY;
}

ftl_status_t ftl_format(void)
{
    ftl_mount_report_t rep;
    s_eng.state = ENG_UNMOUNTED;
    ftl_status_t st = ftl_mount_format(&rep);
    if (st != FTL_OK) {
        return st;
    }
    become_ready(rep.next_seq);
    return FTL_OK;
}

ftl_status_t ftl_mount(ftl_mount_report_t *report)
{
    ftl_mount_report_t rep;
    s_eng.state = ENG_UNMOUNTED;
    ftl_status_t st = ftl_mount_rebuild(&rep);
    if (report != NULL) {
        *report = rep;
    }
    if (st != FTL_OK) {
        return st;
    }
    become_ready(rep.next_seq);
    return FTL_OK;
}

/* ------------------------------------------------------------------ */
/* Completions and halting                                              */
/* ------------------------------------------------------------------ */

static void push_completion(const ftl_cmd_t *cmd, ftl_status_t status)
{
    ftl_cpl_t cpl;
    cpl.tag = cmd->tag;
    cpl.lba = cmd->lba;
    cpl.count = cmd->count;
    cpl.op = cmd->op;
    cpl.status = (int8_t)status;
    /* Cannot overflow: ftl_submit keeps in-flight commands <= depth. */
    (void)ftl_host_cplq_push(&s_eng.cplq, &cpl);
    s_eng.n.cmds_completed++;
}

static host_result_t finish_current(ftl_status_t status)
{
    push_completion(&s_eng.cur, status);
    s_eng.cur_active = false;
    return HOST_DONE;
}

/* Stops the engine: the current and every queued command fail. */
static void halt(ftl_status_t reason)
{
    s_eng.state = ENG_HALTED;
    s_eng.halt_reason = reason;
    s_eng.owner = OWNER_NONE;
    if (s_eng.cur_active) {
        (void)finish_current(FTL_ERR_IO);
    }
    ftl_cmd_t cmd;
    while (ftl_host_cmdq_pop(&s_eng.cmdq, &cmd)) {
        push_completion(&cmd, FTL_ERR_IO);
    }
}

/* ------------------------------------------------------------------ */
/* Host side                                                            */
/* ------------------------------------------------------------------ */

uint32_t ftl_inflight(void)
{
    return ftl_host_cmdq_count(&s_eng.cmdq) + (s_eng.cur_active ? 1u : 0u) +
           ftl_host_cplq_count(&s_eng.cplq);
}

ftl_status_t ftl_submit(const ftl_cmd_t *cmd)
{
    if (s_eng.state != ENG_READY) {
        return FTL_ERR_STATE;
    }
    if (ftl_host_cmd_validate(cmd) != FTL_OK) {
        return FTL_ERR_PARAM;
    }
    if (ftl_inflight() >= FTL_HOST_QUEUE_DEPTH) {
        return FTL_ERR_BUSY;
    }
    return ftl_host_cmdq_push(&s_eng.cmdq, cmd) ? FTL_OK : FTL_ERR_BUSY;
}

bool ftl_poll(ftl_cpl_t *cpl)
{
    return ftl_host_cplq_pop(&s_eng.cplq, cpl);
}

bool ftl_ready(void)
{
    return s_eng.state == ENG_READY;
}

ftl_status_t ftl_halt_reason(void)
{
    return s_eng.halt_reason;
}

uint32_t ftl_next_seq(void)
{
    return s_eng.next_seq;
}

static uint8_t *cur_page_buffer(void)
{
    return &s_eng.cur.data[s_eng.cur_page * FTL_NAND_PAGE_SIZE];
}

/* Prepares the PROGRAM of the current WRITE page (or the erase of a newly
 * opened unverified block first), or asks for GC. */
static host_result_t write_next_page(void)
{
    ftl_nand_req_t *req = &s_eng.req;
    uint32_t unverified = ftl_alloc_prepare(FTL_STREAM_HOST);
    if (unverified != FTL_BLOCK_NONE) {
        req->op = FTL_NAND_OP_ERASE;
        req->addr = unverified;
        req->data = NULL;
        s_eng.cur_erase = unverified;
        return HOST_NAND;
    }
    uint32_t ppn;
    if (ftl_alloc_page(FTL_STREAM_HOST, &ppn) != FTL_OK) {
        return HOST_NEED_GC;
    }
    s_eng.gc_foreground = false;
    uint8_t *data = cur_page_buffer();
    req->op = FTL_NAND_OP_PROGRAM;
    req->addr = ppn;
    req->data = data;
    req->spare.lpn = s_eng.cur.lba + s_eng.cur_page;
    req->spare.seq = s_eng.next_seq++;
    req->spare.data_crc = ftl_util_crc32(0u, data, FTL_NAND_PAGE_SIZE);
    req->spare.erase_count = ftl_wear_count(FTL_PPN_BLOCK(ppn));
    req->spare.kind = FTL_SPARE_KIND_HOST;
    ftl_util_spare_seal(&req->spare);
    s_eng.cur_ppn = ppn;
    s_eng.cur_erase = FTL_BLOCK_NONE;
    return HOST_NAND;
}

/* Prepares the READ of the next mapped page of the current READ; pages
 * never written are filled with 0xFF without touching the NAND. */
static host_result_t read_next_page(void)
{
    while (s_eng.cur_page < s_eng.cur.count) {
        uint32_t ppn = ftl_map_lookup(s_eng.cur.lba + s_eng.cur_page);
        if (ppn == FTL_PPN_NONE) {
            memset(cur_page_buffer(), 0xFF, FTL_NAND_PAGE_SIZE);
            s_eng.n.host_pages_unmapped++;
            s_eng.cur_page++;
            continue;
        }
        ftl_nand_req_t *req = &s_eng.req;
        req->op = FTL_NAND_OP_READ;
        req->addr = ppn;
        req->data = cur_page_buffer();
        s_eng.cur_ppn = ppn;
        s_eng.cur_erase = FTL_BLOCK_NONE;
        return HOST_NAND;
    }
    return finish_current(s_eng.cur_status);
}

/* Advances the current host command (fetching one if needed). */
static host_result_t host_advance(void)
{
    if (!s_eng.cur_active) {
        if (!ftl_host_cmdq_pop(&s_eng.cmdq, &s_eng.cur)) {
            return HOST_NONE;
        }
        s_eng.cur_active = true;
        s_eng.cur_page = 0u;
        s_eng.cur_status = FTL_OK;
    }
    switch ((ftl_cmd_op_t)s_eng.cur.op) {
    case FTL_CMD_WRITE:
        if (s_eng.cur_page >= s_eng.cur.count) {
            return finish_current(s_eng.cur_status);
        }
        return write_next_page();
    case FTL_CMD_READ:
        return read_next_page();
    case FTL_CMD_TRIM:
        for (uint32_t i = 0; i < s_eng.cur.count; i++) {
            ftl_map_trim(s_eng.cur.lba + i);
        }
        s_eng.n.host_pages_trimmed += s_eng.cur.count;
        return finish_current(FTL_OK);
    case FTL_CMD_FLUSH:
    default:
        /* Commands run in order and each write is durable when it
         * completes, so reaching a FLUSH means it is satisfied. */
        return finish_current(FTL_OK);
    }
}

/* ------------------------------------------------------------------ */
/* GC pacing                                                            */
/* ------------------------------------------------------------------ */

/* Considers starting a job; called after every host page write.
 * Static wear levelling is evaluated once after each erase and, when it
 * fires, takes precedence over reclaim: the cold block it moves is freed
 * at the end of the job like any victim, so the job needs at most one
 * block from the pool while it runs (GC may dip into the reserve), and
 * when it ends the pool is no smaller than when it started. */
static void gc_maybe_start(void)
{
    uint32_t free_blocks = ftl_alloc_free_count();
    if (s_eng.wl_check && free_blocks >= FTL_GC_RESERVE_BLOCKS) {
        s_eng.wl_check = false;
        uint32_t cold = ftl_alloc_pick_cold();
        if (cold != FTL_BLOCK_NONE && ftl_gc_start(FTL_GC_JOB_WEAR, cold) == FTL_OK) {
            return;
        }
    }
    if (free_blocks < FTL_GC_START_BLOCKS) {
        (void)ftl_gc_start_reclaim(s_eng.next_seq);
    }
}

static void after_host_page_write(void)
{
    if (!ftl_gc_active()) {
        gc_maybe_start();
    }
    if (ftl_gc_active()) {
        s_eng.gc_credit += FTL_GC_UNITS_PER_HOST_PAGE;
    }
}

/* ------------------------------------------------------------------ */
/* Stepping                                                             */
/* ------------------------------------------------------------------ */

static void count_request(const ftl_nand_req_t *req)
{
    switch (req->op) {
    case FTL_NAND_OP_READ:
        s_eng.n.nand_reads++;
        break;
    case FTL_NAND_OP_PROGRAM:
        s_eng.n.nand_programs++;
        break;
    case FTL_NAND_OP_ERASE:
    default:
        s_eng.n.nand_erases++;
        break;
    }
}

static ftl_step_t issue(owner_t owner, ftl_nand_req_t **out)
{
    s_eng.owner = owner;
    s_eng.req.status = FTL_NAND_OK;
    count_request(&s_eng.req);
    *out = &s_eng.req;
    return FTL_STEP_NAND;
}

ftl_step_t ftl_step(ftl_nand_req_t **req)
{
    ftl_nand_req_t *dummy;
    ftl_nand_req_t **out = req != NULL ? req : &dummy;
    *out = NULL;
    if (s_eng.state == ENG_HALTED) {
        return FTL_STEP_HALTED;
    }
    if (s_eng.state != ENG_READY) {
        return FTL_STEP_IDLE;
    }
    if (s_eng.owner != OWNER_NONE) {
        return FTL_STEP_WAIT;
    }
    if (s_eng.done_unreported) {
        s_eng.done_unreported = false;
        return FTL_STEP_DONE;
    }
    /* At most two passes: a host write that needs space starts a GC job
     * on the first pass, whose first operation is issued on the second. */
    for (uint32_t pass = 0; pass < 3u; pass++) {
        if (ftl_gc_active() && (s_eng.gc_foreground || s_eng.gc_credit > 0u)) {
            ftl_gc_result_t g = ftl_gc_step(&s_eng.req);
            if (g == FTL_GC_NAND) {
                return issue(OWNER_GC, out);
            }
            if (g == FTL_GC_ERROR) {
                halt(ftl_gc_error());
                return FTL_STEP_HALTED;
            }
        }
        switch (host_advance()) {
        case HOST_NAND:
            return issue(OWNER_HOST, out);
        case HOST_DONE:
            return FTL_STEP_DONE;
        case HOST_NONE:
            return FTL_STEP_IDLE;
        case HOST_NEED_GC:
        default:
            if (!s_eng.gc_foreground) {
                s_eng.gc_foreground = true;
                s_eng.n.gc_foreground++;
            }
            if (!ftl_gc_active() && ftl_gc_start_reclaim(s_eng.next_seq) != FTL_OK) {
                halt(FTL_ERR_NOSPACE);
                return FTL_STEP_HALTED;
            }
            break;
        }
    }
    halt(FTL_ERR_STATE); /* unreachable: the GC job always issues */
    return FTL_STEP_HALTED;
}

/* Result of a host request. */
static void complete_host(const ftl_nand_req_t *req)
{
    uint32_t lpn = s_eng.cur.lba + s_eng.cur_page;
    if (s_eng.cur_erase != FTL_BLOCK_NONE) {
        /* The host block is verified erased; its first page comes next. */
        ftl_alloc_erase_done(s_eng.cur_erase);
        ftl_wear_on_erase(s_eng.cur_erase);
        s_eng.n.erases_on_open++;
        s_eng.cur_erase = FTL_BLOCK_NONE;
        return;
    }
    if (s_eng.cur.op == (uint8_t)FTL_CMD_WRITE) {
        if (ftl_map_update(lpn, s_eng.cur_ppn, NULL) != FTL_OK) {
            halt(FTL_ERR_CORRUPT);
            return;
        }
        ftl_alloc_note_seq(FTL_PPN_BLOCK(s_eng.cur_ppn), req->spare.seq);
        s_eng.n.host_pages_written++;
        s_eng.cur_page++;
        after_host_page_write();
    } else {
        /* READ: the page must be intact and belong to this logical page. */
        bool intact = ftl_util_spare_ok(&req->spare) && req->spare.lpn == lpn &&
                      ftl_util_page_crc_ok(&req->spare, req->data);
        if (!intact) {
            s_eng.n.read_errors++;
            if (s_eng.cur_status == FTL_OK) {
                s_eng.cur_status = FTL_ERR_CORRUPT;
            }
        }
        s_eng.n.host_pages_read++;
        s_eng.cur_page++;
    }
    /* Acknowledge as soon as the last page is done, before any GC unit
     * that the write earned runs. */
    if (s_eng.cur_page >= s_eng.cur.count) {
        (void)finish_current(s_eng.cur_status);
        s_eng.done_unreported = true;
    }
}

/* Result of a GC request. */
static void complete_gc(const ftl_nand_req_t *req)
{
    switch (ftl_gc_complete(req)) {
    case FTL_GC_UNIT_DONE:
        if (s_eng.gc_credit > 0u) {
            s_eng.gc_credit--;
        }
        break;
    case FTL_GC_JOB_DONE:
        s_eng.gc_credit = 0u;
        s_eng.wl_check = true;
        break;
    case FTL_GC_ERROR:
        halt(ftl_gc_error());
        break;
    case FTL_GC_CONTINUE:
    default:
        break;
    }
}

ftl_status_t ftl_complete(ftl_nand_req_t *req)
{
    if (req != &s_eng.req || s_eng.owner == OWNER_NONE || s_eng.state != ENG_READY) {
        return FTL_ERR_STATE;
    }
    owner_t owner = s_eng.owner;
    s_eng.owner = OWNER_NONE;
    if (req->status != FTL_NAND_OK) {
        halt(FTL_ERR_IO);
        return FTL_OK;
    }
    if (owner == OWNER_HOST) {
        complete_host(req);
    } else {
        complete_gc(req);
    }
    return FTL_OK;
}

/* ------------------------------------------------------------------ */
/* Synchronous driver                                                   */
/* ------------------------------------------------------------------ */

ftl_status_t ftl_run(void)
{
    for (;;) {
        ftl_nand_req_t *req;
        switch (ftl_step(&req)) {
        case FTL_STEP_NAND:
            (void)ftl_nand_execute(req);
            (void)ftl_complete(req);
            break;
        case FTL_STEP_DONE:
            break;
        case FTL_STEP_IDLE:
            return FTL_OK;
        case FTL_STEP_HALTED:
            return s_eng.halt_reason;
        case FTL_STEP_WAIT:
        default:
            return FTL_ERR_STATE;
        }
    }
}

ftl_status_t ftl_exec(const ftl_cmd_t *cmd)
{
    if (ftl_inflight() != 0u) {
        return FTL_ERR_BUSY;
    }
    ftl_status_t st = ftl_submit(cmd);
    if (st != FTL_OK) {
        return st;
    }
    (void)ftl_run();
    ftl_cpl_t cpl;
    if (!ftl_poll(&cpl)) {
        return FTL_ERR_STATE;
    }
    return (ftl_status_t)cpl.status;
}

/* ------------------------------------------------------------------ */
/* Statistics                                                           */
/* ------------------------------------------------------------------ */

uint32_t ftl_write_amp_milli(void)
{
    ftl_gc_counters_t g = ftl_gc_counters();
    uint64_t host = s_eng.n.host_pages_written;
    if (host == 0u) {
        return 1000u;
    }
    uint64_t total = host + g.pages_reclaim + g.pages_wear + g.stale_copies;
    return (uint32_t)(total * 1000u / host);
}

void ftl_stats(ftl_stats_t *out)
{
    ftl_gc_counters_t g = ftl_gc_counters();
    out->cmds_completed = s_eng.n.cmds_completed;
    out->host_pages_written = s_eng.n.host_pages_written;
    out->host_pages_read = s_eng.n.host_pages_read;
    out->host_pages_unmapped = s_eng.n.host_pages_unmapped;
    out->host_pages_trimmed = s_eng.n.host_pages_trimmed;
    out->read_errors = s_eng.n.read_errors;
    out->gc_invocations = g.reclaim_jobs;
    out->gc_foreground = s_eng.n.gc_foreground;
    out->gc_pages_relocated = g.pages_reclaim;
    out->wl_invocations = g.wear_jobs;
    out->wl_pages_relocated = g.pages_wear;
    out->gc_pages_dropped = g.dropped;
    out->erases = g.erases + g.erases_on_open + s_eng.n.erases_on_open;
    out->erases_on_open = g.erases_on_open + s_eng.n.erases_on_open;
    out->nand_reads = s_eng.n.nand_reads;
    out->nand_programs = s_eng.n.nand_programs;
    out->nand_erases = s_eng.n.nand_erases;
    out->free_blocks = ftl_alloc_free_count();
    out->wear_min = ftl_wear_min();
    out->wear_max = ftl_wear_max();
    out->write_amp_milli = ftl_write_amp_milli();
}
