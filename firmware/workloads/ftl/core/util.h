/*
 * util.h - small helpers shared by the FTL core and the NAND simulator:
 * CRC-32, the xorshift32 PRNG, little-endian byte order, the erased state.
 * A leaf: it includes no other module of the core (the spare record's
 * sealing and checks, which use these, are in spare.h).
 *
 * All functions are pure (no static state) and run in time linear in the
 * length of their input.
 */
#ifndef FTL_UTIL_H
#define FTL_UTIL_H

#include "ftl_types.h"

/* CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), continued from
 * `crc` (pass 0 to start). ftl_util_crc32(0, "123456789", 9) == 0xCBF43926.
 * Uses a 16-entry table: two table look-ups per byte, 64 bytes of rodata. */
uint32_t ftl_util_crc32(uint32_t crc, const void *buf, size_t len);

/* One step of Marsaglia's xorshift32 (shifts 13, 17, 5). *state must be
 * non-zero; it stays non-zero. Returns the new state. */
uint32_t ftl_util_xorshift32(uint32_t *state);

/* Maps a 32-bit random value onto 0 .. n-1 without a division
 * (multiply-shift; bias below 2^-32 * n). n must be >= 1. */
uint32_t ftl_util_range(uint32_t random, uint32_t n);

/* Little-endian 32-bit load/store on byte buffers (alignment-free). */
uint32_t ftl_util_load_le32(const uint8_t *p);
void ftl_util_store_le32(uint8_t *p, uint32_t v);

/* True if all `len` bytes equal 0xFF (the erased state of NAND). */
bool ftl_util_is_erased(const void *buf, size_t len);

#endif /* FTL_UTIL_H */
