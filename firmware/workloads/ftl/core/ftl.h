/*
 * ftl.h - top-level API of the FTL core: a split-phase engine made of
 * run-to-completion steps, shared verbatim by the RTOS build and the
 * event-driven state-machine build.
 *
 * The engine never blocks, never calls an OS and never touches the NAND
 * while running commands. It turns host commands into NAND requests one at
 * a time and waits for each request's result to be handed back:
 *
 *     ftl_submit(&cmd)          host side: queue a command (non-blocking)
 *     ftl_step(&req)            FTL side: advance as far as possible
 *        FTL_STEP_NAND          -> *req is a NAND request to execute
 *        FTL_STEP_DONE          -> a completion is ready: ftl_poll()
 *        FTL_STEP_IDLE          -> nothing to do until the next submit
 *        FTL_STEP_WAIT          -> a NAND request is still outstanding
 *        FTL_STEP_HALTED        -> a NAND failure stopped the engine
 *     ftl_nand_execute(req)     NAND side: perform the request (nand_sim.h)
 *     ftl_complete(req)         FTL side: consume the request's result
 *     ftl_poll(&cpl)            host side: collect a completion
 *
 * Every ftl_step()/ftl_complete() call does bounded work: at most one
 * command's bookkeeping over FTL_CMD_MAX_PAGES pages (no NAND operation),
 * one O(pages per block) bitmap scan, a few O(blocks) scans (victim
 * choice, free-block choice, wear check; only when a job starts or a block
 * is opened), and one CRC over a page. At most one NAND request is
 * outstanding.
 *
 * (a) RTOS build: three tasks and three queues, e.g.
 *       host task:  generator -> ftl_submit() (via a command queue into the
 *                   FTL task), verifies completions
 *       FTL task:   loop { r = ftl_step(&req);
 *                          NAND -> send req to NAND task, block on the
 *                                  completion queue, ftl_complete(req);
 *                          DONE -> ftl_poll() and send to host task;
 *                          IDLE -> block on the command queue, ftl_submit() }
 *       NAND task:  receive req, ftl_nand_execute(req), send it back
 *     Only the FTL task calls ftl_* engine functions, so no locking is
 *     needed inside the core. The FTL task takes a command off its OS
 *     queue only while ftl_inflight() < FTL_HOST_QUEUE_DEPTH.
 * (b) State-machine build: the same three roles as run-to-completion
 *     handlers fed by event queues: a HOST_CMD event handler calls
 *     ftl_submit() then pumps ftl_step(); a NAND_REQ event handler calls
 *     ftl_nand_execute() and posts NAND_DONE; the NAND_DONE handler calls
 *     ftl_complete() and pumps ftl_step() again; DONE results post
 *     HOST_CPL events.
 * (c) Plain synchronous use (tests, bring-up): ftl_run() / ftl_exec().
 *
 * Determinism: garbage collection is paced by host page writes (see
 * FTL_GC_UNITS_PER_HOST_PAGE), never by idle time, so for the same command
 * stream both builds issue the identical sequence of NAND operations.
 *
 * Durability: a WRITE completion means every page of it is programmed.
 * There is no write cache, so FLUSH is only an ordering barrier. TRIM is
 * volatile: it unmaps pages in RAM only; after a remount a trimmed LBA may
 * read as its old contents again.
 *
 * Lifecycle: ftl_nand_factory_reset() once on a cold boot (the simulated
 * chip lives in .bss), ftl_init() after every reset (RAM state only, the
 * NAND keeps its contents), then ftl_format() (empty device) or
 * ftl_mount() (rebuild from the NAND). After FTL_STEP_HALTED, call
 * ftl_init() and ftl_mount() again. Format and mount are synchronous and
 * not meant to be timed.
 */
#ifndef FTL_FTL_H
#define FTL_FTL_H

#include "ftl_types.h"
#include "gc.h"
#include "host_if.h"
#include "mount.h"
#include "nand_sim.h"

typedef enum {
    FTL_STEP_IDLE = 0,
    FTL_STEP_NAND,
    FTL_STEP_DONE,
    FTL_STEP_WAIT,
    FTL_STEP_HALTED
} ftl_step_t;

