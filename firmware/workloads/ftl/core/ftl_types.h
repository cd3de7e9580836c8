/*
 * ftl_types.h - types and status codes shared by every FTL core module.
 *
 * Address vocabulary used throughout the core:
 *   lpn   logical page number (= LBA; one LBA is one NAND page of data),
 *         0 .. FTL_LOGICAL_PAGES-1
 *   ppn   physical page number, block * FTL_NAND_PAGES_PER_BLOCK + page,
 *         0 .. FTL_NAND_TOTAL_PAGES-1
 *   block erase-block index, 0 .. FTL_NAND_BLOCKS-1
 *   seq   global program sequence number; larger = written later
 */
#ifndef FTL_TYPES_H
#define FTL_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ftl_config.h"

/* Status codes of the FTL layers. 0 is success, errors are negative so a
 * completion status fits in an int16_t. */
typedef enum {
    FTL_OK = 0,
    FTL_ERR_PARAM = -1,   /* argument out of range / malformed command */
    FTL_ERR_BUSY = -2,    /* queue full, or a NAND request is outstanding */
    FTL_ERR_NOSPACE = -3, /* no block could be reclaimed (should not happen
                             with the configured over-provisioning) */
    FTL_ERR_IO = -4,      /* a NAND operation failed (e.g. power loss) */
    FTL_ERR_CORRUPT = -5, /* stored page failed its CRC / spare check */
    FTL_ERR_VERIFY = -6,  /* host-side data verification mismatch */
    FTL_ERR_STATE = -7    /* call not valid now (not mounted, halted) */
} ftl_status_t;

/* Storage types for page numbers in the RAM tables: 16 bits when the
 * geometry allows (halves the map), else 32 bits. The all-ones value of
 * each type is reserved as "none". */
#if FTL_NAND_TOTAL_PAGES < 0xFFFFu
typedef uint16_t ftl_ppn_t;
#define FTL_PPN_NONE ((ftl_ppn_t)0xFFFFu)
#else
typedef uint32_t ftl_ppn_t;
#define FTL_PPN_NONE ((ftl_ppn_t)0xFFFFFFFFu)
#endif

#if FTL_LOGICAL_PAGES < 0xFFFFu
typedef uint16_t ftl_lpn_t;
#define FTL_LPN_NONE ((ftl_lpn_t)0xFFFFu)
#else
typedef uint32_t ftl_lpn_t;
#define FTL_LPN_NONE ((ftl_lpn_t)0xFFFFFFFFu)
#endif

/* "No block" marker for functions returning a block index. */
#define FTL_BLOCK_NONE 0xFFFFFFFFu

/* Split/compose physical page numbers. */
#define FTL_PPN_BLOCK(ppn) ((uint32_t)(ppn) / FTL_NAND_PAGES_PER_BLOCK)
#define FTL_PPN_PAGE(ppn) ((uint32_t)(ppn) % FTL_NAND_PAGES_PER_BLOCK)
#define FTL_PPN_MAKE(block, page) ((uint32_t)(block) * FTL_NAND_PAGES_PER_BLOCK + (uint32_t)(page))

#endif /* FTL_TYPES_H */
