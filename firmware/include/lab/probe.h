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
 * Probe modes (target.toml [probe] mode, or `rtoslab run --probe`; the build defines
 * LAB_PROBE_MODE_BUFFER to 0 or 1):
 *   region          (emulator) one store into the probe region; the QEMU plugin counts
 *                   instructions and modelled cycles before it. Reads no timer.
 *   buffer          (board, or an emulator driven through its GDB stub) the probe reads
 *                   a cycle clock and appends (id, timestamp) to the RAM buffer
 *                   lab_probe_buf below; the GDB runner reads it after the run
 *                   (docs/boards.md). The clock is chosen once, at LAB_PROBE_INIT(): DWT
 *                   CYCCNT where the core has it and it counts (M3, M4, M33: the harness
 *                   enables it), else SysTick's current value (M0, M0+, and QEMU, whose
 *                   CYCCNT reads 0), free-running over the 24-bit range until a kernel
 *                   reprograms it (lab_target_tick_start records the change as two marker
 *                   entries); its exception counts the wraps (and calls the kernel's
 *                   SysTick_Handler once a tick runs), and every entry carries the count,
 *                   so the host unwraps every timestamp exactly.
 *                   The sequence is fixed (registers saved and restored inside it), so its
 *                   cost is a constant of the build that the calibration pair measures.
 *                   A hit beyond the buffer's capacity (target.toml [probe] buffer) is not
 *                   stored but counted in `overflow`, which the host reports.
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

/* LAB_PROBE_INIT(): called once by the harness after lab_target_init() and before the
 * calibration pair: selects and starts the probe clock in buffer mode, nothing in region
 * mode. */
#ifdef LAB_PROBE_INIT_IMPL
#define LAB_PROBE_INIT() LAB_PROBE_INIT_IMPL()
#else
#define LAB_PROBE_INIT() ((void)0)
#endif

/* The RAM probe buffer of buffer mode. Its layout is shared with the host (the GDB runner,
 * src/rtoslab/runners/probe_buffer.py; tests/unit/test_probe_buffer.py checks they agree):
 * twelve header words, then `capacity` entries of two words: (id | wraps << 16, timestamp),
 * where `wraps` is the low 16 bits of the SysTick wrap count at the hit (0 on DWT). */
#define LAB_PROBE_BUF_MAGIC 0x4242414Cu  /* "LABB": the harness initialised the buffer */
#define LAB_PROBE_BUF_OFF_MAGIC 0        /* word offsets in bytes */
#define LAB_PROBE_BUF_OFF_CLOCK 4        /* LAB_PROBE_CLOCK_*: the clock the probes read */
#define LAB_PROBE_BUF_OFF_NEXT 8         /* address of the next free entry */
#define LAB_PROBE_BUF_OFF_END 12         /* address one past the last entry */
#define LAB_PROBE_BUF_OFF_OVERFLOW 16    /* hits not stored: the buffer was full */
#define LAB_PROBE_BUF_OFF_TS_ADDR 20     /* the register a probe reads its timestamp from */
#define LAB_PROBE_BUF_OFF_CAPACITY 24    /* entries */
#define LAB_PROBE_BUF_OFF_RELOAD 28      /* SysTick reload at LAB_PROBE_INIT() (SysTick clock) */
#define LAB_PROBE_BUF_OFF_WRAPS_ADDR 32  /* the word a probe reads its wrap count from */
#define LAB_PROBE_BUF_OFF_WRAPS 36       /* SysTick wraps counted by its exception (SysTick clock) */
#define LAB_PROBE_BUF_OFF_TICK_ON 40     /* 1 once a kernel tick runs: SysTick_Handler is called */
#define LAB_PROBE_BUF_OFF_ZERO 44        /* always 0: the wrap count of the DWT clock */
#define LAB_PROBE_BUF_OFF_ENTRIES 48
#define LAB_PROBE_CLOCK_NONE 0u          /* not initialised (no LAB_PROBE_INIT() ran) */
#define LAB_PROBE_CLOCK_DWT 1u           /* DWT CYCCNT: counts core cycles up, wraps at 2^32 */
#define LAB_PROBE_CLOCK_SYSTICK 2u       /* SysTick CVR: counts down from the reload, wraps */
/* Marker entries (ids above every probe id): SysTick is being reprogrammed. MARK_BEFORE's
 * timestamp is the current value just before (on the old reload), MARK_RELOAD's value the
 * new reload; the counter restarts from it. */
#define LAB_PROBE_MARK_BEFORE 0xFFFFu
#define LAB_PROBE_MARK_RELOAD 0xFFFEu

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