/* Counters the glue can report. Page counts are in NAND pages. */
typedef struct {
    uint32_t cmds_completed;       /* completions produced */
    uint32_t host_pages_written;   /* pages programmed for host WRITEs */
    uint32_t host_pages_read;      /* pages read from NAND for host READs */
    uint32_t host_pages_unmapped;  /* READ pages never written (no NAND op) */
    uint32_t host_pages_trimmed;   /* pages unmapped by TRIM */
    uint32_t read_errors;          /* host READ pages failing their checks */
    uint32_t gc_invocations;       /* RECLAIM jobs started */
    uint32_t gc_foreground;        /* host writes that had to wait for GC */
    uint32_t gc_pages_relocated;   /* pages copied by RECLAIM jobs */
    uint32_t wl_invocations;       /* WEAR (static wear levelling) jobs */
    uint32_t wl_pages_relocated;   /* pages copied by WEAR jobs */
    uint32_t gc_pages_dropped;     /* valid pages lost to failed checks */
    uint32_t erases;               /* erases issued by the engine: GC/WL
                                      victims and erase-before-use (not
                                      format) */
    uint32_t erases_on_open;       /* of which erase-before-use of blocks
                                      found erased at mount */
    uint32_t nand_reads;           /* NAND requests issued by the engine */
    uint32_t nand_programs;
    uint32_t nand_erases;
    uint32_t free_blocks;          /* free pool size now */
    uint32_t wear_min;             /* erase-count range now */
    uint32_t wear_max;
    uint32_t write_amp_milli;      /* write amplification x 1000 */
} ftl_stats_t;

/* Resets all RAM state (map, allocator, wear, GC, queues, counters) to
 * "unmounted". Does not touch the NAND. */
void ftl_init(void);

/* Formats the device: erases every block, empty map. Synchronous.
 * FTL_ERR_IO on a NAND failure (the engine stays unmounted). */
ftl_status_t ftl_format(void);

/* Rebuilds the state from the NAND (mount.h). Synchronous. `report` may
 * be NULL. FTL_ERR_IO on a NAND failure. */
ftl_status_t ftl_mount(ftl_mount_report_t *report);

/* Queues a command. FTL_ERR_STATE if not mounted or halted,
 * FTL_ERR_PARAM for a malformed command (ftl_host_cmd_validate),
 * FTL_ERR_BUSY if FTL_HOST_QUEUE_DEPTH commands are already in flight
 * (submitted but their completion not yet collected by ftl_poll()).
 * Every accepted command produces exactly one completion, in submission
 * order. The command is copied; its data buffer is not. */
ftl_status_t ftl_submit(const ftl_cmd_t *cmd);

/* Advances the engine (see top of file). *req is set for FTL_STEP_NAND
 * and NULL otherwise (pass req == NULL only to poll the state while a
 * request is outstanding). The request is owned by the
 * engine; it stays valid until passed back to ftl_complete(). Returns
 * FTL_STEP_IDLE before the first format/mount. */
ftl_step_t ftl_step(ftl_nand_req_t **req);

/* Hands back the request of the last FTL_STEP_NAND with req->status set.
 * A failed status halts the engine: the current and all queued commands
 * complete with FTL_ERR_IO. FTL_ERR_STATE if `req` is not outstanding. */
ftl_status_t ftl_complete(ftl_nand_req_t *req);

/* Takes the oldest completion; false if there is none. */
bool ftl_poll(ftl_cpl_t *cpl);

/* Commands in flight (queued, running, or completed but not polled). */
uint32_t ftl_inflight(void);

/* True if the engine is mounted and not halted. */
bool ftl_ready(void);

/* Why the engine halted (FTL_OK if it did not). */
ftl_status_t ftl_halt_reason(void);

/* Synchronous driver: steps and executes NAND requests directly until the
 * engine is idle. Completions stay queued for ftl_poll(). Returns FTL_OK,
 * or the halt reason. */
ftl_status_t ftl_run(void);

/* Submits one command, runs it, and returns its completion status.
 * Requires no command in flight (FTL_ERR_BUSY otherwise). */
ftl_status_t ftl_exec(const ftl_cmd_t *cmd);

/* Fills a counter snapshot (O(blocks) for the wear range). */
void ftl_stats(ftl_stats_t *out);

/* (host pages written + pages relocated) * 1000 / host pages written;
 * 1000 when nothing was written. */
uint32_t ftl_write_amp_milli(void);

/* Next sequence number the engine will use (tests, reporting). */
uint32_t ftl_next_seq(void);

#endif /* FTL_FTL_H */
