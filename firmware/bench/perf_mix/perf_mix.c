/*
 * perf_mix: ordinary integer code for measuring the emulator's speed, not the target's.
 * Each round runs a bitwise CRC-32 over 1 KiB, an insertion sort of 64 words, a 12x12
 * matrix multiply and a 1 KiB copy; PERF_ROUNDS rounds make roughly 220 million guest
 * instructions. Probe 2 -> probe 3 brackets one round (metric `round`).
 * Self-check: the final checksum equals the value computed by the same code on round 0
 * replayed (the work is deterministic, so every round's result is compared to the first).
 */
#include <stdint.h>
#include <string.h>

#include "lab/bench.h"

#ifndef PERF_ROUNDS
#define PERF_ROUNDS 4000
#endif

#define PERF_BYTES 1024
#define PERF_SORT 64
#define PERF_DIM 12

LAB_INTERVAL(round, 2, 3, "one round: CRC-32 of 1 KiB, sort of 64 words, 12x12 matmul, 1 KiB copy");

static uint8_t perf_src[PERF_BYTES];
static uint8_t perf_dst[PERF_BYTES];
static uint32_t perf_keys[PERF_SORT];
static int32_t perf_a[PERF_DIM][PERF_DIM];
static int32_t perf_b[PERF_DIM][PERF_DIM];
static int32_t perf_c[PERF_DIM][PERF_DIM];

static uint32_t perf_crc32(const uint8_t *p, uint32_t n)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (uint32_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int b = 0; b < 8; b++) {
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        }
    }
    return ~crc;
}

static void perf_sort(uint32_t *v, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++) {
        uint32_t key = v[i];
        uint32_t j = i;
        while (j > 0 && v[j - 1] > key) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = key;
    }
}

static int32_t perf_matmul(void)
{
    int32_t trace = 0;
    for (int i = 0; i < PERF_DIM; i++) {
        for (int j = 0; j < PERF_DIM; j++) {
            int32_t s = 0;
            for (int k = 0; k < PERF_DIM; k++) {
                s += perf_a[i][k] * perf_b[k][j];
            }
            perf_c[i][j] = s;
        }
        trace += perf_c[i][i];
    }
    return trace;
}

static uint32_t perf_round(uint32_t seed)
{
    uint32_t x = seed | 1u;
    for (uint32_t i = 0; i < PERF_SORT; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        perf_keys[i] = x;
    }
    perf_sort(perf_keys, PERF_SORT);
    uint32_t sum = perf_crc32(perf_src, PERF_BYTES);
    sum += (uint32_t)perf_matmul();
    memcpy(perf_dst, perf_src, PERF_BYTES);
    sum += perf_keys[0] ^ perf_keys[PERF_SORT - 1] ^ perf_dst[PERF_BYTES / 2];
    return sum;
}

void lab_bench_run(void)
{
    for (uint32_t i = 0; i < PERF_BYTES; i++) {
        perf_src[i] = (uint8_t)(i * 7u + 3u);
    }
    for (int i = 0; i < PERF_DIM; i++) {
        for (int j = 0; j < PERF_DIM; j++) {
            perf_a[i][j] = i - j;
            perf_b[i][j] = i + 2 * j;
        }
    }
    const uint32_t expected = perf_round(12345u);
    for (int r = 0; r < PERF_ROUNDS; r++) {
        LAB_PROBE(2);
        uint32_t got = perf_round(12345u);
        LAB_PROBE(3);
        LAB_CHECK(got == expected);
    }
}
