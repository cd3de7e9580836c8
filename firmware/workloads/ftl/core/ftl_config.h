/*
 * ftl_config.h - compile-time configuration of the FTL core.
 *
 * Every value below may be overridden on the compiler command line
 * (-DFTL_NAND_BLOCKS=16u ...). All storage of the core is static and sized
 * from these values; nothing is allocated at run time. The host unit tests
 * build the same sources with a much smaller geometry so that exhaustive
 * power-cut testing runs quickly.
 *
 * Default geometry: 256 blocks x 32 pages x 256-byte pages = 2 MiB of page
 * data plus 160 KiB of spare area, all held in RAM by nand_sim.c.
 */
#ifndef FTL_CONFIG_H
#define FTL_CONFIG_H

/* ------------------------------------------------------------------ */
/* NAND geometry                                                        */
/* ------------------------------------------------------------------ */

/* Number of erase blocks in the simulated chip. */
#ifndef FTL_NAND_BLOCKS
#define FTL_NAND_BLOCKS 256u
#endif

/* Pages per erase block. Pages of a block must be programmed in order. */
#ifndef FTL_NAND_PAGES_PER_BLOCK
#define FTL_NAND_PAGES_PER_BLOCK 32u
#endif

/* Bytes of user data per page (the spare area comes on top). */
#ifndef FTL_NAND_PAGE_SIZE
#define FTL_NAND_PAGE_SIZE 256u
#endif

/* Optional attribute placed on the big NAND arrays, e.g.
 * -DFTL_NAND_STORAGE_ATTR='__attribute__((section(".psram_bss")))'
 * so that a linker script can put the 2 MiB simulated chip where it fits. */
#ifndef FTL_NAND_STORAGE_ATTR
#define FTL_NAND_STORAGE_ATTR
#endif

#define FTL_NAND_TOTAL_PAGES (FTL_NAND_BLOCKS * FTL_NAND_PAGES_PER_BLOCK)

/* ------------------------------------------------------------------ */
/* Logical space                                                        */
/* ------------------------------------------------------------------ */

/* Over-provisioned blocks: physical capacity that is never exported to the
 * host. It is what lets garbage collection always find a victim with at
 * least one invalid page. Default 1/8 of the chip (12.5 %). */
#ifndef FTL_OP_BLOCKS
#define FTL_OP_BLOCKS (FTL_NAND_BLOCKS / 8u)
#endif

/* Logical pages (LBAs; one LBA = one page) exported to the host. */
#define FTL_LOGICAL_PAGES ((FTL_NAND_BLOCKS - FTL_OP_BLOCKS) * FTL_NAND_PAGES_PER_BLOCK)

/* ------------------------------------------------------------------ */
/* Garbage collection                                                   */
/* ------------------------------------------------------------------ */

/* Free blocks that only GC and wear levelling may open. A host write that
 * needs a new block while free blocks <= this value first runs GC in the
 * foreground. */
#ifndef FTL_GC_RESERVE_BLOCKS
#define FTL_GC_RESERVE_BLOCKS 2u
#endif

/* Incremental GC starts a reclaim job after a host page write when the
 * number of free blocks is below this value. */
#ifndef FTL_GC_START_BLOCKS
#define FTL_GC_START_BLOCKS (FTL_GC_RESERVE_BLOCKS + 2u + FTL_NAND_BLOCKS / 64u)
#endif

/* GC work units (one unit = relocate one valid page, or erase the victim)
 * granted per host page written while a GC job is active. GC therefore
 * progresses at points that depend only on the command stream, never on
 * when commands happen to arrive, so both concurrency models perform the
 * identical sequence of NAND operations. */
#ifndef FTL_GC_UNITS_PER_HOST_PAGE
#define FTL_GC_UNITS_PER_HOST_PAGE 1u
#endif

/* Default victim policy: 0 greedy, 1 cost-benefit, 2 wear-aware
 * (values of ftl_gc_policy_t in gc.h). */
#ifndef FTL_GC_DEFAULT_POLICY
#define FTL_GC_DEFAULT_POLICY 0
#endif

/* Wear-aware policy: one valid page costs as much as this many erases of
 * difference above the least-worn block. */
#ifndef FTL_GC_WEAR_EC_PER_PAGE
#define FTL_GC_WEAR_EC_PER_PAGE 2u
#endif

/* ------------------------------------------------------------------ */
/* Wear levelling                                                       */
/* ------------------------------------------------------------------ */

/* Static wear levelling moves the data of the least-worn closed block when
 * (max erase count - that block's erase count) exceeds this many erases. */
#ifndef FTL_WL_THRESHOLD
#define FTL_WL_THRESHOLD 16u
#endif

/* ------------------------------------------------------------------ */
/* Host interface                                                       */
/* ------------------------------------------------------------------ */

/* Commands in flight in the engine: submitted but whose completion has not
 * yet been collected with ftl_poll(). */
#ifndef FTL_HOST_QUEUE_DEPTH
#define FTL_HOST_QUEUE_DEPTH 4u
#endif

/* Largest READ/WRITE/TRIM command, in pages. */
#ifndef FTL_CMD_MAX_PAGES
#define FTL_CMD_MAX_PAGES 8u
#endif

/* ------------------------------------------------------------------ */
/* Sanity checks (preprocessor only, valid in C99 and C11)              */
/* ------------------------------------------------------------------ */

#if FTL_NAND_PAGE_SIZE < 16u || (FTL_NAND_PAGE_SIZE % 4u) != 0u
#error "FTL_NAND_PAGE_SIZE must be a multiple of 4 and at least 16"
#endif
#if FTL_NAND_PAGES_PER_BLOCK < 2u || FTL_NAND_PAGES_PER_BLOCK > 1024u
#error "FTL_NAND_PAGES_PER_BLOCK must be in 2..1024"
#endif
#if FTL_NAND_BLOCKS < 8u
#error "FTL_NAND_BLOCKS must be at least 8"
#endif
#if FTL_GC_START_BLOCKS <= FTL_GC_RESERVE_BLOCKS
#error "FTL_GC_START_BLOCKS must exceed FTL_GC_RESERVE_BLOCKS"
#endif
#if FTL_GC_RESERVE_BLOCKS < 1u
#error "GC needs at least one reserved free block"
#endif
/* The over-provisioning must cover the two open blocks (host and GC), the
 * reserve, and leave at least one block of slack. */
#if FTL_OP_BLOCKS < FTL_GC_RESERVE_BLOCKS + 3u
#error "FTL_OP_BLOCKS too small for the open blocks and the GC reserve"
#endif
#if FTL_OP_BLOCKS >= FTL_NAND_BLOCKS
#error "FTL_OP_BLOCKS leaves no logical space"
#endif
#if FTL_HOST_QUEUE_DEPTH < 1u || FTL_HOST_QUEUE_DEPTH > 64u
#error "FTL_HOST_QUEUE_DEPTH must be in 1..64"
#endif
#if FTL_CMD_MAX_PAGES < 1u || FTL_CMD_MAX_PAGES > 256u
#error "FTL_CMD_MAX_PAGES must be in 1..256"
#endif
#if FTL_GC_UNITS_PER_HOST_PAGE < 1u
#error "FTL_GC_UNITS_PER_HOST_PAGE must be at least 1"
#endif

#endif /* FTL_CONFIG_H */
