/*
 * test_ftl.c - host unit tests of the FTL core (firmware/workloads/ftl/core).
 *
 * Built several times with different geometries (see build_and_run.sh);
 * every test derives its sizes from ftl_config.h. The last line printed is
 * "N passed, M failed"; the exit status is non-zero if anything failed.
 *
 * Environment:
 *   FTL_TEST_SABOTAGE=1  corrupts a NAND page behind the FTL's back in the
 *                        mapping test, to prove that the tests can fail.
 *   FTL_TEST_FILTER=str  runs only tests whose name contains `str`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "ftl.h"
#include "gc.h"
#include "host_if.h"
#include "map.h"
#include "mount.h"
#include "nand_sim.h"
#include "rand.h"
#include "util.h"
#include "wear.h"

/* ------------------------------------------------------------------ */
/* Tiny test framework                                                  */
/* ------------------------------------------------------------------ */

static int g_test_failed; /* current test failed */
static int g_fail_lines;  /* failure lines printed by the current test */

static void fail_at(const char *file, int line, const char *what)
{
    g_test_failed = 1;
    if (g_fail_lines++ < 8) {
        printf("    FAIL %s:%d: %s\n", file, line, what);
    }
}

/* Records a failure and carries on. */
#define CHECK(cond)                                                                            \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fail_at(__FILE__, __LINE__, #cond);                                                \
        }                                                                                      \
    } while (0)

/* Records a failure with both values and carries on. */
#define CHECK_EQ(a, b)                                                                         \
    do {                                                                                       \
        long long va_ = (long long)(a);                                                        \
        long long vb_ = (long long)(b);                                                        \
        if (va_ != vb_) {                                                                      \
            char msg_[256];                                                                    \
            snprintf(msg_, sizeof msg_, "%s == %s (%lld != %lld)", #a, #b, va_, vb_);          \
            fail_at(__FILE__, __LINE__, msg_);                                                 \
        }                                                                                      \
    } while (0)

/* Records a failure and leaves the test function. */
#define REQUIRE(cond)                                                                          \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fail_at(__FILE__, __LINE__, #cond);                                                \
            return;                                                                            \
        }                                                                                      \
    } while (0)

#define PAGE FTL_NAND_PAGE_SIZE
#define PPB FTL_NAND_PAGES_PER_BLOCK
#define LBAS FTL_LOGICAL_PAGES

/* ------------------------------------------------------------------ */
/* Helpers                                                              */
/* ------------------------------------------------------------------ */

static uint8_t g_page[FTL_CMD_MAX_PAGES * PAGE];

/* Factory-new chip, formatted, empty host model. */
static void fresh(ftl_gc_policy_t policy)
{
    ftl_nand_factory_reset();
    ftl_init();
    ftl_gc_set_policy(policy);
    ftl_status_t st = ftl_format();
    CHECK_EQ(st, FTL_OK);
    ftl_host_model_reset();
}

/* Writes the next generation of `count` LBAs from `lba`. */
static ftl_status_t write_lbas(uint32_t lba, uint32_t count)
{
    ftl_cmd_t cmd = {0};
    cmd.op = FTL_CMD_WRITE;
    cmd.lba = lba;
    cmd.count = (uint16_t)count;
    cmd.data = g_page;
    ftl_status_t st = ftl_host_prepare_write(&cmd);
    if (st != FTL_OK) {
        return st;
    }
    st = ftl_exec(&cmd);
    ftl_cpl_t cpl = {cmd.tag, cmd.lba, cmd.count, cmd.op, (int8_t)st};
    ftl_status_t hst = ftl_host_on_complete(&cmd, &cpl);
    return st != FTL_OK ? st : hst;
}

/* Reads one LBA into g_page; returns the command status. */
static ftl_status_t read_lba(uint32_t lba)
{
    ftl_cmd_t cmd = {0};
    cmd.op = FTL_CMD_READ;
    cmd.lba = lba;
    cmd.count = 1u;
    cmd.data = g_page;
    return ftl_exec(&cmd);
}

/* Reads and verifies every LBA against the host model. Returns the number
 * of mismatches; prints the first few. */
static uint32_t verify_all(const char *ctx)
{
    uint32_t bad = 0u;
    for (uint32_t lba = 0; lba < LBAS; lba++) {
        ftl_status_t st = read_lba(lba);
        ftl_status_t vs = st == FTL_OK ? ftl_host_verify_page(lba, g_page) : st;
        if (vs != FTL_OK) {
            if (bad < 3u) {
                uint32_t gen = 0u;
                (void)ftl_host_decode_page(lba, g_page, &gen);
                printf("    [%s] lba %u: status %d, read gen %u, acked %u, issued %u\n", ctx,
                       (unsigned)lba, (int)vs, (unsigned)gen,
                       (unsigned)ftl_host_model_acked(lba), (unsigned)ftl_host_model_issued(lba));
            }
            bad++;
        }
    }
    return bad;
}

/* ---- asynchronous driver: keeps up to `depth` commands in flight ---- */

static uint8_t g_bufs[FTL_HOST_QUEUE_DEPTH][FTL_CMD_MAX_PAGES * PAGE];
static ftl_cmd_t g_fifo[FTL_HOST_QUEUE_DEPTH];

/* Running CRC over every NAND request issued (op, address), to compare
 * the operation sequences of different driving styles. */
static uint32_t g_trace_crc;
static uint32_t g_trace_len;

static void trace_request(const ftl_nand_req_t *req)
{
    uint8_t rec[5];
    rec[0] = (uint8_t)req->op;
    ftl_util_store_le32(&rec[1], req->addr);
    g_trace_crc = ftl_util_crc32(g_trace_crc, rec, sizeof rec);
    g_trace_len++;
}

typedef struct {
    uint32_t cmds;         /* completions seen */
    uint32_t cmd_errors;   /* completions with a failed status */
    uint32_t verify_errors;/* completions whose data did not verify */
    bool halted;
    ftl_status_t halt_reason;
} drive_result_t;

typedef struct {
    uint32_t depth;       /* commands kept in flight (1..QUEUE_DEPTH) */
    uint32_t nand_delay;  /* extra ftl_step() calls while a request is
                             outstanding (simulates a slow NAND task) */
} drive_style_t;

static void drain_completions(drive_result_t *res, uint32_t *head, uint32_t *count)
{
    ftl_cpl_t cpl;
    while (ftl_poll(&cpl)) {
        const ftl_cmd_t *cmd = &g_fifo[*head];
        if (*count == 0u || cpl.tag != cmd->tag) {
            res->cmd_errors++;
            continue;
        }
        ftl_status_t st = ftl_host_on_complete(cmd, &cpl);
        if (cpl.status != (int8_t)FTL_OK) {
            res->cmd_errors++;
        } else if (st != FTL_OK) {
            res->verify_errors++;
        }
        res->cmds++;
        *head = (*head + 1u) % FTL_HOST_QUEUE_DEPTH;
        (*count)--;
    }
}

static drive_result_t drive(ftl_gen_t *gen, drive_style_t style)
{
    drive_result_t res = {0};
    uint32_t head = 0u;
    uint32_t count = 0u;
    bool gen_done = false;
    for (;;) {
        while (!gen_done && count < style.depth && ftl_ready()) {
            uint32_t slot = (head + count) % FTL_HOST_QUEUE_DEPTH;
            ftl_cmd_t cmd;
            if (ftl_host_gen_next(gen, &cmd, g_bufs[slot]) == FTL_GEN_END) {
                gen_done = true;
                break;
            }
            if (ftl_submit(&cmd) != FTL_OK) {
                res.cmd_errors++;
                gen_done = true;
                break;
            }
            g_fifo[slot] = cmd;
            count++;
        }
        ftl_nand_req_t *req;
        ftl_step_t r = ftl_step(&req);
        if (r == FTL_STEP_NAND) {
            trace_request(req);
            for (uint32_t i = 0; i < style.nand_delay; i++) {
                if (ftl_step(NULL) != FTL_STEP_WAIT) {
                    res.cmd_errors++;
                }
            }
            (void)ftl_nand_execute(req);
            (void)ftl_complete(req);
        } else if (r == FTL_STEP_HALTED) {
            drain_completions(&res, &head, &count);
            res.halted = true;
            res.halt_reason = ftl_halt_reason();
            return res;
        } else if (r == FTL_STEP_IDLE && gen_done && count == 0u) {
            return res;
        }
        drain_completions(&res, &head, &count);
    }
}

static const drive_style_t k_style_default = {2u, 0u};

/* Runs phases with a seed using the default style. */
static drive_result_t run_phases(const ftl_phase_t *phases, uint32_t n, uint32_t seed)
{
    ftl_gen_t gen;
    ftl_status_t st = ftl_host_gen_init(&gen, phases, n, seed);
    CHECK_EQ(st, FTL_OK);
    return drive(&gen, k_style_default);
}

static ftl_phase_t phase(ftl_pattern_t pat, uint32_t ppc, uint32_t first, uint32_t count,
                         uint32_t cmds, uint32_t chunks)
{
    ftl_phase_t ph;
    ph.pattern = (uint8_t)pat;
    ph.pages_per_cmd = (uint16_t)ppc;
    ph.lba_first = first;
    ph.lba_count = count;
    ph.cmds_per_chunk = cmds;
    ph.chunks = chunks;
    return ph;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
    return a < b ? a : b;
}

/* Sequential fill of the whole space followed by `passes` x LBAS random
 * single-page writes: guarantees plenty of GC. */
static uint32_t gc_workload(ftl_phase_t *ph, uint32_t passes)
{
    uint32_t seq = min_u32(4u, FTL_CMD_MAX_PAGES);
    ph[0] = phase(FTL_PAT_SW, seq, 0u, LBAS, LBAS / seq, 1u);
    ph[1] = phase(FTL_PAT_RW, 1u, 0u, LBAS, LBAS, passes);
    ph[2] = phase(FTL_PAT_SR, seq, 0u, LBAS, LBAS / seq, 1u);
    return 3u;
}

/* ------------------------------------------------------------------ */
/* Utilities and NAND simulator                                         */
/* ------------------------------------------------------------------ */

