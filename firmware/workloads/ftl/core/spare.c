/*
 * spare.c - sealing and checking the FTL's spare record (see spare.h).
 */
#include "spare.h"

#include "util.h"

/* CRC over every field of the spare record except `check` itself, folded
 * to 16 bits. Fields are fed as little-endian bytes so the value does not
 * depend on the host's struct layout. */
static uint16_t spare_checksum(const ftl_nand_spare_t *spare)
{
    uint8_t raw[18];
    ftl_util_store_le32(&raw[0], spare->lpn);
    ftl_util_store_le32(&raw[4], spare->seq);
    ftl_util_store_le32(&raw[8], spare->data_crc);
    ftl_util_store_le32(&raw[12], spare->erase_count);
    raw[16] = spare->magic;
    raw[17] = spare->kind;
    uint32_t crc = ftl_util_crc32(0u, raw, sizeof raw);
    return (uint16_t)(crc ^ (crc >> 16));
}

void ftl_spare_seal(ftl_nand_spare_t *spare)
{
    spare->magic = FTL_SPARE_MAGIC;
    spare->check = spare_checksum(spare);
}

bool ftl_spare_ok(const ftl_nand_spare_t *spare)
{
    if (spare->magic != FTL_SPARE_MAGIC) {
        return false;
    }
    if (spare->kind != FTL_SPARE_KIND_HOST && spare->kind != FTL_SPARE_KIND_RELOC) {
        return false;
    }
    return spare->check == spare_checksum(spare);
}

bool ftl_spare_page_crc_ok(const ftl_nand_spare_t *spare, const uint8_t *data)
{
    return ftl_util_crc32(0u, data, FTL_NAND_PAGE_SIZE) == spare->data_crc;
}
