/*
 * rand.h - the xorshift32 PRNG of the FTL core, the host model and the NAND
 * simulator's power-cut noise, and mapping its values onto a range.
 *
 * A leaf: it includes no other module of the core (the simulator below
 * the FTL uses it, so it must not depend on anything that knows the FTL).
 * Pure functions: the caller holds the state.
 */
#ifndef FTL_RAND_H
#define FTL_RAND_H

#include "ftl_types.h"

/* One step of Marsaglia's xorshift32 (shifts 13, 17, 5). *state must be
 * non-zero; it stays non-zero. Returns the new state. */
uint32_t ftl_rand_xorshift32(uint32_t *state);

/* Maps a 32-bit random value onto 0 .. n-1 without a division
 * (multiply-shift; bias below 2^-32 * n). n must be >= 1. */
uint32_t ftl_rand_range(uint32_t random, uint32_t n);

#endif /* FTL_RAND_H */
