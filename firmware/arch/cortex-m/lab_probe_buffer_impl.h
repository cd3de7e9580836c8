/*
 * The buffer form of the probe (LAB_PROBE_MODE_BUFFER=1), included by lab_probe_impl.h:
 * every probe appends (id, timestamp) to lab_probe_buf (layout: lab/probe.h), the
 * timestamp read from the register the header's ts_addr names (DWT CYCCNT or SysTick CVR,
 * chosen by lab_probe_buf_init() through LAB_PROBE_INIT()). The buffer itself, its init
 * and the run-time-id form live in lab_cortex_m_target.h (one definition per image).
 *
 * Sequence (both forms): push {r0-r5}; r4 = PRIMASK; cpsid i; r3 = &lab_probe_buf;
 * r2 = *ts_addr (the timestamp); r1 = *wraps_addr << 16 | id (the SysTick wrap count, or
 * 0 on DWT); r0 = next, r5 = end; if next < end: store (r1, r2) at next, next += 8; else call lab_probe_buf_full(), where the GDB runner's breakpoint
 * drains the buffer (then the entry is stored, with the timestamp read before the drain)
 * or, with no runner, the hit is counted in `overflow`; PRIMASK = r4; pop {r0-r5}. No register or flag is
 * left changed except the condition flags ("cc"), so the compiler's code around a probe
 * is what it is without one; its cost is the same at every site.
 *
 * ARMv6-M, C form: GCC may emit inline assembly in divided or unified syntax (it depends on
 * the version), and the two spell the flag-setting shift and OR differently, so those two
 * are written as their encodings: .inst.n 0x0409 is LSLS r1, r1, #16 and .inst.n 0x4301 is
 * ORRS r1, r0 (ARMv6-M ARM A6.7.35, A6.7.48). Every other instruction is spelt the same
 * in both.
 *
 * The id range is the region mode's (the ids of a build do not change with the mode).
 */
#ifndef LAB_PROBE_BUFFER_IMPL_H
#define LAB_PROBE_BUFFER_IMPL_H

#if !defined(LAB_PROBE_REGION_SIZE) || !defined(LAB_PROBE_BUFFER_ENTRIES)
#error "LAB_PROBE_REGION_SIZE and LAB_PROBE_BUFFER_ENTRIES must be set by the build (target.toml [probe])"
#endif

#if defined(__ARM_ARCH_6M__)
#define LAB_PROBE_ARMV6M_ 1
#elif defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__) || defined(__ARM_ARCH_8M_MAIN__)
#define LAB_PROBE_ARMV6M_ 0
#else
#error "lab_probe_buffer_impl.h: no buffer probe form for this architecture (ARMv6-M, ARMv7-M, ARMv7E-M and ARMv8-M Mainline have one)"
#endif

