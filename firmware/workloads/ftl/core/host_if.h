/*
 * host_if.h - host-command front end of the FTL.
 *
 * Three independent pieces, all plain data plus run-to-completion calls:
 *
 * 1. Commands and completions (ftl_cmd_t, ftl_cpl_t) and bounded FIFO
 *    rings of each (ftl_cmdq_t, ftl_cplq_t). The rings are just data: the
 *    glue decides who pushes and who pops (an RTOS may use its own queues
 *    instead; a state machine may use these as its event queues). The
 *    engine (ftl.c) uses them internally.
 *
 * 2. The host model: for every LBA, the last write generation that was
 *    acknowledged and the last one that was issued. Page contents are a
 *    deterministic function of (lba, generation):
 *      bytes 0..3  lba, little-endian
 *      bytes 4..7  generation (>= 1), little-endian
 *      bytes 8..   xorshift32 stream seeded from (lba, generation)
 *    Generation 0 means "never written": the FTL returns all 0xFF bytes.
 *    A read is correct if it decodes to the right lba and a generation g
 *    with acked <= g <= issued and every byte matches; anything else is
 *    FTL_ERR_VERIFY. Normally acked == issued, so exactly the last data
 *    is accepted; after a power cut the writes that were in flight may
 *    legitimately read as old or new, never as anything else.
 *
 * 3. The command generator: deterministic workloads built from phases
 *    (SW sequential write, SR sequential read, RR random read, RW random
 *    write), each split into chunks so that the glue can time chunks
 *    separately (early chunks before GC starts, later ones with GC).
 *    Random LBAs come from xorshift32 with a fixed seed.
 *
 * The host model is static storage (8 bytes per LBA: 56 KiB at the
 * default geometry); everything else is caller-owned.
 */
#ifndef FTL_HOST_IF_H
#define FTL_HOST_IF_H

#include "ftl_types.h"

/* ------------------------------------------------------------------ */
/* Commands, completions, queues                                        */
/* ------------------------------------------------------------------ */

typedef enum {
    FTL_CMD_READ = 1,  /* read `count` pages at `lba` into `data` */
    FTL_CMD_WRITE = 2, /* write `count` pages from `data` to `lba` */
    FTL_CMD_TRIM = 3,  /* unmap `count` pages (volatile: see ftl.h) */
    FTL_CMD_FLUSH = 4  /* barrier: completes after all earlier commands */
} ftl_cmd_op_t;

typedef struct {
    uint8_t op;     /* ftl_cmd_op_t */
    uint8_t phase;  /* generator phase index (informational) */
    uint16_t count; /* pages, 1..FTL_CMD_MAX_PAGES; 0 for FLUSH */
    uint32_t lba;   /* first logical page */
    uint32_t tag;   /* caller's identifier, echoed in the completion */
    uint32_t chunk; /* generator chunk index within the phase */
    uint8_t *data;  /* count * FTL_NAND_PAGE_SIZE bytes (READ: filled,
                       WRITE: source); must stay valid until completion;
                       NULL for TRIM and FLUSH */
} ftl_cmd_t;

typedef struct {
    uint32_t tag;   /* from the command */
    uint32_t lba;   /* from the command */
    uint16_t count; /* from the command */
    uint8_t op;     /* from the command */
    int8_t status;  /* ftl_status_t */
} ftl_cpl_t;

/* FIFO rings of fixed capacity FTL_HOST_QUEUE_DEPTH. */
typedef struct {
    ftl_cmd_t slot[FTL_HOST_QUEUE_DEPTH];
    uint16_t head;  /* index of the oldest entry */
    uint16_t count; /* entries held */
} ftl_cmdq_t;

typedef struct {
    ftl_cpl_t slot[FTL_HOST_QUEUE_DEPTH];
    uint16_t head;
    uint16_t count;
} ftl_cplq_t;

void ftl_host_cmdq_init(ftl_cmdq_t *q);
bool ftl_host_cmdq_push(ftl_cmdq_t *q, const ftl_cmd_t *cmd); /* false if full */
bool ftl_host_cmdq_pop(ftl_cmdq_t *q, ftl_cmd_t *cmd);        /* false if empty */
uint32_t ftl_host_cmdq_count(const ftl_cmdq_t *q);

void ftl_host_cplq_init(ftl_cplq_t *q);
bool ftl_host_cplq_push(ftl_cplq_t *q, const ftl_cpl_t *cpl);
bool ftl_host_cplq_pop(ftl_cplq_t *q, ftl_cpl_t *cpl);
uint32_t ftl_host_cplq_count(const ftl_cplq_t *q);

/* Checks a command's shape: op known, count in range, LBA range inside
 * the logical space, data present for READ/WRITE. FTL_OK or
 * FTL_ERR_PARAM. */
ftl_status_t ftl_host_cmd_validate(const ftl_cmd_t *cmd);

/* ------------------------------------------------------------------ */
/* Host model and data patterns                                         */
/* ------------------------------------------------------------------ */

/* Forgets everything: every LBA at generation 0 (a formatted device). */
void ftl_host_model_reset(void);

/* Generations of an LBA (0 for an out-of-range LBA). */
uint32_t ftl_host_model_acked(uint32_t lba);
uint32_t ftl_host_model_issued(uint32_t lba);

