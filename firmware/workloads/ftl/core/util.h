/*
 * util.h - small helpers shared by the FTL core: CRC-32, little-endian
 * byte order, the erased check, and sealing/checking of the spare-area
 * record (the PRNG, which the NAND simulator uses too, is rand.h).
 *
 * All functions are pure (no static state) and run in time linear in the
 * length of their input.
 */
#ifndef FTL_UTIL_H
#define FTL_UTIL_H

#include "ftl_types.h"
#include "nand_sim.h"

/* CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), continued from
 * `crc` (pass 0 to start). ftl_util_crc32(0, "123456789", 9) == 0xCBF43926.
 * Uses a 16-entry table: two table look-ups per byte, 64 bytes of rodata. */
uint32_t ftl_util_crc32(uint32_t crc, const void *buf, size_t len);

/* Little-endian 32-bit load/store on byte buffers (alignment-free). */
uint32_t ftl_util_load_le32(const uint8_t *p);
void ftl_util_store_le32(uint8_t *p, uint32_t v);

/* True if all `len` bytes equal 0xFF (the erased state of NAND). */
bool ftl_util_is_erased(const void *buf, size_t len);

/* Spare-record layout values written by the FTL. */
#define FTL_SPARE_MAGIC 0xA5u
#define FTL_SPARE_KIND_HOST 0x01u  /* page written for a host WRITE */
#define FTL_SPARE_KIND_RELOC 0x02u /* page copied by GC / wear levelling */

/* Fills magic and the check field of a spare record whose lpn, seq,
 * data_crc, erase_count and kind are already set. */
void ftl_util_spare_seal(ftl_nand_spare_t *spare);

/* True if the spare record carries the FTL magic and its check field
 * matches its contents (i.e. it was completely programmed). */
bool ftl_util_spare_ok(const ftl_nand_spare_t *spare);

/* True if `data` (one page) matches the spare's data CRC. */
bool ftl_util_page_crc_ok(const ftl_nand_spare_t *spare, const uint8_t *data);

#endif /* FTL_UTIL_H */