static void test_util_crc_and_prng(void)
{
    CHECK_EQ(ftl_util_crc32(0u, "123456789", 9u), 0xCBF43926u);
    CHECK_EQ(ftl_util_crc32(0u, "", 0u), 0u);
    /* Continuation equals one-shot. */
    uint32_t part = ftl_util_crc32(0u, "1234", 4u);
    CHECK_EQ(ftl_util_crc32(part, "56789", 5u), 0xCBF43926u);
    uint32_t s = 1u;
    CHECK_EQ(ftl_rand_xorshift32(&s), 270369u);
    CHECK_EQ(s, 270369u);
    CHECK_EQ(ftl_rand_range(0xFFFFFFFFu, 10u), 9u);
    CHECK_EQ(ftl_rand_range(0u, 10u), 0u);

    ftl_nand_spare_t sp = {0};
    sp.lpn = 7u;
    sp.seq = 9u;
    sp.kind = FTL_SPARE_KIND_HOST;
    ftl_util_spare_seal(&sp);
    CHECK(ftl_util_spare_ok(&sp));
    sp.seq = 10u;
    CHECK(!ftl_util_spare_ok(&sp));
    memset(&sp, 0xFF, sizeof sp);
    CHECK(!ftl_util_spare_ok(&sp));
}

static void test_nand_rules(void)
{
    ftl_nand_factory_reset();
    uint8_t data[PAGE];
    uint8_t back[PAGE];
    ftl_nand_spare_t sp = {0};
    ftl_nand_spare_t sp_back;
    memset(data, 0x5A, sizeof data);
    sp.lpn = 3u;

    /* Out of order and out of range. */
    CHECK_EQ(ftl_nand_program(FTL_PPN_MAKE(1u, 1u), data, &sp), FTL_NAND_ERR_ORDER);
    CHECK_EQ(ftl_nand_program(FTL_NAND_TOTAL_PAGES, data, &sp), FTL_NAND_ERR_RANGE);
    CHECK_EQ(ftl_nand_erase(FTL_NAND_BLOCKS), FTL_NAND_ERR_RANGE);
    CHECK_EQ(ftl_nand_read(FTL_NAND_TOTAL_PAGES, back, NULL), FTL_NAND_ERR_RANGE);

    /* In order works, reprogramming does not. */
    CHECK_EQ(ftl_nand_program(FTL_PPN_MAKE(1u, 0u), data, &sp), FTL_NAND_OK);
    CHECK_EQ(ftl_nand_program(FTL_PPN_MAKE(1u, 0u), data, &sp), FTL_NAND_ERR_NOT_ERASED);
    CHECK_EQ(ftl_nand_program(FTL_PPN_MAKE(1u, 1u), data, &sp), FTL_NAND_OK);
    CHECK_EQ(ftl_nand_write_pointer(1u), 2u);

    CHECK_EQ(ftl_nand_read(FTL_PPN_MAKE(1u, 0u), back, &sp_back), FTL_NAND_OK);
    CHECK(memcmp(back, data, PAGE) == 0);
    CHECK_EQ(sp_back.lpn, 3u);
    /* Erased page reads 0xFF, spare-only read works. */
    CHECK_EQ(ftl_nand_read(FTL_PPN_MAKE(1u, 2u), back, &sp_back), FTL_NAND_OK);
    CHECK(ftl_util_is_erased(back, PAGE));
    CHECK(ftl_util_is_erased(&sp_back, sizeof sp_back));
    CHECK_EQ(ftl_nand_read(FTL_PPN_MAKE(1u, 0u), NULL, &sp_back), FTL_NAND_OK);

    /* Erase resets the block and counts. */
    CHECK_EQ(ftl_nand_erase(1u), FTL_NAND_OK);
    CHECK_EQ(ftl_nand_erase_count(1u), 1u);
    CHECK_EQ(ftl_nand_write_pointer(1u), 0u);
    CHECK_EQ(ftl_nand_read(FTL_PPN_MAKE(1u, 0u), back, NULL), FTL_NAND_OK);
    CHECK(ftl_util_is_erased(back, PAGE));

    ftl_nand_stats_t st = ftl_nand_stats();
    CHECK_EQ(st.programs, 2u);
    CHECK_EQ(st.erases, 1u);
    CHECK_EQ(st.rejected, 5u);
    CHECK_EQ(ftl_nand_mutation_count(), 3u);

    /* Bit flip injection changes exactly one bit. */
    CHECK_EQ(ftl_nand_program(FTL_PPN_MAKE(2u, 0u), data, &sp), FTL_NAND_OK);
    CHECK_EQ(ftl_nand_inject_bitflip(FTL_PPN_MAKE(2u, 0u), 9u), FTL_NAND_OK);
    CHECK_EQ(ftl_nand_read(FTL_PPN_MAKE(2u, 0u), back, NULL), FTL_NAND_OK);
    CHECK_EQ(back[1], (uint8_t)(0x5Au ^ 0x02u));
}

static void test_nand_power_cut_modes(void)
{
    uint8_t data[PAGE];
    uint8_t back[PAGE];
    ftl_nand_spare_t sp = {0};
    ftl_nand_spare_t sb;
    memset(data, 0x11, sizeof data);
    sp.lpn = 1u;
    sp.seq = 2u;
    sp.kind = FTL_SPARE_KIND_HOST;
    ftl_util_spare_seal(&sp);

    /* BEFORE: the cut program does nothing, then the chip is off. */
    ftl_nand_factory_reset();
    ftl_nand_cut_arm(2u, FTL_NAND_CUT_BEFORE);
    CHECK_EQ(ftl_nand_program(0u, data, &sp), FTL_NAND_OK);
    CHECK_EQ(ftl_nand_program(1u, data, &sp), FTL_NAND_ERR_POWER);
    CHECK(!ftl_nand_powered());
    CHECK_EQ(ftl_nand_read(0u, back, NULL), FTL_NAND_ERR_POWER);
    CHECK_EQ(ftl_nand_erase(3u), FTL_NAND_ERR_POWER);
    ftl_nand_power_restore();
    CHECK_EQ(ftl_nand_read(1u, back, &sb), FTL_NAND_OK);
    CHECK(ftl_util_is_erased(back, PAGE));
    CHECK_EQ(ftl_nand_write_pointer(0u), 1u);
    CHECK_EQ(ftl_nand_mutation_count(), 2u);

    /* TORN program: half the data, spare fails its check, page used. */
    ftl_nand_factory_reset();
    ftl_nand_cut_arm(1u, FTL_NAND_CUT_TORN);
    CHECK_EQ(ftl_nand_program(0u, data, &sp), FTL_NAND_ERR_POWER);
    ftl_nand_power_restore();
    CHECK_EQ(ftl_nand_read(0u, back, &sb), FTL_NAND_OK);
    CHECK(memcmp(back, data, PAGE / 2u) == 0);
    CHECK(ftl_util_is_erased(&back[PAGE / 2u], PAGE / 2u));
    CHECK_EQ(sb.lpn, 1u);
    CHECK(!ftl_util_spare_ok(&sb));
    CHECK_EQ(ftl_nand_program(0u, data, &sp), FTL_NAND_ERR_NOT_ERASED);

    /* AFTER: complete program, but reported as a power failure. */
    ftl_nand_factory_reset();
    ftl_nand_cut_arm(1u, FTL_NAND_CUT_AFTER);
    CHECK_EQ(ftl_nand_program(0u, data, &sp), FTL_NAND_ERR_POWER);
    ftl_nand_power_restore();
    CHECK_EQ(ftl_nand_read(0u, back, &sb), FTL_NAND_OK);
    CHECK(memcmp(back, data, PAGE) == 0);
    CHECK(ftl_util_spare_ok(&sb));

    /* TORN erase: first half erased, second half garbage and locked. */
    ftl_nand_factory_reset();
    for (uint32_t p = 0; p < PPB; p++) {
        CHECK_EQ(ftl_nand_program(FTL_PPN_MAKE(2u, p), data, &sp), FTL_NAND_OK);
    }
    ftl_nand_cut_arm(1u, FTL_NAND_CUT_TORN);
    CHECK_EQ(ftl_nand_erase(2u), FTL_NAND_ERR_POWER);
    ftl_nand_power_restore();
    CHECK_EQ(ftl_nand_erase_count(2u), 1u);
    CHECK_EQ(ftl_nand_read(FTL_PPN_MAKE(2u, 0u), back, &sb), FTL_NAND_OK);
    CHECK(ftl_util_is_erased(back, PAGE));
    CHECK_EQ(ftl_nand_read(FTL_PPN_MAKE(2u, PPB - 1u), back, &sb), FTL_NAND_OK);
    CHECK(!ftl_util_is_erased(back, PAGE));
    CHECK(!ftl_util_spare_ok(&sb));
    CHECK_EQ(ftl_nand_program(FTL_PPN_MAKE(2u, 0u), data, &sp), FTL_NAND_ERR_NOT_ERASED);
    CHECK_EQ(ftl_nand_erase(2u), FTL_NAND_OK);
    CHECK_EQ(ftl_nand_program(FTL_PPN_MAKE(2u, 0u), data, &sp), FTL_NAND_OK);

    /* Disarm prevents the cut. */
    ftl_nand_factory_reset();
    ftl_nand_cut_arm(1u, FTL_NAND_CUT_BEFORE);
    ftl_nand_cut_disarm();
    CHECK_EQ(ftl_nand_erase(0u), FTL_NAND_OK);
    CHECK(ftl_nand_powered());
}

/* ------------------------------------------------------------------ */
/* Mapping                                                              */
/* ------------------------------------------------------------------ */

