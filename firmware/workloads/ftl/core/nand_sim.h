/*
 * nand_sim.h - a NAND flash chip simulated in RAM.
 *
 * Geometry comes from ftl_config.h: FTL_NAND_BLOCKS erase blocks of
 * FTL_NAND_PAGES_PER_BLOCK pages, each page FTL_NAND_PAGE_SIZE data bytes
 * plus one spare-area record (ftl_nand_spare_t, 20 bytes).
 *
 * Rules the simulator enforces (a violation is an error status, never
 * undefined behaviour, and leaves the chip unchanged):
 *   - a page can only be programmed while erased, i.e. once per erase;
 *   - the pages of a block are programmed in increasing order, with no
 *     gaps (page k only after pages 0..k-1);
 *   - erase works on whole blocks and sets every data and spare byte of
 *     the block to 0xFF;
 *   - reading an erased page returns 0xFF bytes (it is not an error).
 * The simulator is bit-error free unless a test injects a bit flip.
 *
 * Power-cut injection (for tests): ftl_nand_cut_arm(n, mode) makes the n-th
 * mutating operation (program or erase) counted from the arm call fail with
 * FTL_NAND_ERR_POWER, leaving the chip in the state chosen by `mode`. From
 * then on every operation fails with FTL_NAND_ERR_POWER (the chip is "off")
 * until ftl_nand_power_restore(); the stored contents survive, exactly like
 * a real chip across a power cycle.
 *
 * The simulator knows nothing about the FTL: the spare record is opaque
 * bytes to it. It has no blocking, no OS calls and every call runs to
 * completion in time proportional to one page (program/read) or one block
 * (erase).
 */
#ifndef FTL_NAND_SIM_H
#define FTL_NAND_SIM_H

#include "ftl_types.h"

/* The spare (out-of-band) record stored next to each page. Written by the
 * FTL in the same program operation as the data; erased state is all
 * 0xFF. 20 bytes, no padding. */
typedef struct {
    uint32_t lpn;         /* logical page held by this physical page */
    uint32_t seq;         /* program sequence number (larger = newer) */
    uint32_t data_crc;    /* CRC-32 of the page data */
    uint32_t erase_count; /* erase count of the block when programmed */
    uint8_t magic;        /* FTL_SPARE_MAGIC for a page written by the FTL */
    uint8_t kind;         /* page state/kind: host write or GC relocation */
    uint16_t check;       /* checksum over the fields above: detects torn
                             spare programming */
} ftl_nand_spare_t;

/* Result of a NAND operation. */
typedef enum {
    FTL_NAND_OK = 0,
    FTL_NAND_ERR_RANGE,      /* page or block number out of range */
    FTL_NAND_ERR_NOT_ERASED, /* program of a page already programmed */
    FTL_NAND_ERR_ORDER,      /* program skipping pages of the block */
    FTL_NAND_ERR_POWER       /* power lost: op cut, or chip is off */
} ftl_nand_status_t;

/* Operation codes of a NAND request. */
typedef enum {
    FTL_NAND_OP_READ = 0, /* read data (if data != NULL) and spare */
    FTL_NAND_OP_PROGRAM,  /* program data and spare of one page */
    FTL_NAND_OP_ERASE     /* erase one block */
} ftl_nand_op_t;

/* One NAND request, the unit handed from the FTL engine to whoever plays
 * the NAND driver (a task, an event handler, or a direct call). */
typedef struct {
    ftl_nand_op_t op;
    uint32_t addr;            /* ppn for READ/PROGRAM, block for ERASE */
    uint8_t *data;            /* READ: destination (NULL: spare only);
                                 PROGRAM: source, FTL_NAND_PAGE_SIZE bytes */
    ftl_nand_spare_t spare;   /* READ: filled; PROGRAM: written */
    ftl_nand_status_t status; /* set by ftl_nand_execute() */
} ftl_nand_req_t;

/* How an injected power cut leaves the interrupted operation. */
typedef enum {
    FTL_NAND_CUT_BEFORE = 0, /* the operation does not happen at all */
    FTL_NAND_CUT_TORN,       /* program: first half of the data and the
                                lpn/seq words of the spare are written, the
                                rest stays erased; erase: first half of the
                                pages erased, the rest partially erased
                                (random bits set) and not programmable */
    FTL_NAND_CUT_AFTER       /* the operation completes, but power dies
                                before its completion is reported */
} ftl_nand_cut_mode_t;

/* Operation counters since ftl_nand_factory_reset(). */
typedef struct {
    uint32_t reads;       /* page reads with data */
    uint32_t spare_reads; /* spare-only reads */
    uint32_t programs;    /* successful programs */
    uint32_t erases;      /* successful erases */
    uint32_t rejected;    /* operations refused for breaking a NAND rule */
    uint32_t power_fails; /* operations failed for lack of power */
} ftl_nand_stats_t;

/* Makes the chip factory-new: every block erased, erase counts 0, power
 * on, no cut armed, statistics cleared. Touches all of the storage (2 MiB
 * at the default geometry), so call it once at boot, not in timed code. */
void ftl_nand_factory_reset(void);

/* Synchronous operations. `data` of a read may be NULL to read only the
 * spare record (cheaper); `spare` may be NULL if not wanted. */
ftl_nand_status_t ftl_nand_read(uint32_t ppn, uint8_t *data, ftl_nand_spare_t *spare);
ftl_nand_status_t ftl_nand_program(uint32_t ppn, const uint8_t *data,
                                   const ftl_nand_spare_t *spare);
ftl_nand_status_t ftl_nand_erase(uint32_t block);

/* Executes a request in place: dispatches on req->op, stores the result in
 * req->status and returns it. This is the whole "NAND driver". */
ftl_nand_status_t ftl_nand_execute(ftl_nand_req_t *req);

/* Physical erase count of a block (the chip's true wear, for statistics
 * and tests; the FTL keeps its own copy in wear.c). */
uint32_t ftl_nand_erase_count(uint32_t block);

/* Next programmable page of a block (FTL_NAND_PAGES_PER_BLOCK when full or
 * when the block needs an erase). For tests. */
uint32_t ftl_nand_write_pointer(uint32_t block);

/* Statistics snapshot. */
ftl_nand_stats_t ftl_nand_stats(void);

/* Number of mutating operations (program + erase, successful or cut)
 * attempted while powered since the last factory reset or cut arm.
 * Rejected operations are not counted. */
uint32_t ftl_nand_mutation_count(void);

/* Arms a power cut at the n-th mutating operation from now (n >= 1) and
 * resets the mutation counter. */
void ftl_nand_cut_arm(uint32_t nth, ftl_nand_cut_mode_t mode);

/* Cancels an armed cut (a cut that already happened stays in effect). */
void ftl_nand_cut_disarm(void);

/* False after an injected cut, until power is restored. */
bool ftl_nand_powered(void);

/* Power back on: the chip works again with whatever it stored. */
void ftl_nand_power_restore(void);

/* Flips one stored bit of a page: bits 0 .. 8*FTL_NAND_PAGE_SIZE-1 are in
 * the data, the following 8*sizeof(ftl_nand_spare_t) bits in the spare.
 * Simulates a bit error for tests. */
ftl_nand_status_t ftl_nand_inject_bitflip(uint32_t ppn, uint32_t bit);

#endif /* FTL_NAND_SIM_H */
