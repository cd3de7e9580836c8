/*
 * lab/probe.h - the probe API: mark points in benchmark code, declare how they pair.
 *
 * Contract
 *   LAB_PROBE(id)   Marks a point. `id` is an integer constant 2..4031 (0 and 1 belong to
 *                   the harness's calibration pair; the region's top 64 ids are the trace
 *                   hook's, lab/port.h). Never blocks, never prints, reads no timer on
 *                   emulator targets. Its cost is a constant of the build that the
 *                   harness measures and the host subtracts (docs/formats.md section 4), so
 *                   an empty pair measures exactly 0. Safe in tasks and in interrupt
 *                   handlers. The implementation comes from the target's
 *                   <lab_probe_impl.h> (firmware/arch/cortex-m/'s for every Cortex-M
 *                   target unless its folder has its own), so a board can store a cycle-counter value into a
 *                   RAM buffer instead, without any benchmark changing.
 *
 *   LAB_INTERVAL(metric, start, end, "description")
 *                   Declares a metric: each hit of `start` followed by a hit of `end` is one
 *                   sample (end - start). Hits must alternate start, end, ...
 *   LAB_PERIOD(metric, id, "description")
 *                   Declares a metric whose samples are the distances between successive
 *                   hits of `id`.
 *   LAB_SINCE(metric, start, end, "description")
 *                   Declares a metric with one sample per hit of `end`: the distance from
 *                   the most recent hit of `start` (e.g. "since the last tick interrupt").
 *                   `start` may hit any number of times between ends; an end before any
 *                   start fails the run.
 *   LAB_INTERVAL_VIRTUAL / LAB_PERIOD_VIRTUAL (same arguments)
 *                   As LAB_INTERVAL / LAB_PERIOD, for a metric whose length is paced by the
 *                   emulator's instruction clock (it spans waiting for a timer): the host
 *                   reports its instruction count only, with time base "virtual", never
 *                   modelled cycles or microseconds (docs/formats.md section 3).
 *                   Both are file-scope declarations that put one record in the ELF section
 *                   .lab_meta, which is not loaded: they cost no flash, RAM or time.
 *                   `metric` is a C identifier in [a-z0-9_] of at most 31 characters; the
 *                   description at most 111 characters (longer ones fail to compile).
 */
#ifndef LAB_PROBE_H
#define LAB_PROBE_H

#include <stdint.h>

#include "lab_probe_impl.h" /* from the target or arch/cortex-m: defines LAB_PROBE_IMPL(id) */

#define LAB_PROBE(id) LAB_PROBE_IMPL(id)

/* LAB_PROBE_VAR(id): a probe whose id is computed at run time (the trace hook of
 * lab/port.h uses it for task ids). Its cost depends on how the compiler computes the id,
 * so it belongs to no calibrated pair. A target that has no run-time probe leaves
 * LAB_PROBE_VAR_IMPL undefined; then only builds that use it fail. */
#define LAB_PROBE_VAR(id) LAB_PROBE_VAR_IMPL(id)

/* Reserved probe ids: the harness's calibration pair (the host finds the pair by its
 * .lab_meta flag and refuses these ids for any other metric; rtoslab.trace.meta reads
 * them from here). Benchmarks use ids from LAB_PROBE_FIRST_BENCH_ID. */
#define LAB_PROBE_CALIBRATION_START 0
#define LAB_PROBE_CALIBRATION_END 1
#define LAB_PROBE_FIRST_BENCH_ID 2

/* The .lab_meta record: its one declaration is formats/lab_meta.toml (docs/formats.md
 * section 3); tests/unit/test_format_contracts.py checks these agree with it. */
#define LAB_META_MAGIC 0x5042414Cu /* "LABP" */
#define LAB_META_VERSION 1u
#define LAB_META_KIND_INTERVAL 0u
#define LAB_META_KIND_PERIOD 1u
#define LAB_META_KIND_SINCE 2u
#define LAB_META_FLAG_CALIBRATION 1u
#define LAB_META_FLAG_NO_CALIBRATION 2u
#define LAB_META_FLAG_VIRTUAL 4u

/* One metadata record (160 bytes; formats/lab_meta.toml). */
struct lab_meta_rec {
    uint32_t magic;
    uint16_t version;
    uint16_t kind;
    uint16_t start_id;
    uint16_t end_id;
    uint32_t flags;
    char name[32];
    char desc[112];
};

/* no_reorder: the records stay in declaration order at every optimisation level and with
 * LTO (GCC otherwise emits them reversed from -O1 on), so reports list a benchmark's
 * metrics in the order its source declares them. */
#define LAB_META_REC_(metric, kind, start, end, flags, desc)                                  \
    __attribute__((section(".lab_meta"), used, no_reorder, aligned(4))) static const struct lab_meta_rec \
        lab_meta_##metric = {LAB_META_MAGIC, LAB_META_VERSION, (kind), (start), (end), (flags), \
                             #metric, desc}

#define LAB_INTERVAL(metric, start, end, desc) \
    LAB_META_REC_(metric, LAB_META_KIND_INTERVAL, start, end, 0u, desc)
#define LAB_PERIOD(metric, id, desc) LAB_META_REC_(metric, LAB_META_KIND_PERIOD, id, id, 0u, desc)
#define LAB_SINCE(metric, start, end, desc) \
    LAB_META_REC_(metric, LAB_META_KIND_SINCE, start, end, 0u, desc)
#define LAB_INTERVAL_VIRTUAL(metric, start, end, desc) \
    LAB_META_REC_(metric, LAB_META_KIND_INTERVAL, start, end, LAB_META_FLAG_VIRTUAL, desc)
#define LAB_PERIOD_VIRTUAL(metric, id, desc) \
    LAB_META_REC_(metric, LAB_META_KIND_PERIOD, id, id, LAB_META_FLAG_VIRTUAL, desc)
/* For the harness only: the calibration pair. */
#define LAB_CALIBRATION(metric, start, end, desc) \
    LAB_META_REC_(metric, LAB_META_KIND_INTERVAL, start, end, LAB_META_FLAG_CALIBRATION, desc)

#endif /* LAB_PROBE_H */