static void test_map_write_read(void)
{
    fresh(FTL_GC_POLICY_GREEDY);
    uint32_t n = min_u32(LBAS, 3u * PPB);
    for (uint32_t lba = 0; lba < n; lba++) {
        REQUIRE(write_lbas(lba, 1u) == FTL_OK);
    }
    CHECK_EQ(ftl_map_mapped_count(), n);
    CHECK_EQ(ftl_map_check(), FTL_OK);
    /* Distinct physical pages, all valid, reverse map agrees. */
    for (uint32_t lba = 0; lba < n; lba++) {
        uint32_t ppn = ftl_map_lookup(lba);
        REQUIRE(ppn != FTL_PPN_NONE);
        CHECK(ftl_map_is_valid(ppn));
        CHECK_EQ(ftl_map_reverse(ppn), lba);
    }
    if (getenv("FTL_TEST_SABOTAGE") != NULL) {
        /* Deliberate corruption: the read-back check below must fail. */
        (void)ftl_nand_inject_bitflip(ftl_map_lookup(1u), 100u);
    }
    for (uint32_t lba = 0; lba < n; lba++) {
        CHECK_EQ(read_lba(lba), FTL_OK);
        CHECK_EQ(ftl_host_verify_page(lba, g_page), FTL_OK);
    }
    /* A multi-page write and read. */
    REQUIRE(write_lbas(LBAS - FTL_CMD_MAX_PAGES, FTL_CMD_MAX_PAGES) == FTL_OK);
    ftl_cmd_t cmd = {0};
    cmd.op = FTL_CMD_READ;
    cmd.lba = LBAS - FTL_CMD_MAX_PAGES;
    cmd.count = FTL_CMD_MAX_PAGES;
    cmd.data = g_page;
    CHECK_EQ(ftl_exec(&cmd), FTL_OK);
    ftl_cpl_t cpl = {0, cmd.lba, cmd.count, cmd.op, 0};
    CHECK_EQ(ftl_host_on_complete(&cmd, &cpl), FTL_OK);

    ftl_stats_t s;
    ftl_stats(&s);
    CHECK_EQ(s.host_pages_written, n + FTL_CMD_MAX_PAGES);
    CHECK_EQ(s.write_amp_milli, 1000u);
}

static void test_map_overwrite_invalidates(void)
{
    fresh(FTL_GC_POLICY_GREEDY);
    REQUIRE(write_lbas(5u, 1u) == FTL_OK);
    uint32_t first = ftl_map_lookup(5u);
    uint32_t block = FTL_PPN_BLOCK(first);
    uint32_t valid_before = ftl_map_valid_count(block);
    REQUIRE(write_lbas(5u, 1u) == FTL_OK);
    uint32_t second = ftl_map_lookup(5u);
    CHECK(second != first);
    CHECK(!ftl_map_is_valid(first));
    CHECK(ftl_map_is_valid(second));
    CHECK_EQ(ftl_map_reverse(first), FTL_LPN_NONE);
    CHECK_EQ(ftl_map_mapped_count(), 1u);
    /* Same open block: one page invalidated, one added. */
    CHECK_EQ(ftl_map_valid_count(block), valid_before);
    CHECK_EQ(ftl_map_check(), FTL_OK);
    REQUIRE(read_lba(5u) == FTL_OK);
    uint32_t gen = 0u;
    CHECK_EQ(ftl_host_decode_page(5u, g_page, &gen), FTL_OK);
    CHECK_EQ(gen, 2u);

    /* Direct map API: update returns the old page, relocate is
     * conditional, erased blocks with valid pages are refused. */
    ftl_map_init();
    uint32_t old = 0u;
    CHECK_EQ(ftl_map_update(1u, 10u, &old), FTL_OK);
    CHECK_EQ(old, FTL_PPN_NONE);
    CHECK_EQ(ftl_map_update(1u, 11u, &old), FTL_OK);
    CHECK_EQ(old, 10u);
    CHECK_EQ(ftl_map_update(2u, 11u, NULL), FTL_ERR_PARAM); /* already valid */
    CHECK(!ftl_map_relocate(1u, 10u, 12u));                /* stale source */
    CHECK(ftl_map_relocate(1u, 11u, 12u));
    CHECK_EQ(ftl_map_lookup(1u), 12u);
    CHECK_EQ(ftl_map_block_erased(FTL_PPN_BLOCK(12u)), FTL_ERR_STATE);
    ftl_map_trim(1u);
    CHECK_EQ(ftl_map_lookup(1u), FTL_PPN_NONE);
    CHECK_EQ(ftl_map_block_erased(FTL_PPN_BLOCK(12u)), FTL_OK);
    CHECK_EQ(ftl_map_check(), FTL_OK);
    /* next_valid across the whole block, including past bit 31. */
    uint32_t last = FTL_PPN_MAKE(3u, PPB - 1u);
    CHECK_EQ(ftl_map_update(0u, last, NULL), FTL_OK);
    CHECK_EQ(ftl_map_next_valid(3u, 0u), PPB - 1u);
    CHECK_EQ(ftl_map_next_valid(3u, PPB - 1u), PPB - 1u);
    CHECK_EQ(ftl_map_next_valid(4u, 0u), PPB);
}

static void test_unmapped_and_trim(void)
{
    fresh(FTL_GC_POLICY_GREEDY);
    CHECK_EQ(read_lba(7u), FTL_OK);
    CHECK(ftl_util_is_erased(g_page, PAGE));
    CHECK_EQ(ftl_host_verify_page(7u, g_page), FTL_OK);
    REQUIRE(write_lbas(7u, 2u) == FTL_OK);
    ftl_cmd_t trim = {0};
    trim.op = FTL_CMD_TRIM;
    trim.lba = 7u;
    trim.count = 1u;
    CHECK_EQ(ftl_exec(&trim), FTL_OK);
    ftl_cpl_t cpl = {0, 7u, 1u, FTL_CMD_TRIM, 0};
    CHECK_EQ(ftl_host_on_complete(&trim, &cpl), FTL_OK);
    CHECK_EQ(ftl_map_lookup(7u), FTL_PPN_NONE);
    CHECK_EQ(read_lba(7u), FTL_OK);
    CHECK(ftl_util_is_erased(g_page, PAGE));
    CHECK_EQ(read_lba(8u), FTL_OK);
    CHECK_EQ(ftl_host_verify_page(8u, g_page), FTL_OK);
    ftl_cmd_t flush = {0};
    flush.op = FTL_CMD_FLUSH;
    CHECK_EQ(ftl_exec(&flush), FTL_OK);
    ftl_stats_t s;
    ftl_stats(&s);
    CHECK_EQ(s.host_pages_trimmed, 1u);
    CHECK_EQ(s.host_pages_unmapped, 2u);
    CHECK_EQ(ftl_map_check(), FTL_OK);
}

static void test_read_detects_corruption(void)
{
    fresh(FTL_GC_POLICY_GREEDY);
    REQUIRE(write_lbas(3u, 1u) == FTL_OK);
    REQUIRE(write_lbas(3u, 1u) == FTL_OK);
    uint32_t ppn = ftl_map_lookup(3u);
    CHECK_EQ(ftl_nand_inject_bitflip(ppn, 77u), FTL_NAND_OK);
    CHECK_EQ(read_lba(3u), FTL_ERR_CORRUPT);
    ftl_stats_t s;
    ftl_stats(&s);
    CHECK_EQ(s.read_errors, 1u);
    /* At mount the damaged newest copy is ignored: the older one wins. */
    ftl_init();
    ftl_mount_report_t rep;
    REQUIRE(ftl_mount(&rep) == FTL_OK);
    CHECK_EQ(rep.pages_garbage, 1u);
    REQUIRE(read_lba(3u) == FTL_OK);
    uint32_t gen = 0u;
    CHECK_EQ(ftl_host_decode_page(3u, g_page, &gen), FTL_OK);
    CHECK_EQ(gen, 1u);
}

/* ------------------------------------------------------------------ */
/* Host queue and engine contract                                       */
/* ------------------------------------------------------------------ */

static void test_engine_queue_contract(void)
{
    ftl_nand_factory_reset();
    ftl_init();
    ftl_cmd_t cmd = {0};
    cmd.op = FTL_CMD_FLUSH;
    CHECK_EQ(ftl_submit(&cmd), FTL_ERR_STATE); /* not mounted */
    REQUIRE(ftl_format() == FTL_OK);
    ftl_host_model_reset();

    /* Malformed commands. */
    ftl_cmd_t bad = {0};
    bad.op = FTL_CMD_READ;
    bad.lba = LBAS - 1u;
    bad.count = 2u;
    bad.data = g_page;
    CHECK_EQ(ftl_submit(&bad), FTL_ERR_PARAM);
    bad.lba = 0u;
    bad.count = FTL_CMD_MAX_PAGES + 1u;
    CHECK_EQ(ftl_submit(&bad), FTL_ERR_PARAM);
    bad.count = 1u;
    bad.data = NULL;
    CHECK_EQ(ftl_submit(&bad), FTL_ERR_PARAM);
    bad.op = 99u;
    bad.data = g_page;
    CHECK_EQ(ftl_submit(&bad), FTL_ERR_PARAM);

    /* Depth limit counts uncollected completions too. */
    for (uint32_t i = 0; i < FTL_HOST_QUEUE_DEPTH; i++) {
        cmd.tag = 100u + i;
        CHECK_EQ(ftl_submit(&cmd), FTL_OK);
    }
    CHECK_EQ(ftl_submit(&cmd), FTL_ERR_BUSY);
    CHECK_EQ(ftl_run(), FTL_OK);
    CHECK_EQ(ftl_inflight(), FTL_HOST_QUEUE_DEPTH);
    CHECK_EQ(ftl_submit(&cmd), FTL_ERR_BUSY);
    ftl_cpl_t cpl;
    for (uint32_t i = 0; i < FTL_HOST_QUEUE_DEPTH; i++) {
        REQUIRE(ftl_poll(&cpl));
        CHECK_EQ(cpl.tag, 100u + i); /* in order */
        CHECK_EQ(cpl.status, FTL_OK);
    }
    CHECK(!ftl_poll(&cpl));
    CHECK_EQ(ftl_inflight(), 0u);

    /* Split phase by hand: NAND, then WAIT while outstanding. */
    ftl_cmd_t w = {0};
    w.op = FTL_CMD_WRITE;
    w.lba = 0u;
    w.count = 1u;
    w.data = g_bufs[0];
    REQUIRE(ftl_host_prepare_write(&w) == FTL_OK);
    REQUIRE(ftl_submit(&w) == FTL_OK);
    ftl_nand_req_t *req = NULL;
    REQUIRE(ftl_step(&req) == FTL_STEP_NAND);
    REQUIRE(req != NULL);
    CHECK_EQ(req->op, FTL_NAND_OP_PROGRAM);
    CHECK_EQ(ftl_step(NULL), FTL_STEP_WAIT);
    ftl_nand_req_t other = *req;
    CHECK_EQ(ftl_complete(&other), FTL_ERR_STATE); /* not the engine's */
    (void)ftl_nand_execute(req);
    CHECK_EQ(ftl_complete(req), FTL_OK);
    CHECK_EQ(ftl_complete(req), FTL_ERR_STATE); /* twice */
    CHECK_EQ(ftl_step(&req), FTL_STEP_DONE);
    REQUIRE(ftl_poll(&cpl));
    CHECK_EQ(cpl.status, FTL_OK);
    CHECK_EQ(ftl_step(&req), FTL_STEP_IDLE);

    /* Halting: a NAND failure fails the current and queued commands. */
    ftl_cmd_t w2 = w;
    REQUIRE(ftl_host_prepare_write(&w2) == FTL_OK);
    REQUIRE(ftl_submit(&w2) == FTL_OK);
    REQUIRE(ftl_submit(&cmd) == FTL_OK);
    ftl_nand_cut_arm(1u, FTL_NAND_CUT_BEFORE);
    CHECK_EQ(ftl_run(), FTL_ERR_IO);
    CHECK(!ftl_ready());
    CHECK_EQ(ftl_step(NULL), FTL_STEP_HALTED);
    REQUIRE(ftl_poll(&cpl));
    CHECK_EQ(cpl.status, FTL_ERR_IO);
    REQUIRE(ftl_poll(&cpl));
    CHECK_EQ(cpl.status, FTL_ERR_IO);
    CHECK_EQ(cpl.op, FTL_CMD_FLUSH);
    CHECK_EQ(ftl_submit(&cmd), FTL_ERR_STATE);
    /* Remount after power returns. */
    ftl_nand_power_restore();
    ftl_init();
    REQUIRE(ftl_mount(NULL) == FTL_OK);
    CHECK(ftl_ready());
    REQUIRE(read_lba(0u) == FTL_OK);
    CHECK_EQ(ftl_host_verify_page(0u, g_page), FTL_OK);
}

