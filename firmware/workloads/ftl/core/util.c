/*
 * util.c - CRC-32, byte order, erased check and spare-record helpers (see util.h).
 */
#include "util.h"

/* CRC-32 of every 4-bit value, reflected polynomial 0xEDB88320. */
static const uint32_t k_crc_nibble[16] = {
    0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu, 0x76DC4190u, 0x6B6B51F4u,
    0x4DB26158u, 0x5005713Cu, 0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu,
    0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu,
};

uint32_t ftl_util_crc32(uint32_t crc, const void *buf, size_t len)
{
    const uint8_t *p = (const uint8_t *)buf;
    crc = ~crc;
    while (len-- > 0u) {
        crc ^= *p++;
        crc = (crc >> 4) ^ k_crc_nibble[crc & 0x0Fu];
        crc = (crc >> 4) ^ k_crc_nibble[crc & 0x0Fu];
    }
    return ~crc;
}

uint32_t ftl_util_load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

void ftl_util_store_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

bool ftl_util_is_erased(const void *buf, size_t len)
{
    const uint8_t *p = (const uint8_t *)buf;
    for (size_t i = 0; i < len; i++) {
        if (p[i] != 0xFFu) {
            return false;
        }
    }
    return true;
}

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

void ftl_util_spare_seal(ftl_nand_spare_t *spare)
{
    spare->magic = FTL_SPARE_MAGIC;
    spare->check = spare_checksum(spare);
}

bool ftl_util_spare_ok(const ftl_nand_spare_t *spare)
{
    if (spare->magic != FTL_SPARE_MAGIC) {
        return false;
    }
    if (spare->kind != FTL_SPARE_KIND_HOST && spare->kind != FTL_SPARE_KIND_RELOC) {
        return false;
    }
    return spare->check == spare_checksum(spare);
}

bool ftl_util_page_crc_ok(const ftl_nand_spare_t *spare, const uint8_t *data)
{
    return ftl_util_crc32(0u, data, FTL_NAND_PAGE_SIZE) == spare->data_crc;
}
