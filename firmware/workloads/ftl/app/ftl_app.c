/* Workload 2, model-independent host side (ftl_app.h). */
#include "ftl_app.h"

#include "lab/bench.h"
#include "lab/console.h"

/* Metrics: one probe pair per chunk, listed in this order. */
LAB_INTERVAL(sw, 2, 3, "sequential write of the whole space: first command issued -> last completion checked");
LAB_INTERVAL(sr, 4, 5, "sequential read of the whole space, verified: first command -> last completion checked");
LAB_INTERVAL(rr, 6, 7, "random single-page reads, verified: first command issued -> last completion checked");
LAB_INTERVAL(rw_1, 8, 9, "random single-page writes, chunk 1 of 8: first command issued -> last completion checked");
LAB_INTERVAL(rw_2, 10, 11, "random single-page writes, chunk 2 of 8: first command issued -> last completion checked");
LAB_INTERVAL(rw_3, 12, 13, "random single-page writes, chunk 3 of 8: first command issued -> last completion checked");
LAB_INTERVAL(rw_4, 14, 15, "random single-page writes, chunk 4 of 8: first command issued -> last completion checked");
LAB_INTERVAL(rw_5, 16, 17, "random single-page writes, chunk 5 of 8: first command issued -> last completion checked");
LAB_INTERVAL(rw_6, 18, 19, "random single-page writes, chunk 6 of 8: first command issued -> last completion checked");
LAB_INTERVAL(rw_7, 20, 21, "random single-page writes, chunk 7 of 8: first command issued -> last completion checked");
LAB_INTERVAL(rw_8, 22, 23, "random single-page writes, chunk 8 of 8: first command issued -> last completion checked");
LAB_INTERVAL(total, 2, 23, "the whole scenario: sw's first command issued -> rw_8's last completion checked");

#define APP_METRICS (3u + FTL_APP_RW_CHUNKS)
#define APP_SLOTS FTL_HOST_QUEUE_DEPTH

/* A chunk begins / ends (probe ids are constants, hence the switches). */
static void app_probe_start(uint32_t metric)
{
    switch (metric) {
    case 0: LAB_PROBE(2); break;
    case 1: LAB_PROBE(4); break;
    case 2: LAB_PROBE(6); break;
    case 3: LAB_PROBE(8); break;
    case 4: LAB_PROBE(10); break;
    case 5: LAB_PROBE(12); break;
    case 6: LAB_PROBE(14); break;
    case 7: LAB_PROBE(16); break;
    case 8: LAB_PROBE(18); break;
    case 9: LAB_PROBE(20); break;
    default: LAB_PROBE(22); break;
    }
}

static void app_probe_end(uint32_t metric)
{
    switch (metric) {
    case 0: LAB_PROBE(3); break;
    case 1: LAB_PROBE(5); break;
    case 2: LAB_PROBE(7); break;
    case 3: LAB_PROBE(9); break;
    case 4: LAB_PROBE(11); break;
    case 5: LAB_PROBE(13); break;
    case 6: LAB_PROBE(15); break;
    case 7: LAB_PROBE(17); break;
    case 8: LAB_PROBE(19); break;
    case 9: LAB_PROBE(21); break;
    default: LAB_PROBE(23); break;
    }
}

/* The scenario. */
static ftl_phase_t app_phases[4];
static ftl_gen_t app_gen;

/* Command slots: commands complete in issue order, so slot = sequence number % depth. */
static struct {
    ftl_cmd_t cmd;
    uint8_t data[FTL_CMD_MAX_PAGES * FTL_NAND_PAGE_SIZE] __attribute__((aligned(4)));
} app_slot[APP_SLOTS];

static struct {
    uint32_t issued;      /* commands handed to the FTL role */
    uint32_t completed;   /* completions checked */
    uint32_t total;       /* commands of the scenario */
    uint32_t chunk_left;  /* commands of the current chunk not yet completed */
    uint32_t metric;      /* current chunk's metric */
    uint32_t chunks_done; /* chunks measured */
    bool pending;         /* the next command is generated but held back */
    bool pending_starts;  /* ... and it opens a new chunk */
    bool gen_end;         /* the generator has nothing more */
    bool corrupted;       /* FTL_APP_CORRUPT_READ done */
} app;