/* ------------------------------------------------------------------ */
/* Garbage collection                                                   */
/* ------------------------------------------------------------------ */

static void gc_preserves_data(ftl_gc_policy_t policy)
{
    fresh(policy);
    ftl_phase_t ph[3];
    uint32_t n = gc_workload(ph, 3u);
    drive_result_t r = run_phases(ph, n, 0xC0FFEEu);
    CHECK(!r.halted);
    CHECK_EQ(r.cmd_errors, 0u);
    CHECK_EQ(r.verify_errors, 0u);
    CHECK_EQ(r.cmds, ftl_host_gen_total(ph, n));
    ftl_stats_t s;
    ftl_stats(&s);
    CHECK(s.gc_invocations > 0u);
    CHECK(s.gc_pages_relocated > 0u);
    CHECK(s.erases > 0u);
    CHECK(s.write_amp_milli > 1000u);
    CHECK_EQ(s.gc_pages_dropped, 0u);
    CHECK_EQ(s.host_pages_written, LBAS + 3u * LBAS);
    CHECK(s.free_blocks >= FTL_GC_RESERVE_BLOCKS);
    /* Every program is either a host page or a GC/WL copy. */
    ftl_gc_counters_t g = ftl_gc_counters();
    CHECK_EQ(s.nand_programs, s.host_pages_written + g.pages_reclaim + g.pages_wear +
                                  g.stale_copies);
    CHECK_EQ(s.nand_erases, s.erases);
    CHECK_EQ(ftl_map_check(), FTL_OK);
    CHECK_EQ(ftl_map_mapped_count(), LBAS);
    CHECK_EQ(verify_all("gc"), 0u);
    /* FTL wear counters track the chip's physical erase counts. */
    for (uint32_t b = 0; b < FTL_NAND_BLOCKS; b++) {
        CHECK_EQ(ftl_wear_count(b), ftl_nand_erase_count(b));
    }
}

static void test_gc_preserves_data_greedy(void)
{
    gc_preserves_data(FTL_GC_POLICY_GREEDY);
}

static void test_gc_preserves_data_cost_benefit(void)
{
    gc_preserves_data(FTL_GC_POLICY_COST_BENEFIT);
}

static void test_gc_preserves_data_wear_aware(void)
{
    gc_preserves_data(FTL_GC_POLICY_WEAR_AWARE);
}

static void test_gc_triggers_at_threshold(void)
{
    fresh(FTL_GC_POLICY_GREEDY);
    /* Write (wrapping over the logical space) until GC starts. No job may
     * start while the pool stays at or above the start threshold; the
     * first job starts on the write that opens a block at the threshold. */
    uint32_t i = 0u;
    while (ftl_gc_counters().reclaim_jobs == 0u) {
        uint32_t before = ftl_alloc_free_count();
        REQUIRE(write_lbas(i % LBAS, 1u) == FTL_OK);
        i++;
        REQUIRE(i < 4u * LBAS);
        if (ftl_gc_counters().reclaim_jobs == 0u) {
            CHECK(ftl_alloc_free_count() >= FTL_GC_START_BLOCKS);
        } else {
            CHECK_EQ(before, FTL_GC_START_BLOCKS);
        }
    }
    CHECK(i > LBAS); /* not before the space was filled once */
    /* Keep writing: GC keeps the pool at or above the reserve. */
    for (uint32_t k = 0; k < 4u * PPB * FTL_GC_START_BLOCKS; k++) {
        REQUIRE(write_lbas(i % LBAS, 1u) == FTL_OK);
        i++;
        CHECK(ftl_alloc_free_count() >= FTL_GC_RESERVE_BLOCKS);
    }
    CHECK(ftl_gc_counters().reclaim_jobs > 1u);
    /* Sequential overwrites leave fully invalid victims: one GC unit per
     * host page is plenty, so incremental GC never stalls a host write. */
    ftl_stats_t s;
    ftl_stats(&s);
    CHECK_EQ(s.gc_foreground, 0u);
    CHECK_EQ(s.gc_pages_relocated, 0u);
    CHECK_EQ(verify_all("threshold"), 0u);
}

/* Puts `valid` valid pages at the start of `block` using lpns from *lpn. */
static void build_block(uint32_t block, uint32_t valid, uint32_t ec, uint32_t last_seq,
                        uint32_t *lpn)
{
    CHECK_EQ(ftl_alloc_set_closed(block), FTL_OK);
    for (uint32_t p = 0; p < valid; p++) {
        CHECK_EQ(ftl_map_update((*lpn)++, FTL_PPN_MAKE(block, p), NULL), FTL_OK);
    }
    ftl_wear_set(block, ec);
    ftl_alloc_set_last_seq(block, last_seq);
}

static void test_gc_victim_policy(void)
{
    ftl_init();
    for (uint32_t b = 0; b < FTL_NAND_BLOCKS; b++) {
        CHECK_EQ(ftl_alloc_release(b), FTL_OK);
    }
    uint32_t lpn = 0u;
    /* block valid ec last_seq    greedy  cost-benefit       wear cost  */
    build_block(1u, 4u, 0u, 900u, &lpn);  /*  4   (P-4)*101/(P+4)   8 + 0  */
    build_block(2u, 2u, 20u, 900u, &lpn); /*  2   (P-2)*101/(P+2)   4 + 20 */
    build_block(3u, 3u, 15u, 10u, &lpn);  /*  3   (P-3)*991/(P+3)   6 + 15 */
    build_block(4u, 2u, 19u, 900u, &lpn); /*  2   (P-2)*101/(P+2)   4 + 19 */
    build_block(5u, PPB, 0u, 10u, &lpn);  /* full: never a victim        */
    const uint32_t now = 1000u;
    /* Greedy: fewest valid (2: blocks 2 and 4), tie to lower erase count. */
    CHECK_EQ(ftl_gc_pick_victim(FTL_GC_POLICY_GREEDY, now), 4u);
    /* Cost-benefit: the old block 3 wins despite more valid pages. */
    CHECK_EQ(ftl_gc_pick_victim(FTL_GC_POLICY_COST_BENEFIT, now), 3u);
    /* Wear-aware: the least-worn block 1 wins. */
    CHECK_EQ(ftl_gc_pick_victim(FTL_GC_POLICY_WEAR_AWARE, now), 1u);

    /* A closed block without valid pages beats everything. */
    build_block(6u, 0u, 50u, 0u, &lpn);
    CHECK_EQ(ftl_gc_pick_victim(FTL_GC_POLICY_GREEDY, now), 6u);
    CHECK_EQ(ftl_gc_pick_victim(FTL_GC_POLICY_COST_BENEFIT, now), 6u);
    CHECK_EQ(ftl_gc_pick_victim(FTL_GC_POLICY_WEAR_AWARE, now), 6u);
    CHECK_EQ(ftl_alloc_release(6u), FTL_OK);

    /* Open and free blocks are never victims, even when empty. */
    uint32_t ppn;
    CHECK_EQ(ftl_alloc_page(FTL_STREAM_HOST, &ppn), FTL_OK);
    CHECK_EQ(ftl_alloc_state(FTL_PPN_BLOCK(ppn)), FTL_BLOCK_OPEN);
    CHECK_EQ(ftl_gc_pick_victim(FTL_GC_POLICY_GREEDY, now), 4u);

    /* Invalidate two pages of block 1: greedy now prefers it (2 valid,
     * erase count 0). */
    ftl_map_trim(0u);
    ftl_map_trim(1u);
    CHECK_EQ(ftl_gc_pick_victim(FTL_GC_POLICY_GREEDY, now), 1u);

    /* Job start rules. */
    ftl_gc_init();
    CHECK_EQ(ftl_gc_start(FTL_GC_JOB_RECLAIM, FTL_PPN_BLOCK(ppn)), FTL_ERR_STATE);
    CHECK_EQ(ftl_gc_start(FTL_GC_JOB_RECLAIM, 7u), FTL_ERR_STATE); /* free */
    CHECK_EQ(ftl_gc_start(FTL_GC_JOB_RECLAIM, 2u), FTL_OK);
    CHECK_EQ(ftl_gc_start(FTL_GC_JOB_RECLAIM, 3u), FTL_ERR_BUSY);
    CHECK_EQ(ftl_gc_victim(), 2u);
}