#ifdef __ASSEMBLER__
/* clang-format off */
#if LAB_PROBE_ARMV6M_
    .macro lab_probe id
    push {r0-r5}
    mrs r4, primask
    cpsid i
    ldr r3, .Llab_pb_buf\@
    ldr r2, [r3, #20]
    ldr r2, [r2]
    ldr r1, [r3, #32]
    ldr r1, [r1]
    lsls r1, r1, #16
    ldr r0, .Llab_pb_id\@
    orrs r1, r0
.Llab_pb_retry\@:
    ldr r0, [r3, #8]
    ldr r5, [r3, #12]
    cmp r0, r5
    bhs .Llab_pb_full\@
    stmia r0!, {r1, r2}
    str r0, [r3, #8]
    b .Llab_pb_done\@
    .p2align 2
.Llab_pb_buf\@:
    .word lab_probe_buf
.Llab_pb_id\@:
    .word (\id)
.Llab_pb_full\@:
    push {r1, r2, r3}
    mov r1, lr
    mov r2, r12
    push {r1, r2}
    bl lab_probe_buf_full
    pop {r1, r2}
    mov lr, r1
    mov r12, r2
    pop {r1, r2, r3}
    cmp r0, #0
    bne .Llab_pb_retry\@
.Llab_pb_done\@:
    msr primask, r4
    pop {r0-r5}
    .endm
#else
    .macro lab_probe id
    push {r0-r5}
    mrs r4, primask
    cpsid i
    movw r3, #:lower16:lab_probe_buf
    movt r3, #:upper16:lab_probe_buf
    ldr r2, [r3, #20]
    ldr r2, [r2]
    ldr r1, [r3, #32]
    ldr r1, [r1]
    lsls r1, r1, #16
    movw r0, #(\id)
    orrs r1, r0
.Llab_pb_retry\@:
    ldrd r0, r5, [r3, #8]
    cmp r0, r5
    bhs .Llab_pb_full\@
    stmia r0!, {r1, r2}
    str r0, [r3, #8]
    b .Llab_pb_done\@
.Llab_pb_full\@:
    push {r1, r2, r3, r12, lr}
    bl lab_probe_buf_full
    pop {r1, r2, r3, r12, lr}
    cmp r0, #0
    bne .Llab_pb_retry\@
.Llab_pb_done\@:
    msr primask, r4
    pop {r0-r5}
    .endm
#endif
/* clang-format on */
#else

#include <stdint.h>

#define LAB_PROBE_STR_(x) #x
#define LAB_PROBE_XSTR_(x) LAB_PROBE_STR_(x)

#define LAB_PROBE_CHECK_(id)                                                            \
    _Static_assert((id) >= 0 && (id) < (int)(LAB_PROBE_REGION_SIZE / 4u), "probe id out of range")

#if LAB_PROBE_ARMV6M_
#define LAB_PROBE_IMPL(id)                                                              \
    do {                                                                                \
        LAB_PROBE_CHECK_(id);                                                           \
        __asm__ volatile("push {r0-r5}\n\t"                                             \
                         "mrs r4, primask\n\t"                                          \
                         "cpsid i\n\t"                                                  \
                         "ldr r3, .Llab_pb_buf%=\n\t"                                   \
                         "ldr r2, [r3, #20]\n\t"                                        \
                         "ldr r2, [r2]\n\t"                                             \
                         "ldr r1, [r3, #32]\n\t"                                        \
                         "ldr r1, [r1]\n\t"                                             \
                         ".inst.n 0x0409\n\t"                                                \
                         "ldr r0, .Llab_pb_id%=\n\t"                                    \
                         ".inst.n 0x4301\n"                                                        \
                         ".Llab_pb_retry%=:\n\t"                                        \
                         "ldr r0, [r3, #8]\n\t"                                         \
                         "ldr r5, [r3, #12]\n\t"                                        \
                         "cmp r0, r5\n\t"                                               \
                         "bhs .Llab_pb_full%=\n\t"                                      \
                         "stmia r0!, {r1, r2}\n\t"                                      \
                         "str r0, [r3, #8]\n\t"                                         \
                         "b .Llab_pb_done%=\n\t"                                        \
                         ".p2align 2\n"                                                 \
                         ".Llab_pb_buf%=:\n\t"                                          \
                         ".word lab_probe_buf\n"                                        \
                         ".Llab_pb_id%=:\n\t"                                           \
                         ".word (" LAB_PROBE_XSTR_(id) ")\n"                            \
                         ".Llab_pb_full%=:\n\t"                                         \
                         "push {r1, r2, r3}\n\t"                                        \
                         "mov r1, lr\n\t"                                               \
                         "mov r2, r12\n\t"                                              \
                         "push {r1, r2}\n\t"                                            \
                         "bl lab_probe_buf_full\n\t"                                    \
                         "pop {r1, r2}\n\t"                                             \
                         "mov lr, r1\n\t"                                               \
                         "mov r12, r2\n\t"                                              \
                         "pop {r1, r2, r3}\n\t"                                         \
                         "cmp r0, #0\n\t"                                               \
                         "bne .Llab_pb_retry%=\n"                                       \
                         ".Llab_pb_done%=:\n\t"                                         \
                         "msr primask, r4\n\t"                                          \
                         "pop {r0-r5}" ::                                               \
                             : "cc", "memory");                                         \
    } while (0)
#else
#define LAB_PROBE_IMPL(id)                                                              \
    do {                                                                                \
        LAB_PROBE_CHECK_(id);                                                           \
        __asm__ volatile("push {r0-r5}\n\t"                                             \
                         "mrs r4, primask\n\t"                                          \
                         "cpsid i\n\t"                                                  \
                         "movw r3, #:lower16:lab_probe_buf\n\t"                         \
                         "movt r3, #:upper16:lab_probe_buf\n\t"                         \
                         "ldr r2, [r3, #20]\n\t"                                        \
                         "ldr r2, [r2]\n\t"                                             \
                         "ldr r1, [r3, #32]\n\t"                                        \
                         "ldr r1, [r1]\n\t"                                             \
                         "lsls r1, r1, #16\n\t"                                         \
                         "movw r0, #(" LAB_PROBE_XSTR_(id) ")\n\t"                      \
                         "orrs r1, r0\n"                                                \
                         ".Llab_pb_retry%=:\n\t"                                        \
                         "ldrd r0, r5, [r3, #8]\n\t"                                    \
                         "cmp r0, r5\n\t"                                               \
                         "bhs .Llab_pb_full%=\n\t"                                      \
                         "stmia r0!, {r1, r2}\n\t"                                      \
                         "str r0, [r3, #8]\n\t"                                         \
                         "b .Llab_pb_done%=\n"                                          \
                         ".Llab_pb_full%=:\n\t"                                         \
                         "push {r1, r2, r3, r12, lr}\n\t"                               \
                         "bl lab_probe_buf_full\n\t"                                    \
                         "pop {r1, r2, r3, r12, lr}\n\t"                                \
                         "cmp r0, #0\n\t"                                               \
                         "bne .Llab_pb_retry%=\n"                                       \
                         ".Llab_pb_done%=:\n\t"                                         \
                         "msr primask, r4\n\t"                                          \
                         "pop {r0-r5}" ::                                               \
                             : "cc", "memory");                                         \
    } while (0)
#endif

/* The full buffer (lab_cortex_m_target.h): 1 when a drain made room, 0 when the hit was
 * counted as an overflow. */
uint32_t lab_probe_buf_full(void);

/* Selects and starts the probe clock, initialises the header (lab_cortex_m_target.h). */
void lab_probe_buf_init(void);
#define LAB_PROBE_INIT_IMPL() lab_probe_buf_init()

/* A probe whose id is computed at run time (lab/probe.h LAB_PROBE_VAR): a call, so not
 * a fixed sequence (as in region mode, it belongs to no calibrated pair). */
void lab_probe_buf_record(uint32_t id);
#define LAB_PROBE_VAR_IMPL(id) lab_probe_buf_record((uint32_t)(id))

#endif /* __ASSEMBLER__ */

#endif /* LAB_PROBE_BUFFER_IMPL_H */
