/*
 * rand.c - xorshift32 and range mapping (see rand.h).
 */
#include "rand.h"

uint32_t ftl_rand_xorshift32(uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return x;
}

uint32_t ftl_rand_range(uint32_t random, uint32_t n)
{
    return (uint32_t)(((uint64_t)random * (uint64_t)n) >> 32);
}