static void test_gc_incremental_bounded(void)
{
    /* Drive a GC job by hand: each unit is at most READ+PROGRAM or one
     * ERASE, and the victim is freed at the end. */
    fresh(FTL_GC_POLICY_GREEDY);
    for (uint32_t lba = 0; lba < 2u * PPB; lba++) {
        REQUIRE(write_lbas(lba, 1u) == FTL_OK);
    }
    for (uint32_t lba = 0; lba < PPB; lba += 2u) {
        REQUIRE(write_lbas(lba, 1u) == FTL_OK); /* half of block 1 stale */
    }
    uint32_t victim = FTL_PPN_BLOCK(ftl_map_lookup(1u));
    REQUIRE(ftl_alloc_state(victim) == FTL_BLOCK_CLOSED);
    uint32_t valid = ftl_map_valid_count(victim);
    REQUIRE(valid == PPB / 2u);
    REQUIRE(ftl_gc_start(FTL_GC_JOB_RECLAIM, victim) == FTL_OK);
    uint32_t units = 0u;
    uint32_t ops = 0u;
    uint32_t free_before = ftl_alloc_free_count();
    for (;;) {
        ftl_nand_req_t req;
        ftl_gc_result_t r = ftl_gc_step(&req);
        REQUIRE(r == FTL_GC_NAND);
        CHECK_EQ(ftl_gc_step(&req), FTL_GC_WAIT);
        (void)ftl_nand_execute(&req);
        ops++;
        r = ftl_gc_complete(&req);
        if (r == FTL_GC_UNIT_DONE) {
            units++;
        } else if (r == FTL_GC_JOB_DONE) {
            units++;
            break;
        } else {
            REQUIRE(r == FTL_GC_CONTINUE);
        }
        REQUIRE(ops < 4u * PPB);
    }
    CHECK_EQ(units, valid + 1u);
    CHECK_EQ(ops, 2u * valid + 1u);
    CHECK(!ftl_gc_active());
    CHECK_EQ(ftl_alloc_state(victim), FTL_BLOCK_FREE);
    /* One GC block opened from the pool, the victim returned to it. */
    CHECK_EQ(ftl_alloc_free_count(), free_before);
    CHECK_EQ(ftl_map_check(), FTL_OK);
    CHECK_EQ(ftl_gc_step(NULL), FTL_GC_IDLE);
    CHECK_EQ(verify_all("incremental"), 0u);
}

/* ------------------------------------------------------------------ */
/* Wear                                                                 */
/* ------------------------------------------------------------------ */

static void test_wear_counters_and_trigger(void)
{
    fresh(FTL_GC_POLICY_GREEDY);
    for (uint32_t b = 0; b < FTL_NAND_BLOCKS; b++) {
        CHECK_EQ(ftl_wear_count(b), 1u); /* format erased each block once */
    }
    CHECK_EQ(ftl_wear_min(), 1u);
    CHECK_EQ(ftl_wear_max(), 1u);

    ftl_init();
    for (uint32_t b = 0; b < FTL_NAND_BLOCKS; b++) {
        CHECK_EQ(ftl_alloc_release(b), FTL_OK);
    }
    ftl_wear_set(0u, 100u);                  /* worn, free */
    ftl_wear_set(1u, 0u);                    /* least worn, but free */
    CHECK_EQ(ftl_alloc_set_closed(2u), FTL_OK);
    ftl_wear_set(2u, 100u - FTL_WL_THRESHOLD); /* spread == threshold */
    CHECK_EQ(ftl_alloc_set_closed(3u), FTL_OK);
    ftl_wear_set(3u, 100u);
    for (uint32_t b = 4u; b < FTL_NAND_BLOCKS; b++) {
        ftl_wear_set(b, 100u);
    }
    CHECK_EQ(ftl_alloc_pick_cold(), FTL_BLOCK_NONE);
    ftl_wear_set(2u, 100u - FTL_WL_THRESHOLD - 1u);
    CHECK_EQ(ftl_alloc_pick_cold(), 2u);
    CHECK_EQ(ftl_alloc_wear_triggers(), 1u);
    ftl_wear_on_erase(2u);
    CHECK_EQ(ftl_wear_count(2u), 100u - FTL_WL_THRESHOLD);
    CHECK_EQ(ftl_alloc_pick_cold(), FTL_BLOCK_NONE);

    /* Allocator: host takes the least worn free block, GC the most. */
    uint32_t ppn;
    CHECK_EQ(ftl_alloc_page(FTL_STREAM_HOST, &ppn), FTL_OK);
    CHECK_EQ(FTL_PPN_BLOCK(ppn), 1u);
    CHECK_EQ(ftl_alloc_page(FTL_STREAM_GC, &ppn), FTL_OK);
    CHECK_EQ(FTL_PPN_BLOCK(ppn), 0u);
}

static void test_static_wear_levelling(void)
{
    fresh(FTL_GC_POLICY_GREEDY);
    /* Fill everything once (cold data), then hammer a small hot region. */
    uint32_t hot = 2u * PPB;
    uint32_t passes = 2u * (FTL_WL_THRESHOLD + 4u) * FTL_NAND_TOTAL_PAGES / hot;
    ftl_phase_t ph[3];
    uint32_t seq = min_u32(4u, FTL_CMD_MAX_PAGES);
    ph[0] = phase(FTL_PAT_SW, seq, 0u, LBAS, LBAS / seq, 1u);
    ph[1] = phase(FTL_PAT_RW, 1u, 0u, hot, hot, passes);
    ph[2] = phase(FTL_PAT_SR, seq, 0u, LBAS, LBAS / seq, 1u);
    drive_result_t r = run_phases(ph, 3u, 77u);
    CHECK(!r.halted);
    CHECK_EQ(r.cmd_errors, 0u);
    CHECK_EQ(r.verify_errors, 0u);
    ftl_stats_t s;
    ftl_stats(&s);
    CHECK(s.wl_invocations > 0u);
    CHECK(s.wl_pages_relocated > 0u);
    /* Without static levelling the cold blocks would stay at erase
     * count 1 while the hot ones climb. With it, every block takes part:
     * the spread stays within a small multiple of the threshold (jobs are
     * paced by host writes, so it can overshoot a little). */
    uint32_t spread = s.wear_max - s.wear_min;
    printf("    wear %u..%u after %u WL jobs (%u pages), %u GC jobs\n", (unsigned)s.wear_min,
           (unsigned)s.wear_max, (unsigned)s.wl_invocations, (unsigned)s.wl_pages_relocated,
           (unsigned)s.gc_invocations);
    CHECK(s.wear_max > 2u * FTL_WL_THRESHOLD);
    CHECK(spread <= 2u * FTL_WL_THRESHOLD);
    CHECK_EQ(verify_all("wl"), 0u);
    CHECK_EQ(ftl_map_check(), FTL_OK);
}

/* ------------------------------------------------------------------ */
/* Mount                                                                */
/* ------------------------------------------------------------------ */

static ftl_ppn_t g_l2p_before[LBAS];
static uint16_t g_valid_before[FTL_NAND_BLOCKS];
static uint32_t g_wear_before[FTL_NAND_BLOCKS];

static void snapshot_l2p(void)
{
    for (uint32_t l = 0; l < LBAS; l++) {
        g_l2p_before[l] = (ftl_ppn_t)ftl_map_lookup(l);
    }
}

/* Compares the current map with the snapshot. The only difference mount
 * may legitimately make is a tie: while a GC job is half-way, a page and
 * its copy (same lpn, seq and data) both exist, and either may be chosen.
 * Returns the number of other differences; *ties receives the ties. */
static uint32_t compare_l2p(uint32_t *ties)
{
    uint32_t diff = 0u;
    *ties = 0u;
    for (uint32_t l = 0; l < LBAS; l++) {
        uint32_t now = ftl_map_lookup(l);
        uint32_t before = g_l2p_before[l];
        if (now == before) {
            continue;
        }
        ftl_nand_spare_t a;
        ftl_nand_spare_t b;
        if (now != FTL_PPN_NONE && before != FTL_PPN_NONE &&
            ftl_nand_read(now, NULL, &a) == FTL_NAND_OK &&
            ftl_nand_read(before, NULL, &b) == FTL_NAND_OK && a.lpn == l && b.lpn == l &&
            a.seq == b.seq && a.data_crc == b.data_crc) {
            (*ties)++;
        } else {
            diff++;
        }
    }
    return diff;
}

