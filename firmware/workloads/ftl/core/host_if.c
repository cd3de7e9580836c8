/*
 * host_if.c - command rings, host model, data patterns and the workload
 * generator (see host_if.h).
 */
#include "host_if.h"

#include "rand.h"
#include "util.h"

/* ------------------------------------------------------------------ */
/* Rings                                                                */
/* ------------------------------------------------------------------ */

void ftl_host_cmdq_init(ftl_cmdq_t *q)
{
    q->head = 0u;
    q->count = 0u;
}

bool ftl_host_cmdq_push(ftl_cmdq_t *q, const ftl_cmd_t *cmd)
{
    if (q->count >= FTL_HOST_QUEUE_DEPTH) {
        return false;
    }
    q->slot[(q->head + q->count) % FTL_HOST_QUEUE_DEPTH] = *cmd;
    q->count++;
    return true;
}

bool ftl_host_cmdq_pop(ftl_cmdq_t *q, ftl_cmd_t *cmd)
{
    if (q->count == 0u) {
        return false;
    }
    *cmd = q->slot[q->head];
    q->head = (uint16_t)((q->head + 1u) % FTL_HOST_QUEUE_DEPTH);
    q->count--;
    return true;
}

uint32_t ftl_host_cmdq_count(const ftl_cmdq_t *q)
{
    return q->count;
}

void ftl_host_cplq_init(ftl_cplq_t *q)
{
    q->head = 0u;
    q->count = 0u;
}

bool ftl_host_cplq_push(ftl_cplq_t *q, const ftl_cpl_t *cpl)
{
    if (q->count >= FTL_HOST_QUEUE_DEPTH) {
        return false;
    }
    q->slot[(q->head + q->count) % FTL_HOST_QUEUE_DEPTH] = *cpl;
    q->count++;
    return true;
}

bool ftl_host_cplq_pop(ftl_cplq_t *q, ftl_cpl_t *cpl)
{
    if (q->count == 0u) {
        return false;
    }
    *cpl = q->slot[q->head];
    q->head = (uint16_t)((q->head + 1u) % FTL_HOST_QUEUE_DEPTH);
    q->count--;
    return true;
}

uint32_t ftl_host_cplq_count(const ftl_cplq_t *q)
{
    return q->count;
}

ftl_status_t ftl_host_cmd_validate(const ftl_cmd_t *cmd)
{
    if (cmd == NULL) {
        return FTL_ERR_PARAM;
    }
    switch ((ftl_cmd_op_t)cmd->op) {
    case FTL_CMD_FLUSH:
        return FTL_OK;
    case FTL_CMD_READ:
    case FTL_CMD_WRITE:
        if (cmd->data == NULL) {
            return FTL_ERR_PARAM;
        }
        break;
    case FTL_CMD_TRIM:
        break;
    default:
        return FTL_ERR_PARAM;
    }
    if (cmd->count == 0u || cmd->count > FTL_CMD_MAX_PAGES) {
        return FTL_ERR_PARAM;
    }
    if (cmd->lba >= FTL_LOGICAL_PAGES || cmd->count > FTL_LOGICAL_PAGES - cmd->lba) {
        return FTL_ERR_PARAM;
    }
    return FTL_OK;
}

/* ------------------------------------------------------------------ */
/* Host model and patterns                                              */
/* ------------------------------------------------------------------ */

static uint32_t s_acked[FTL_LOGICAL_PAGES];
static uint32_t s_issued[FTL_LOGICAL_PAGES];

void ftl_host_model_reset(void)
{
    for (uint32_t l = 0; l < FTL_LOGICAL_PAGES; l++) {
        s_acked[l] = 0u;
        s_issued[l] = 0u;
    }
}

uint32_t ftl_host_model_acked(uint32_t lba)
{
    return lba < FTL_LOGICAL_PAGES ? s_acked[lba] : 0u;
}

uint32_t ftl_host_model_issued(uint32_t lba)
{
    return lba < FTL_LOGICAL_PAGES ? s_issued[lba] : 0u;
}

void ftl_host_model_settle(uint32_t lba, uint32_t gen)
{
    if (lba < FTL_LOGICAL_PAGES) {
        s_acked[lba] = gen;
        s_issued[lba] = gen;
    }
}

/* Seed of the pattern stream of (lba, gen); never 0. */
static uint32_t pattern_seed(uint32_t lba, uint32_t gen)
{
    uint32_t seed = (lba * 0x9E3779B1u) ^ (gen * 0x85EBCA77u) ^ 0x3C6EF372u;
    return seed != 0u ? seed : 1u;
}