void ftl_app_setup(void)
{
    ftl_nand_factory_reset();
    ftl_init();
    LAB_CHECK(ftl_format() == FTL_OK);
    LAB_CHECK(ftl_mount(0) == FTL_OK);
    ftl_host_model_reset();

    const uint32_t lbas = FTL_LOGICAL_PAGES;
    const uint16_t seq = (uint16_t)FTL_CMD_MAX_PAGES;
    app_phases[0] = (ftl_phase_t){FTL_PAT_SW, seq, 0u, lbas, lbas / seq, 1u};
    app_phases[1] = (ftl_phase_t){FTL_PAT_SR, seq, 0u, lbas, lbas / seq, 1u};
    app_phases[2] = (ftl_phase_t){FTL_PAT_RR, 1u, 0u, lbas, FTL_APP_RR_CMDS, 1u};
    app_phases[3] = (ftl_phase_t){FTL_PAT_RW, 1u, 0u, lbas, FTL_APP_RW_CMDS, FTL_APP_RW_CHUNKS};
    LAB_CHECK(ftl_host_gen_init(&app_gen, app_phases, 4u, 0u) == FTL_OK);
    app.issued = 0u;
    app.completed = 0u;
    app.total = ftl_host_gen_total(app_phases, 4u);
    app.chunk_left = 0u;
    app.chunks_done = 0u;
    app.pending = false;
    app.gen_end = false;
    app.corrupted = false;
}

const ftl_cmd_t *ftl_app_host_next(void)
{
    ftl_cmd_t *cmd = &app_slot[app.issued % APP_SLOTS].cmd;
    if (!app.pending) {
        if (app.gen_end || app.issued - app.completed == APP_SLOTS) {
            return 0;
        }
        ftl_gen_result_t r = ftl_host_gen_next(&app_gen, cmd, app_slot[app.issued % APP_SLOTS].data);
        if (r == FTL_GEN_END) {
            app.gen_end = true;
            return 0;
        }
        app.pending = true;
        app.pending_starts = r == FTL_GEN_CHUNK_START;
    }
    if (app.pending_starts) {
        if (app.issued != app.completed) {
            return 0; /* the previous chunk drains first */
        }
        app.metric = cmd->phase < 3u ? cmd->phase : 3u + cmd->chunk;
        app.chunk_left = app_phases[cmd->phase].cmds_per_chunk;
        app_probe_start(app.metric);
    }
    app.pending = false;
    app.issued++;
    return cmd;
}

void ftl_app_host_complete(uint32_t tag, int status)
{
    LAB_CHECK(app.completed != app.issued);
    ftl_cmd_t *cmd = &app_slot[app.completed % APP_SLOTS].cmd;
    LAB_CHECK(tag == cmd->tag);
    LAB_CHECK(status == FTL_OK);
#if FTL_APP_CORRUPT_READ
    if (cmd->op == FTL_CMD_READ && !app.corrupted) {
        cmd->data[FTL_NAND_PAGE_SIZE / 2u] ^= 0x10u; /* a wrong byte in the first page read */
        app.corrupted = true;
    }
#endif
    ftl_cpl_t cpl = {tag, cmd->lba, cmd->count, cmd->op, (int8_t)status};
    const ftl_status_t checked = ftl_host_on_complete(cmd, &cpl);
    LAB_CHECK(checked != FTL_ERR_VERIFY && "FTL data verification: a page read differs from what was written");
    LAB_CHECK(checked == FTL_OK);
    app.completed++;
    if (--app.chunk_left == 0u) {
        app_probe_end(app.metric);
        app.chunks_done++;
    }
}

bool ftl_app_host_done(void) { return app.gen_end && app.completed == app.issued; }

void ftl_app_report(void)
{
    LAB_CHECK(ftl_app_host_done() && app.completed == app.total && app.chunks_done == APP_METRICS);
    LAB_CHECK(ftl_ready() && ftl_inflight() == 0u);
    ftl_stats_t st;
    ftl_stats(&st);
    LAB_CHECK(st.cmds_completed == app.total && st.read_errors == 0u);
    lab_console_put_kv("ftl_commands", st.cmds_completed);
    lab_console_put_kv("ftl_pages_written", st.host_pages_written);
    lab_console_put_kv("ftl_pages_read", st.host_pages_read);
    lab_console_put_kv("ftl_pages_relocated", st.gc_pages_relocated + st.wl_pages_relocated);
    lab_console_put_kv("ftl_gc_runs", st.gc_invocations);
    lab_console_put_kv("ftl_gc_foreground", st.gc_foreground);
    lab_console_put_kv("ftl_wl_runs", st.wl_invocations);
    lab_console_put_kv("ftl_erases", st.erases);
    lab_console_put_kv("ftl_nand_reads", st.nand_reads);
    lab_console_put_kv("ftl_nand_programs", st.nand_programs);
    lab_console_put_kv("ftl_nand_erases", st.nand_erases);
    lab_console_put_kv("ftl_write_amp_x1000", st.write_amp_milli);
}