static void test_mount_rebuild_equals_map(void)
{
    fresh(FTL_GC_POLICY_GREEDY);
    ftl_phase_t ph[3];
    uint32_t n = gc_workload(ph, 2u);
    drive_result_t r = run_phases(ph, n, 4242u);
    REQUIRE(!r.halted && r.cmd_errors == 0u && r.verify_errors == 0u);
    bool gc_half_way = ftl_gc_active();
    snapshot_l2p();
    for (uint32_t b = 0; b < FTL_NAND_BLOCKS; b++) {
        g_valid_before[b] = (uint16_t)ftl_map_valid_count(b);
        g_wear_before[b] = ftl_wear_count(b);
    }
    uint32_t seq_before = ftl_next_seq();

    ftl_init(); /* reboot: RAM state gone, NAND kept */
    CHECK_EQ(ftl_map_mapped_count(), 0u);
    ftl_mount_report_t rep;
    REQUIRE(ftl_mount(&rep) == FTL_OK);
    CHECK_EQ(rep.pages_garbage, 0u);
    CHECK_EQ(rep.pages_mapped, LBAS);
    CHECK_EQ(rep.next_seq, seq_before);
    CHECK_EQ(rep.blocks_free + rep.blocks_closed + rep.blocks_resumed, FTL_NAND_BLOCKS);
    /* The open host block is resumed where it stopped. */
    CHECK(rep.blocks_resumed >= 1u);
    uint32_t ties;
    CHECK_EQ(compare_l2p(&ties), 0u);
    if (!gc_half_way) {
        CHECK_EQ(ties, 0u);
    }
    for (uint32_t b = 0; b < FTL_NAND_BLOCKS; b++) {
        if (ties == 0u) {
            CHECK_EQ(ftl_map_valid_count(b), g_valid_before[b]);
        }
        if (ftl_alloc_state(b) == FTL_BLOCK_CLOSED) {
            CHECK_EQ(ftl_wear_count(b), g_wear_before[b]);
        }
    }
    CHECK_EQ(ftl_map_check(), FTL_OK);
    CHECK_EQ(verify_all("remount"), 0u);

    /* The remounted FTL keeps working, GC included. */
    ftl_phase_t more = phase(FTL_PAT_RW, 1u, 0u, LBAS, LBAS, 1u);
    r = run_phases(&more, 1u, 99u);
    CHECK(!r.halted);
    CHECK_EQ(r.cmd_errors, 0u);
    CHECK_EQ(verify_all("after remount"), 0u);

    /* Remount again (this time possibly with a GC job half-way): the same
     * map up to ties between a page and its GC copy. */
    gc_half_way = ftl_gc_active();
    snapshot_l2p();
    ftl_init();
    REQUIRE(ftl_mount(NULL) == FTL_OK);
    CHECK_EQ(compare_l2p(&ties), 0u);
    if (!gc_half_way) {
        CHECK_EQ(ties, 0u);
    }
    CHECK_EQ(ftl_map_check(), FTL_OK);
    CHECK_EQ(verify_all("second remount"), 0u);
}

static void test_mount_blank_and_unformatted(void)
{
    /* A factory-new chip mounts as empty. */
    ftl_nand_factory_reset();
    ftl_init();
    ftl_mount_report_t rep;
    REQUIRE(ftl_mount(&rep) == FTL_OK);
    CHECK_EQ(rep.blocks_free, FTL_NAND_BLOCKS);
    CHECK_EQ(rep.pages_mapped, 0u);
    CHECK_EQ(rep.next_seq, 1u);
    /* Format keeps erase counts learnt from the spare areas. */
    ftl_host_model_reset();
    REQUIRE(ftl_format() == FTL_OK);
    for (uint32_t i = 0; i < 3u * PPB; i++) {
        REQUIRE(write_lbas(i % PPB, 1u) == FTL_OK);
    }
    uint32_t used = FTL_PPN_BLOCK(ftl_map_lookup(0u));
    uint32_t ec = ftl_wear_count(used);
    ftl_init();
    REQUIRE(ftl_format() == FTL_OK);
    CHECK_EQ(ftl_wear_count(used), ec + 1u);
    CHECK_EQ(ftl_map_mapped_count(), 0u);
}

/* A block whose erase was interrupted can read as fully erased although
 * it is not programmable: mount must not trust it, and erases it before
 * first use. */
static void test_mount_torn_erase_looks_erased(void)
{
    fresh(FTL_GC_POLICY_GREEDY);
    for (uint32_t lba = 0; lba < PPB / 2u; lba++) {
        REQUIRE(write_lbas(lba, 1u) == FTL_OK);
    }
    uint32_t block = FTL_PPN_BLOCK(ftl_map_lookup(0u));
    /* Power fails while that block is being erased (e.g. as a victim). */
    ftl_nand_cut_arm(1u, FTL_NAND_CUT_TORN);
    CHECK_EQ(ftl_nand_erase(block), FTL_NAND_ERR_POWER);
    ftl_nand_power_restore();
    CHECK_EQ(ftl_nand_write_pointer(block), PPB); /* not programmable */
    ftl_init();
    ftl_mount_report_t rep;
    REQUIRE(ftl_mount(&rep) == FTL_OK);
    CHECK_EQ(ftl_alloc_state(block), FTL_BLOCK_FREE);
    CHECK(ftl_alloc_needs_erase(block));
    CHECK_EQ(rep.pages_mapped, 0u);
    ftl_host_model_reset(); /* the erase took the data with it */
    /* Use every block at least once: the FTL must keep working. */
    ftl_phase_t ph[2];
    ph[0] = phase(FTL_PAT_SW, 1u, 0u, LBAS, LBAS, 1u);
    ph[1] = phase(FTL_PAT_RW, 1u, 0u, LBAS, LBAS, 1u);
    drive_result_t r = run_phases(ph, 2u, 5u);
    CHECK(!r.halted);
    CHECK_EQ(r.cmd_errors, 0u);
    CHECK(!ftl_alloc_needs_erase(block));
    ftl_stats_t s;
    ftl_stats(&s);
    CHECK(s.erases_on_open > 0u);
    CHECK_EQ(verify_all("torn erase"), 0u);
}

/* Power cut during format: mount still works, a new format recovers. */
static void test_mount_after_cut_format(void)
{
    for (uint32_t n = 1u; n <= FTL_NAND_BLOCKS; n += (FTL_NAND_BLOCKS / 8u) + 1u) {
        fresh(FTL_GC_POLICY_GREEDY);
        for (uint32_t lba = 0; lba < LBAS; lba += FTL_CMD_MAX_PAGES) {
            REQUIRE(write_lbas(lba, min_u32(FTL_CMD_MAX_PAGES, LBAS - lba)) == FTL_OK);
        }
        ftl_nand_cut_arm(n, FTL_NAND_CUT_TORN);
        ftl_init();
        CHECK_EQ(ftl_format(), FTL_ERR_IO);
        ftl_nand_power_restore();
        ftl_init();
        REQUIRE(ftl_mount(NULL) == FTL_OK);
        CHECK_EQ(ftl_map_check(), FTL_OK);
        /* Whatever survived reads back as some intact generation. */
        for (uint32_t lba = 0; lba < LBAS; lba++) {
            REQUIRE(read_lba(lba) == FTL_OK);
            CHECK_EQ(ftl_host_decode_page(lba, g_page, NULL), FTL_OK);
        }
        REQUIRE(ftl_format() == FTL_OK);
        CHECK_EQ(ftl_map_mapped_count(), 0u);
        CHECK_EQ(ftl_alloc_free_count(), FTL_NAND_BLOCKS);
    }
}

/* ------------------------------------------------------------------ */
/* Power cut at every program/erase step                                */
/* ------------------------------------------------------------------ */

/* Workload: sequential fill, random single-page writes, random
 * multi-page writes (a cut inside a multi-page command), a read-back. */
static uint32_t cut_workload(ftl_phase_t *ph)
{
    uint32_t seq = min_u32(4u, FTL_CMD_MAX_PAGES);
    uint32_t multi = min_u32(2u, FTL_CMD_MAX_PAGES);
    ph[0] = phase(FTL_PAT_SW, seq, 0u, LBAS, LBAS / seq, 1u);
    ph[1] = phase(FTL_PAT_RW, 1u, 0u, LBAS, LBAS, 2u);
    ph[2] = phase(FTL_PAT_RW, multi, 0u, LBAS, LBAS / (2u * multi), 1u);
    ph[3] = phase(FTL_PAT_SR, seq, 0u, LBAS, LBAS / seq, 1u);
    return 4u;
}

#define CUT_SEED 0x5EED0001u

typedef struct {
    uint32_t runs;         /* cut points tried */
    uint32_t inflight_new; /* in-flight LBAs that read back as new data */
    uint32_t inflight_old; /* in-flight LBAs that read back as old data */
    uint32_t torn_pages;   /* garbage pages seen by mount */
} cut_tally_t;

/* Reboot after a cut: power back, RAM state lost, mount, then check that
 * every LBA holds its last acknowledged data or, for a write that was in
 * flight, old or new data; never anything else. The host model then
 * settles on what was found. Returns false (after reporting) on the first
 * inconsistency. */
static bool recover_and_check(const char *what, uint32_t n, ftl_nand_cut_mode_t mode,
                              cut_tally_t *tally)
{
    ftl_nand_power_restore();
    ftl_nand_cut_disarm();
    ftl_init();
    ftl_mount_report_t rep;
    if (ftl_mount(&rep) != FTL_OK || ftl_map_check() != FTL_OK) {
        printf("    %s cut %u mode %d: mount failed\n", what, (unsigned)n, (int)mode);
        return false;
    }
    tally->torn_pages += rep.pages_garbage;
    for (uint32_t lba = 0; lba < LBAS; lba++) {
        ftl_status_t st = read_lba(lba);
        uint32_t got = 0u;
        ftl_status_t dec = st == FTL_OK ? ftl_host_decode_page(lba, g_page, &got) : st;
        uint32_t acked = ftl_host_model_acked(lba);
        uint32_t issued = ftl_host_model_issued(lba);
        if (dec != FTL_OK || got < acked || got > issued) {
            printf("    %s cut %u mode %d: lba %u read status %d gen %u, acked %u issued %u\n",
                   what, (unsigned)n, (int)mode, (unsigned)lba, (int)dec, (unsigned)got,
                   (unsigned)acked, (unsigned)issued);
            return false;
        }
        if (acked != issued) {
            if (got == acked) {
                tally->inflight_old++;
            } else {
                tally->inflight_new++;
            }
        }
        ftl_host_model_settle(lba, got);
    }
    return true;
}

/* Runs `phases` with a cut armed at mutating op `n`; true if it halted
 * cleanly with an I/O error (false: it finished before op n, or broke). */
static bool run_with_cut(const ftl_phase_t *ph, uint32_t np, uint32_t seed, uint32_t n,
                         ftl_nand_cut_mode_t mode, bool *finished)
{
    ftl_nand_cut_arm(n, mode);
    ftl_gen_t gen;
    (void)ftl_host_gen_init(&gen, ph, np, seed);
    drive_result_t r = drive(&gen, k_style_default);
    *finished = !r.halted && r.cmd_errors == 0u && r.verify_errors == 0u;
    if (*finished) {
        ftl_nand_cut_disarm();
        return false;
    }
    if (!r.halted || r.halt_reason != FTL_ERR_IO || r.verify_errors != 0u) {
        printf("    cut %u mode %d: run did not halt cleanly (halted %d reason %d verify %u)\n",
               (unsigned)n, (int)mode, (int)r.halted, (int)r.halt_reason,
               (unsigned)r.verify_errors);
        return false;
    }
    return true;
}