/* After recovery from a power cut: the LBA is known to hold generation
 * `gen` (acked = issued = gen). */
void ftl_host_model_settle(uint32_t lba, uint32_t gen);

/* Writes the contents of (lba, gen) into one page buffer. gen >= 1. */
void ftl_host_fill_page(uint32_t lba, uint32_t gen, uint8_t *page);

/* Decodes a page read from `lba`: FTL_OK with *gen set (0 for an erased
 * page) if it is exactly the contents of some generation of this lba,
 * FTL_ERR_VERIFY otherwise. `gen` may be NULL. */
ftl_status_t ftl_host_decode_page(uint32_t lba, const uint8_t *page, uint32_t *gen);

/* Decodes and checks acked <= gen <= issued. FTL_OK or FTL_ERR_VERIFY. */
ftl_status_t ftl_host_verify_page(uint32_t lba, const uint8_t *page);

/* Turns `cmd` (op WRITE, lba, count set; data pointing to a buffer of
 * count pages) into a write of the next generation of each LBA: bumps
 * the issued generations and fills the buffer. FTL_ERR_PARAM on a bad
 * command. */
ftl_status_t ftl_host_prepare_write(ftl_cmd_t *cmd);

/* Accounts for a completion of `cmd`: a successful WRITE acknowledges the
 * generations in its buffer, a successful READ is verified page by page,
 * a successful TRIM resets the LBAs to generation 0. Returns the
 * completion's status if it failed, FTL_ERR_VERIFY on a data mismatch,
 * FTL_OK otherwise. */
ftl_status_t ftl_host_on_complete(const ftl_cmd_t *cmd, const ftl_cpl_t *cpl);

/* ------------------------------------------------------------------ */
/* Command generator                                                    */
/* ------------------------------------------------------------------ */

typedef enum {
    FTL_PAT_SW = 0, /* sequential write */
    FTL_PAT_SR = 1, /* sequential read */
    FTL_PAT_RR = 2, /* random read */
    FTL_PAT_RW = 3  /* random write */
} ftl_pattern_t;

/* One phase of a workload. Sequential patterns walk the region from its
 * start in steps of pages_per_cmd and wrap around; random patterns pick a
 * pages_per_cmd-aligned slot of the region uniformly. */
typedef struct {
    uint8_t pattern;         /* ftl_pattern_t */
    uint16_t pages_per_cmd;  /* 1..FTL_CMD_MAX_PAGES */
    uint32_t lba_first;      /* region start */
    uint32_t lba_count;      /* region length, >= pages_per_cmd */
    uint32_t cmds_per_chunk; /* >= 1 */
    uint32_t chunks;         /* >= 1 */
} ftl_phase_t;

typedef struct {
    const ftl_phase_t *phases; /* caller-owned, must outlive the gen */
    uint32_t phase_count;
    uint32_t phase;      /* current phase index */
    uint32_t chunk;      /* current chunk within the phase */
    uint32_t cmd;        /* commands already issued in this chunk */
    uint32_t seq_offset; /* next offset of a sequential pattern */
    uint32_t prng;       /* xorshift32 state, never 0 */
    uint32_t tag;        /* next command tag */
} ftl_gen_t;

typedef enum {
    FTL_GEN_END = 0,   /* workload finished; no command produced */
    FTL_GEN_CMD,       /* *cmd produced */
    FTL_GEN_CHUNK_START /* *cmd produced, first of a new chunk */
} ftl_gen_result_t;

/* Default generator seed. */
#define FTL_GEN_DEFAULT_SEED 0x2545F491u

/* Validates the phases and resets the generator. `seed` 0 is replaced by
 * FTL_GEN_DEFAULT_SEED. FTL_ERR_PARAM for a malformed phase. */
ftl_status_t ftl_host_gen_init(ftl_gen_t *gen, const ftl_phase_t *phases, uint32_t phase_count,
                               uint32_t seed);

/* Produces the next command into *cmd, using `buf` (pages_per_cmd pages,
 * at most FTL_CMD_MAX_PAGES * FTL_NAND_PAGE_SIZE bytes) as its data
 * buffer; for writes the buffer is filled and the host model updated
 * (ftl_host_prepare_write). The command stream depends only on the
 * phases and the seed. */
ftl_gen_result_t ftl_host_gen_next(ftl_gen_t *gen, ftl_cmd_t *cmd, uint8_t *buf);

/* Total commands the phases produce. */
uint32_t ftl_host_gen_total(const ftl_phase_t *phases, uint32_t phase_count);

/* Fills `out` (room for 4) with the default study workload over the
 * whole logical space: SW, SR, RR, RW; SW/SR use FTL_CMD_MAX_PAGES pages
 * per command in 8 chunks covering the space once; RR reads one page per
 * command, 8 chunks covering the space once; RW writes one page per
 * command, 16 chunks covering the space twice (GC starts part-way
 * through). `rw_passes` overrides the RW volume (in multiples of the
 * logical space, 0 = default 2). Returns the number of phases (4). */
uint32_t ftl_host_default_phases(ftl_phase_t *out, uint32_t rw_passes);

#endif /* FTL_HOST_IF_H */
