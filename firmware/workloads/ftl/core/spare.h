/*
 * spare.h - the FTL's spare-area record: the values it writes into a
 * page's spare record (ftl_nand_spare_t, nand_sim.h), its sealing and
 * its checks.
 *
 * The NAND simulator stores the record as opaque bytes; this module gives
 * it the FTL's meaning. Every function is pure (no static state).
 */
#ifndef FTL_SPARE_H
#define FTL_SPARE_H

#include "ftl_types.h"
#include "nand_sim.h"

/* Spare-record layout values written by the FTL. */
#define FTL_SPARE_MAGIC 0xA5u
#define FTL_SPARE_KIND_HOST 0x01u  /* page written for a host WRITE */
#define FTL_SPARE_KIND_RELOC 0x02u /* page copied by GC / wear levelling */

/* Fills magic and the check field of a spare record whose lpn, seq,
 * data_crc, erase_count and kind are already set. */
void ftl_spare_seal(ftl_nand_spare_t *spare);

/* True if the spare record carries the FTL magic and its check field
 * matches its contents (i.e. it was completely programmed). */
bool ftl_spare_ok(const ftl_nand_spare_t *spare);

/* True if `data` (one page) matches the spare's data CRC. */
bool ftl_spare_page_crc_ok(const ftl_nand_spare_t *spare, const uint8_t *data);

#endif /* FTL_SPARE_H */