/* After recovery the FTL must keep working: more writes, then
 * everything verifies. */
static bool still_usable(uint32_t n, ftl_nand_cut_mode_t mode)
{
    ftl_phase_t post = phase(FTL_PAT_RW, 1u, 0u, LBAS, 2u * PPB, 1u);
    drive_result_t r = run_phases(&post, 1u, n);
    if (r.halted || r.cmd_errors != 0u || verify_all("post-cut") != 0u) {
        printf("    cut %u mode %d: FTL unusable after recovery\n", (unsigned)n, (int)mode);
        return false;
    }
    return true;
}

/* One run: fresh device, cut at mutating op `n` of the workload, reboot,
 * mount, verify, keep using it. */
static bool cut_run(uint32_t n, ftl_nand_cut_mode_t mode, cut_tally_t *tally)
{
    ftl_phase_t ph[4];
    uint32_t np = cut_workload(ph);
    fresh(FTL_GC_POLICY_GREEDY);
    bool finished;
    if (!run_with_cut(ph, np, CUT_SEED, n, mode, &finished)) {
        return false;
    }
    if (!recover_and_check("first", n, mode, tally) || !still_usable(n, mode)) {
        return false;
    }
    tally->runs++;
    return true;
}

static void test_power_cut_every_step(void)
{
    /* Reference run without a cut: count the mutating operations. */
    ftl_phase_t ph[4];
    uint32_t np = cut_workload(ph);
    fresh(FTL_GC_POLICY_GREEDY);
    ftl_nand_cut_arm(0u, FTL_NAND_CUT_BEFORE); /* resets the counter only */
    ftl_gen_t gen;
    REQUIRE(ftl_host_gen_init(&gen, ph, np, CUT_SEED) == FTL_OK);
    drive_result_t r = drive(&gen, k_style_default);
    REQUIRE(!r.halted && r.cmd_errors == 0u && r.verify_errors == 0u);
    uint32_t total = ftl_nand_mutation_count();
    ftl_stats_t s;
    ftl_stats(&s);
    REQUIRE(s.erases > 0u); /* the workload includes GC */
    REQUIRE(total == s.nand_programs + s.nand_erases);

    /* Every single step on small geometries, a sample on big ones. */
    uint32_t stride = FTL_NAND_TOTAL_PAGES <= 4096u ? 1u : total / 8u + 1u;
    static const ftl_nand_cut_mode_t modes[3] = {FTL_NAND_CUT_BEFORE, FTL_NAND_CUT_TORN,
                                                 FTL_NAND_CUT_AFTER};
    for (uint32_t m = 0; m < 3u; m++) {
        cut_tally_t tally = {0};
        for (uint32_t n = 1u; n <= total; n += stride) {
            if (!cut_run(n, modes[m], &tally)) {
                fail_at(__FILE__, __LINE__, "power-cut recovery");
                break;
            }
        }
        printf("    mode %d: %u cut points of %u ops (gc erases %u), in-flight old %u new %u, "
               "torn pages %u\n",
               (int)modes[m], (unsigned)tally.runs, (unsigned)total, (unsigned)s.nand_erases,
               (unsigned)tally.inflight_old, (unsigned)tally.inflight_new,
               (unsigned)tally.torn_pages);
        if (stride == 1u) {
            CHECK_EQ(tally.runs, total);
        }
        if (modes[m] == FTL_NAND_CUT_AFTER) {
            CHECK(tally.inflight_new > 0u);
        }
        if (modes[m] == FTL_NAND_CUT_BEFORE) {
            CHECK(tally.inflight_old > 0u);
        }
        if (modes[m] == FTL_NAND_CUT_TORN) {
            CHECK(tally.torn_pages > 0u);
        }
    }
}

/* A second cut while the recovered FTL works: the first cut leaves torn
 * pages, half-written blocks and maybe a torn erase; GC then reclaims those
 * blocks while the second cut hits every operation of that work. */
static void test_power_cut_twice(void)
{
    ftl_phase_t ph[4];
    uint32_t np = cut_workload(ph);
    ftl_phase_t post = phase(FTL_PAT_RW, 1u, 0u, LBAS, LBAS, 1u);
    /* Reference: count the operations of the first workload. */
    fresh(FTL_GC_POLICY_GREEDY);
    ftl_nand_cut_arm(0u, FTL_NAND_CUT_BEFORE);
    drive_result_t r = run_phases(ph, np, CUT_SEED);
    REQUIRE(!r.halted);
    uint32_t total = ftl_nand_mutation_count();
    /* Every second cut point after 16 first ones on the small geometry,
     * fewer on bigger ones to bound the run time. */
    uint32_t first_points = FTL_NAND_TOTAL_PAGES <= 256u ? 16u
                            : FTL_NAND_TOTAL_PAGES <= 4096u ? 4u : 2u;
    uint32_t second_stride = FTL_NAND_TOTAL_PAGES <= 4096u ? 1u : 4093u;
    cut_tally_t tally = {0};
    uint32_t second_cuts = 0u;
    static const ftl_nand_cut_mode_t modes[3] = {FTL_NAND_CUT_TORN, FTL_NAND_CUT_BEFORE,
                                                 FTL_NAND_CUT_AFTER};
    for (uint32_t k = 0; k < first_points; k++) {
        uint32_t n = 1u + (total - 1u) * k / (first_points - 1u);
        ftl_nand_cut_mode_t first_mode = modes[k % 3u];
        for (uint32_t m = 1u;; m += second_stride) {
            ftl_nand_cut_mode_t second_mode = modes[m % 3u];
            fresh(FTL_GC_POLICY_GREEDY);
            bool finished;
            if (!run_with_cut(ph, np, CUT_SEED, n, first_mode, &finished) ||
                !recover_and_check("first", n, first_mode, &tally)) {
                fail_at(__FILE__, __LINE__, "first cut");
                return;
            }
            if (!run_with_cut(&post, 1u, n + 1u, m, second_mode, &finished)) {
                if (finished) {
                    break; /* m is past the end of the recovery workload */
                }
                fail_at(__FILE__, __LINE__, "second run");
                return;
            }
            if (!recover_and_check("second", m, second_mode, &tally) ||
                !still_usable(m, second_mode)) {
                printf("    (first cut at %u, mode %d)\n", (unsigned)n, (int)first_mode);
                fail_at(__FILE__, __LINE__, "second cut");
                return;
            }
            second_cuts++;
        }
    }
    printf("    %u first cuts x %u second cuts in total, torn pages %u\n",
           (unsigned)first_points, (unsigned)second_cuts, (unsigned)tally.torn_pages);
    if (second_stride == 1u) {
        CHECK(second_cuts > first_points * LBAS / 2u);
    }
}

/* ------------------------------------------------------------------ */
/* Generator and determinism                                            */
/* ------------------------------------------------------------------ */

static uint8_t g_gen_buf[FTL_CMD_MAX_PAGES * PAGE];

/* CRC over the whole command stream (fields and write data). */
static uint32_t gen_stream_crc(const ftl_phase_t *ph, uint32_t n, uint32_t seed,
                               uint32_t *chunk_starts, uint32_t *cmds)
{
    ftl_gen_t gen;
    ftl_host_model_reset();
    if (ftl_host_gen_init(&gen, ph, n, seed) != FTL_OK) {
        return 0u;
    }
    uint32_t crc = 0u;
    *chunk_starts = 0u;
    *cmds = 0u;
    ftl_cmd_t cmd;
    ftl_gen_result_t r;
    while ((r = ftl_host_gen_next(&gen, &cmd, g_gen_buf)) != FTL_GEN_END) {
        uint8_t rec[16];
        ftl_util_store_le32(&rec[0], cmd.lba);
        ftl_util_store_le32(&rec[4], cmd.count);
        ftl_util_store_le32(&rec[8], cmd.op);
        ftl_util_store_le32(&rec[12], cmd.tag);
        crc = ftl_util_crc32(crc, rec, sizeof rec);
        if (cmd.op == FTL_CMD_WRITE) {
            crc = ftl_util_crc32(crc, g_gen_buf, (size_t)cmd.count * PAGE);
        }
        if (r == FTL_GEN_CHUNK_START) {
            (*chunk_starts)++;
        }
        (*cmds)++;
    }
    return crc;
}