void ftl_host_fill_page(uint32_t lba, uint32_t gen, uint8_t *page)
{
    uint32_t state = pattern_seed(lba, gen);
    ftl_util_store_le32(&page[0], lba);
    ftl_util_store_le32(&page[4], gen);
    for (uint32_t i = 8u; i < FTL_NAND_PAGE_SIZE; i += 4u) {
        ftl_util_store_le32(&page[i], ftl_rand_xorshift32(&state));
    }
}

ftl_status_t ftl_host_decode_page(uint32_t lba, const uint8_t *page, uint32_t *gen)
{
    if (ftl_util_is_erased(page, FTL_NAND_PAGE_SIZE)) {
        if (gen != NULL) {
            *gen = 0u;
        }
        return FTL_OK;
    }
    uint32_t stored_lba = ftl_util_load_le32(&page[0]);
    uint32_t stored_gen = ftl_util_load_le32(&page[4]);
    if (stored_lba != lba || stored_gen == 0u) {
        return FTL_ERR_VERIFY;
    }
    uint32_t state = pattern_seed(lba, stored_gen);
    for (uint32_t i = 8u; i < FTL_NAND_PAGE_SIZE; i += 4u) {
        if (ftl_util_load_le32(&page[i]) != ftl_rand_xorshift32(&state)) {
            return FTL_ERR_VERIFY;
        }
    }
    if (gen != NULL) {
        *gen = stored_gen;
    }
    return FTL_OK;
}

ftl_status_t ftl_host_verify_page(uint32_t lba, const uint8_t *page)
{
    uint32_t gen;
    if (lba >= FTL_LOGICAL_PAGES || ftl_host_decode_page(lba, page, &gen) != FTL_OK) {
        return FTL_ERR_VERIFY;
    }
    if (gen < s_acked[lba] || gen > s_issued[lba]) {
        return FTL_ERR_VERIFY;
    }
    return FTL_OK;
}

ftl_status_t ftl_host_prepare_write(ftl_cmd_t *cmd)
{
    if (cmd == NULL || cmd->op != (uint8_t)FTL_CMD_WRITE || ftl_host_cmd_validate(cmd) != FTL_OK) {
        return FTL_ERR_PARAM;
    }
    for (uint32_t i = 0; i < cmd->count; i++) {
        if (s_issued[cmd->lba + i] == UINT32_MAX) {
            return FTL_ERR_PARAM;
        }
    }
    for (uint32_t i = 0; i < cmd->count; i++) {
        uint32_t lba = cmd->lba + i;
        s_issued[lba]++;
        ftl_host_fill_page(lba, s_issued[lba], &cmd->data[i * FTL_NAND_PAGE_SIZE]);
    }
    return FTL_OK;
}

ftl_status_t ftl_host_on_complete(const ftl_cmd_t *cmd, const ftl_cpl_t *cpl)
{
    if (cmd == NULL || cpl == NULL || ftl_host_cmd_validate(cmd) != FTL_OK) {
        return FTL_ERR_PARAM;
    }
    if (cpl->status != (int8_t)FTL_OK) {
        return (ftl_status_t)cpl->status;
    }
    ftl_status_t result = FTL_OK;
    for (uint32_t i = 0; i < cmd->count; i++) {
        uint32_t lba = cmd->lba + i;
        const uint8_t *page = cmd->data != NULL ? &cmd->data[i * FTL_NAND_PAGE_SIZE] : NULL;
        switch ((ftl_cmd_op_t)cmd->op) {
        case FTL_CMD_WRITE: {
            uint32_t gen = ftl_util_load_le32(&page[4]);
            if (gen > s_acked[lba]) {
                s_acked[lba] = gen;
            }
            break;
        }
        case FTL_CMD_READ:
            if (ftl_host_verify_page(lba, page) != FTL_OK) {
                result = FTL_ERR_VERIFY;
            }
            break;
        case FTL_CMD_TRIM:
            s_acked[lba] = 0u;
            s_issued[lba] = 0u;
            break;
        case FTL_CMD_FLUSH:
        default:
            break;
        }
    }
    return result;
}

/* ------------------------------------------------------------------ */
/* Generator                                                            */
/* ------------------------------------------------------------------ */

static bool phase_ok(const ftl_phase_t *ph)
{
    if (ph->pattern > (uint8_t)FTL_PAT_RW) {
        return false;
    }
    if (ph->pages_per_cmd == 0u || ph->pages_per_cmd > FTL_CMD_MAX_PAGES) {
        return false;
    }
    if (ph->lba_count < ph->pages_per_cmd || ph->lba_first >= FTL_LOGICAL_PAGES ||
        ph->lba_count > FTL_LOGICAL_PAGES - ph->lba_first) {
        return false;
    }
    return ph->cmds_per_chunk >= 1u && ph->chunks >= 1u;
}

