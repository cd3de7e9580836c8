/*
 * lab/log.h - logging the way firmware usually does it, for the logging-perturbation
 * benchmarks (docs/timeline.md, "Logging perturbation"; seed 001 found that logging moved
 * its measurements by 19-40 us). A benchmark marks where its code logs with
 * LAB_LOG("fmt %lu\n", value) and calls lab_log_start() before lab_port_start(); the
 * build define LAB_LOG_MODE chooses what that costs:
 *
 *   LAB_LOG_MODE=0 (default)  nothing: LAB_LOG compiles to no code, the image is the
 *                             benchmark's own (probes only).
 *   LAB_LOG_MODE=1            blocking printf over the UART: lab_log_format (a small
 *                             printf: text, %lu, %lx) into a stack buffer, then
 *                             lab_target_console_write, in the caller's
 *                             context, before LAB_LOG returns. On the emulator the UART
 *                             never fills, so this is the CPU cost of formatting and of the
 *                             register writes only; a real 115200-baud UART adds about
 *                             87 us per character on top, which no figure here includes.
 *   LAB_LOG_MODE=2            deferred (RTT-like): LAB_LOG copies the format pointer and
 *                             the value into a RAM ring of LAB_LOG_RING records with
 *                             interrupts masked for the copy (never blocks; a full ring
 *                             drops the record and counts it); a task at the lowest
 *                             benchmark priority (1) formats and writes them, polling once
 *                             per tick. Needs LAB_HAS_SCHEDULER and LAB_HAS_DELAY.
 *
 * LAB_LOG is ISR-safe in every mode. It is on the measured path by design: that is what
 * is being measured. The format takes exactly one value (%lu or %lx).
 */
#ifndef LAB_LOG_H
#define LAB_LOG_H

#include <stdint.h>

#ifndef LAB_LOG_MODE
#define LAB_LOG_MODE 0
#endif

#if LAB_LOG_MODE == 0

#define LAB_LOG(fmt, value) ((void)0)
#define lab_log_start() ((void)0)

#else

#include "lab/target.h"

/* A small printf (newlib's pulls in malloc, which the images do not link): copies `fmt`
 * into buf (at most `size` bytes), replacing %lu by `value` in decimal, %lx in hex and %%
 * by %. Returns the length written. */
static inline uint32_t lab_log_format(char *buf, uint32_t size, const char *fmt, uint32_t value)
{
    uint32_t n = 0;
    for (const char *p = fmt; *p != '\0' && n < size; p++) {
        if (p[0] == '%' && p[1] == 'l' && (p[2] == 'u' || p[2] == 'x')) {
            const uint32_t base = p[2] == 'u' ? 10u : 16u;
            char digits[10];
            uint32_t d = 0;
            uint32_t v = value;
            do {
                digits[d++] = "0123456789abcdef"[v % base];
                v /= base;
            } while (v != 0u && d < sizeof digits);
            while (d > 0u && n < size) {
                buf[n++] = digits[--d];
            }
            p += 2;
        } else if (p[0] == '%' && p[1] == '%') {
            buf[n++] = '%';
            p++;
        } else {
            buf[n++] = *p;
        }
    }
    return n;
}

#endif

#if LAB_LOG_MODE == 1

static inline void lab_log_uart(const char *fmt, uint32_t value)
{
    char buf[64];
    lab_target_console_write(buf, lab_log_format(buf, sizeof buf, fmt, value));
}

#define LAB_LOG(fmt, value) lab_log_uart((fmt), (uint32_t)(value))
#define lab_log_start() ((void)0)

#elif LAB_LOG_MODE == 2

#include "lab/bench.h"
#include "lab/port.h"

#if !LAB_HAS_SCHEDULER || !LAB_HAS_DELAY
#error "LAB_LOG_MODE=2 (deferred logging) needs a kernel with tasks and delays"
#endif

#define LAB_LOG_RING 64u /* records; a power of two */

struct lab_log_rec {
    const char *fmt;
    uint32_t value;
};

static struct lab_log_rec lab_log_ring[LAB_LOG_RING];
static volatile uint32_t lab_log_head; /* written by producers (masked) */
static volatile uint32_t lab_log_tail; /* written by the drain task */
static volatile uint32_t lab_log_dropped;

static inline void lab_log_push(const char *fmt, uint32_t value)
{
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
    uint32_t head = lab_log_head;
    if (head - lab_log_tail < LAB_LOG_RING) {
        lab_log_ring[head & (LAB_LOG_RING - 1u)].fmt = fmt;
        lab_log_ring[head & (LAB_LOG_RING - 1u)].value = value;
        lab_log_head = head + 1u;
    } else {
        lab_log_dropped = lab_log_dropped + 1u;
    }
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
}

static void lab_log_drain_task(void *arg)
{
    (void)arg;
    for (;;) {
        while (lab_log_tail != lab_log_head) {
            struct lab_log_rec r = lab_log_ring[lab_log_tail & (LAB_LOG_RING - 1u)];
            lab_log_tail = lab_log_tail + 1u;
            char buf[64];
            lab_target_console_write(buf, lab_log_format(buf, sizeof buf, r.fmt, r.value));
        }
        lab_task_delay(1u);
    }
}

static lab_task_t lab_log_task;
static LAB_STACK_DEFINE(lab_log_stack, 384u);

static inline void lab_log_start(void)
{
    LAB_CHECK(lab_task_create(&lab_log_task, "log-drain", lab_log_drain_task, 0, 1u, lab_log_stack,
                              384u) == LAB_OK);
}

#define LAB_LOG(fmt, value) lab_log_push((fmt), (uint32_t)(value))

#elif LAB_LOG_MODE != 0
#error "LAB_LOG_MODE must be 0 (none), 1 (blocking UART printf) or 2 (deferred ring buffer)"
#endif

#endif /* LAB_LOG_H */