static void test_generator_determinism(void)
{
    ftl_phase_t ph[4];
    uint32_t n = ftl_host_default_phases(ph, 1u);
    REQUIRE(n == 4u);
    uint32_t chunks_a;
    uint32_t cmds_a;
    uint32_t chunks_b;
    uint32_t cmds_b;
    uint32_t a = gen_stream_crc(ph, n, 1234u, &chunks_a, &cmds_a);
    uint32_t b = gen_stream_crc(ph, n, 1234u, &chunks_b, &cmds_b);
    uint32_t c = gen_stream_crc(ph, n, 1235u, &chunks_b, &cmds_b);
    CHECK_EQ(a, b);
    CHECK(a != c); /* the seed drives RR/RW */
    CHECK_EQ(cmds_a, ftl_host_gen_total(ph, n));
    CHECK_EQ(chunks_a, ph[0].chunks + ph[1].chunks + ph[2].chunks + ph[3].chunks);
    CHECK_EQ(ph[0].pattern, FTL_PAT_SW);
    CHECK_EQ(ph[1].pattern, FTL_PAT_SR);
    CHECK_EQ(ph[2].pattern, FTL_PAT_RR);
    CHECK_EQ(ph[3].pattern, FTL_PAT_RW);

    /* Sequential covers the region in order; random stays inside it and
     * aligned; writes bump generations. */
    ftl_phase_t p2[2];
    p2[0] = phase(FTL_PAT_SW, 2u, 4u, 10u, 6u, 1u);
    p2[1] = phase(FTL_PAT_RR, 2u, 4u, 10u, 50u, 2u);
    ftl_gen_t gen;
    ftl_host_model_reset();
    REQUIRE(ftl_host_gen_init(&gen, p2, 2u, 9u) == FTL_OK);
    ftl_cmd_t cmd;
    static const uint32_t expect_lba[6] = {4u, 6u, 8u, 10u, 12u, 4u};
    for (uint32_t i = 0; i < 6u; i++) {
        REQUIRE(ftl_host_gen_next(&gen, &cmd, g_gen_buf) != FTL_GEN_END);
        CHECK_EQ(cmd.lba, expect_lba[i]);
        CHECK_EQ(cmd.op, FTL_CMD_WRITE);
        CHECK_EQ(ftl_host_decode_page(cmd.lba, g_gen_buf, NULL), FTL_OK);
    }
    CHECK_EQ(ftl_host_model_issued(4u), 2u);
    CHECK_EQ(ftl_host_model_issued(5u), 2u);
    CHECK_EQ(ftl_host_model_acked(4u), 0u);
    for (uint32_t i = 0; i < 100u; i++) {
        ftl_gen_result_t r = ftl_host_gen_next(&gen, &cmd, g_gen_buf);
        REQUIRE(r != FTL_GEN_END);
        CHECK_EQ(r, i == 0u || i == 50u ? FTL_GEN_CHUNK_START : FTL_GEN_CMD);
        CHECK_EQ(cmd.op, FTL_CMD_READ);
        CHECK(cmd.lba >= 4u && cmd.lba + cmd.count <= 14u);
        CHECK_EQ((cmd.lba - 4u) % 2u, 0u);
        CHECK_EQ(cmd.chunk, i / 50u);
    }
    CHECK_EQ(ftl_host_gen_next(&gen, &cmd, g_gen_buf), FTL_GEN_END);

    /* Malformed phases are refused. */
    ftl_phase_t badp = phase(FTL_PAT_RW, 0u, 0u, 10u, 1u, 1u);
    CHECK_EQ(ftl_host_gen_init(&gen, &badp, 1u, 1u), FTL_ERR_PARAM);
    badp = phase(FTL_PAT_RW, 1u, LBAS - 1u, 2u, 1u, 1u);
    CHECK_EQ(ftl_host_gen_init(&gen, &badp, 1u, 1u), FTL_ERR_PARAM);
}

static void test_pattern_verification(void)
{
    uint8_t page[PAGE];
    uint32_t gen = 0u;
    ftl_host_fill_page(12u, 3u, page);
    CHECK_EQ(ftl_host_decode_page(12u, page, &gen), FTL_OK);
    CHECK_EQ(gen, 3u);
    CHECK_EQ(ftl_host_decode_page(13u, page, &gen), FTL_ERR_VERIFY); /* wrong lba */
    page[PAGE - 1u] ^= 0x40u;
    CHECK_EQ(ftl_host_decode_page(12u, page, &gen), FTL_ERR_VERIFY); /* one bit */
    memset(page, 0xFF, sizeof page);
    CHECK_EQ(ftl_host_decode_page(12u, page, &gen), FTL_OK);
    CHECK_EQ(gen, 0u);
    memset(page, 0x00, sizeof page);
    CHECK_EQ(ftl_host_decode_page(0u, page, &gen), FTL_ERR_VERIFY); /* gen 0 */

    /* Model range check. */
    ftl_host_model_reset();
    ftl_host_model_settle(12u, 3u);
    ftl_host_fill_page(12u, 3u, page);
    CHECK_EQ(ftl_host_verify_page(12u, page), FTL_OK);
    ftl_host_fill_page(12u, 2u, page);
    CHECK_EQ(ftl_host_verify_page(12u, page), FTL_ERR_VERIFY); /* stale */
    ftl_host_fill_page(12u, 4u, page);
    CHECK_EQ(ftl_host_verify_page(12u, page), FTL_ERR_VERIFY); /* never issued */
    memset(page, 0xFF, sizeof page);
    CHECK_EQ(ftl_host_verify_page(12u, page), FTL_ERR_VERIFY); /* lost */

    /* A read completion that does not verify is reported. */
    ftl_cmd_t cmd = {0};
    cmd.op = FTL_CMD_READ;
    cmd.lba = 12u;
    cmd.count = 1u;
    cmd.data = page;
    ftl_cpl_t cpl = {0, 12u, 1u, FTL_CMD_READ, 0};
    CHECK_EQ(ftl_host_on_complete(&cmd, &cpl), FTL_ERR_VERIFY);
    cpl.status = (int8_t)FTL_ERR_CORRUPT;
    CHECK_EQ(ftl_host_on_complete(&cmd, &cpl), FTL_ERR_CORRUPT);
}

/* Both concurrency models must make the FTL issue the same NAND
 * operations: compare a deep queue with a fast NAND against a single
 * outstanding command with a slow NAND (many WAIT steps). */
static void test_engine_determinism_across_driving(void)
{
    ftl_phase_t ph[3];
    uint32_t n = gc_workload(ph, 2u);
    uint32_t crc[2];
    uint32_t len[2];
    const drive_style_t styles[2] = {{FTL_HOST_QUEUE_DEPTH, 0u}, {1u, 3u}};
    for (uint32_t i = 0; i < 2u; i++) {
        fresh(FTL_GC_POLICY_COST_BENEFIT);
        g_trace_crc = 0u;
        g_trace_len = 0u;
        ftl_gen_t gen;
        REQUIRE(ftl_host_gen_init(&gen, ph, n, 31337u) == FTL_OK);
        drive_result_t r = drive(&gen, styles[i]);
        CHECK(!r.halted);
        CHECK_EQ(r.cmd_errors, 0u);
        CHECK_EQ(r.verify_errors, 0u);
        crc[i] = g_trace_crc;
        len[i] = g_trace_len;
    }
    CHECK_EQ(len[0], len[1]);
    CHECK_EQ(crc[0], crc[1]);
    CHECK(len[0] > LBAS * 3u);
}

/* The default study workload end to end (full size on the default
 * geometry): every read verifies, GC happens in the RW phase. */
static void test_default_workload(void)
{
    fresh(FTL_GC_POLICY_GREEDY);
    ftl_phase_t ph[4];
    uint32_t n = ftl_host_default_phases(ph, 0u);
    ftl_gen_t gen;
    REQUIRE(ftl_host_gen_init(&gen, ph, n, FTL_GEN_DEFAULT_SEED) == FTL_OK);
    drive_style_t style = {FTL_HOST_QUEUE_DEPTH, 0u};
    drive_result_t r = drive(&gen, style);
    CHECK(!r.halted);
    CHECK_EQ(r.cmd_errors, 0u);
    CHECK_EQ(r.verify_errors, 0u);
    CHECK_EQ(r.cmds, ftl_host_gen_total(ph, n));
    ftl_stats_t s;
    ftl_stats(&s);
    CHECK(s.gc_invocations > 0u);
    CHECK_EQ(verify_all("default"), 0u);
    printf("    geometry %ux%ux%u, %u LBAs: %u cmds, host pages written %u read %u, "
           "GC jobs %u (foreground %u) relocated %u, WL jobs %u, erases %u, WA %u.%03u, "
           "wear %u..%u\n",
           (unsigned)FTL_NAND_BLOCKS, (unsigned)PPB, (unsigned)PAGE, (unsigned)LBAS,
           (unsigned)r.cmds, (unsigned)s.host_pages_written, (unsigned)s.host_pages_read,
           (unsigned)s.gc_invocations, (unsigned)s.gc_foreground,
           (unsigned)s.gc_pages_relocated, (unsigned)s.wl_invocations, (unsigned)s.erases,
           (unsigned)(s.write_amp_milli / 1000u), (unsigned)(s.write_amp_milli % 1000u),
           (unsigned)s.wear_min, (unsigned)s.wear_max);
}

/* ------------------------------------------------------------------ */
/* Runner                                                               */
/* ------------------------------------------------------------------ */

typedef struct {
    const char *name;
    void (*fn)(void);
} test_case_t;

#define TEST(fn) {#fn, fn}

static const test_case_t k_tests[] = {
    TEST(test_util_crc_and_prng),
    TEST(test_nand_rules),
    TEST(test_nand_power_cut_modes),
    TEST(test_map_write_read),
    TEST(test_map_overwrite_invalidates),
    TEST(test_unmapped_and_trim),
    TEST(test_read_detects_corruption),
    TEST(test_engine_queue_contract),
    TEST(test_gc_preserves_data_greedy),
    TEST(test_gc_preserves_data_cost_benefit),
    TEST(test_gc_preserves_data_wear_aware),
    TEST(test_gc_triggers_at_threshold),
    TEST(test_gc_victim_policy),
    TEST(test_gc_incremental_bounded),
    TEST(test_wear_counters_and_trigger),
    TEST(test_static_wear_levelling),
    TEST(test_mount_rebuild_equals_map),
    TEST(test_mount_blank_and_unformatted),
    TEST(test_mount_torn_erase_looks_erased),
    TEST(test_mount_after_cut_format),
    TEST(test_power_cut_every_step),
    TEST(test_power_cut_twice),
    TEST(test_generator_determinism),
    TEST(test_pattern_verification),
    TEST(test_engine_determinism_across_driving),
    TEST(test_default_workload),
};

int main(void)
{
    const char *filter = getenv("FTL_TEST_FILTER");
    int passed = 0;
    int failed = 0;
    printf("FTL core tests: %u blocks x %u pages x %u bytes, %u LBAs, queue depth %u\n",
           (unsigned)FTL_NAND_BLOCKS, (unsigned)PPB, (unsigned)PAGE, (unsigned)LBAS,
           (unsigned)FTL_HOST_QUEUE_DEPTH);
    for (size_t i = 0; i < sizeof k_tests / sizeof k_tests[0]; i++) {
        if (filter != NULL && strstr(k_tests[i].name, filter) == NULL) {
            continue;
        }
        g_test_failed = 0;
        g_fail_lines = 0;
        ftl_nand_cut_disarm();
        ftl_nand_power_restore();
        k_tests[i].fn();
        printf("%s %s\n", g_test_failed ? "FAIL" : "ok  ", k_tests[i].name);
        if (g_test_failed) {
            failed++;
        } else {
            passed++;
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