ftl_status_t ftl_host_gen_init(ftl_gen_t *gen, const ftl_phase_t *phases, uint32_t phase_count,
                               uint32_t seed)
{
    if (gen == NULL || (phases == NULL && phase_count != 0u)) {
        return FTL_ERR_PARAM;
    }
    for (uint32_t i = 0; i < phase_count; i++) {
        if (!phase_ok(&phases[i])) {
            return FTL_ERR_PARAM;
        }
    }
    gen->phases = phases;
    gen->phase_count = phase_count;
    gen->phase = 0u;
    gen->chunk = 0u;
    gen->cmd = 0u;
    gen->seq_offset = 0u;
    gen->prng = seed != 0u ? seed : FTL_GEN_DEFAULT_SEED;
    gen->tag = 0u;
    return FTL_OK;
}

/* First LBA of the next command of phase `ph`. */
static uint32_t gen_pick_lba(ftl_gen_t *gen, const ftl_phase_t *ph)
{
    if (ph->pattern == (uint8_t)FTL_PAT_SW || ph->pattern == (uint8_t)FTL_PAT_SR) {
        if (gen->seq_offset + ph->pages_per_cmd > ph->lba_count) {
            gen->seq_offset = 0u; /* wrap: commands never straddle the end */
        }
        uint32_t lba = ph->lba_first + gen->seq_offset;
        gen->seq_offset += ph->pages_per_cmd;
        return lba;
    }
    uint32_t slots = ph->lba_count / ph->pages_per_cmd;
    uint32_t slot = ftl_rand_range(ftl_rand_xorshift32(&gen->prng), slots);
    return ph->lba_first + slot * ph->pages_per_cmd;
}

ftl_gen_result_t ftl_host_gen_next(ftl_gen_t *gen, ftl_cmd_t *cmd, uint8_t *buf)
{
    if (gen->phase >= gen->phase_count) {
        return FTL_GEN_END;
    }
    const ftl_phase_t *ph = &gen->phases[gen->phase];
    bool chunk_start = gen->cmd == 0u;
    bool is_write = ph->pattern == (uint8_t)FTL_PAT_SW || ph->pattern == (uint8_t)FTL_PAT_RW;

    cmd->op = (uint8_t)(is_write ? FTL_CMD_WRITE : FTL_CMD_READ);
    cmd->phase = (uint8_t)gen->phase;
    cmd->chunk = gen->chunk;
    cmd->count = ph->pages_per_cmd;
    cmd->lba = gen_pick_lba(gen, ph);
    cmd->tag = gen->tag++;
    cmd->data = buf;
    if (is_write) {
        (void)ftl_host_prepare_write(cmd);
    }

    if (++gen->cmd == ph->cmds_per_chunk) {
        gen->cmd = 0u;
        if (++gen->chunk == ph->chunks) {
            gen->chunk = 0u;
            gen->phase++;
            gen->seq_offset = 0u;
        }
    }
    return chunk_start ? FTL_GEN_CHUNK_START : FTL_GEN_CMD;
}

uint32_t ftl_host_gen_total(const ftl_phase_t *phases, uint32_t phase_count)
{
    uint32_t total = 0u;
    for (uint32_t i = 0; i < phase_count; i++) {
        total += phases[i].cmds_per_chunk * phases[i].chunks;
    }
    return total;
}

static uint32_t at_least_one(uint32_t v)
{
    return v != 0u ? v : 1u;
}

uint32_t ftl_host_default_phases(ftl_phase_t *out, uint32_t rw_passes)
{
    const uint32_t lbas = FTL_LOGICAL_PAGES;
    const uint16_t seq_pages = (uint16_t)FTL_CMD_MAX_PAGES;
    const uint32_t chunks = 8u;
    uint32_t passes = rw_passes != 0u ? rw_passes : 2u;

    out[0].pattern = (uint8_t)FTL_PAT_SW;
    out[0].pages_per_cmd = seq_pages;
    out[0].lba_first = 0u;
    out[0].lba_count = lbas;
    out[0].cmds_per_chunk = at_least_one(lbas / seq_pages / chunks);
    out[0].chunks = chunks;

    out[1] = out[0];
    out[1].pattern = (uint8_t)FTL_PAT_SR;

    out[2].pattern = (uint8_t)FTL_PAT_RR;
    out[2].pages_per_cmd = 1u;
    out[2].lba_first = 0u;
    out[2].lba_count = lbas;
    out[2].cmds_per_chunk = at_least_one(lbas / chunks);
    out[2].chunks = chunks;

    out[3] = out[2];
    out[3].pattern = (uint8_t)FTL_PAT_RW;
    out[3].chunks = chunks * passes;
    return 4u;
}
