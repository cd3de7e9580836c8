/*
 * Probe implementation for emulator targets, shared by every Cortex-M target: one store
 * into the probe region that the rtoslab QEMU plugin watches (docs/formats.md section 1).
 * The form is chosen by the architecture the compiler targets (its predefined
 * __ARM_ARCH_*__ macro), never by a list of boards:
 *
 * - ARMv7-M, ARMv7E-M, ARMv8-M Mainline: the address is built inside the same asm
 *   statement (movw, movt, str), so the probe is exactly three instructions, one scratch
 *   register (r12) and one memory write, whatever the compiler does around it and at every
 *   optimisation level.
 * - ARMv6-M: no movw/movt, and loads and stores take low registers only, so the address
 *   comes from a literal placed inside the sequence: `ldr r3, lit; b over; lit: .word
 *   address; over: str r3, [r3]`. That is always exactly three executed instructions (the
 *   literal and its alignment padding are jumped over), one scratch register (r3, an AAPCS
 *   argument/scratch register, named as a clobber), one load and one memory write, and no
 *   flags, at every optimisation level.
 *
 * The calibration pair measures the probe like any other, so intervals exclude it.
 * C: LAB_PROBE_IMPL(id) (through lab/probe.h's LAB_PROBE). Assembly sources (.S) that
 * include this header get the same sequence as the macro `lab_probe ID` (it overwrites
 * r12, or r3 on ARMv6-M). A target may replace this header with a lab_probe_impl.h of its
 * own (its folder comes first on the include path).
 *
 * Buffer mode (LAB_PROBE_MODE_BUFFER=1: boards, and emulators driven through a GDB stub;
 * lab/probe.h "Probe modes"): the probe appends (id, timestamp) to lab_probe_buf. The
 * sequence saves r0-r5 and PRIMASK, masks interrupts, reads the clock register whose
 * address the buffer's header holds (DWT CYCCNT or SysTick CVR, chosen at
 * LAB_PROBE_INIT()), appends the entry or counts an overflow, and restores everything: no
 * clobbered register (so the compiler's code around a probe is the same as without it),
 * interrupts masked for its duration (so a probe in a handler never tears a task's entry),
 * one path per outcome: 20 instructions on the stored path, both forms (ARMv6-M's
 * literals are jumped over). The calibration pair measures the stored path's cost like
 * any other pair (firmware/arch/cortex-m/lab_probe_buffer_impl.h).
 */
#ifndef LAB_PROBE_IMPL_H
#define LAB_PROBE_IMPL_H

#if !defined(LAB_PROBE_MODE_BUFFER)
#error "LAB_PROBE_MODE_BUFFER must be set by the build (0: region, 1: buffer; target.toml [probe] mode)"
#endif

#if LAB_PROBE_MODE_BUFFER
#include "lab_probe_buffer_impl.h"
#else

/* The probe region comes from target.toml [probe] (the build defines both macros; the host
 * checks that the base is 64 KiB aligned and the size at most 64 KiB, so movt loads the
 * base's upper half and movw the id's byte offset). */
#if !defined(LAB_PROBE_REGION_BASE) || !defined(LAB_PROBE_REGION_SIZE)
#error "LAB_PROBE_REGION_BASE and LAB_PROBE_REGION_SIZE must be set by the build (target.toml [probe])"
#endif

#if defined(__ARM_ARCH_6M__)
#define LAB_PROBE_ARMV6M_ 1
#elif defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__) || defined(__ARM_ARCH_8M_MAIN__)
#define LAB_PROBE_ARMV6M_ 0
#else
#error "lab_probe_impl.h: no probe form for this architecture (ARMv6-M, ARMv7-M, ARMv7E-M and ARMv8-M Mainline have one); give the target a lab_probe_impl.h of its own"
#endif

#ifdef __ASSEMBLER__
/* clang-format off */
#if LAB_PROBE_ARMV6M_
    .macro lab_probe id
    ldr r3, .Llab_probe_lit\@
    b .Llab_probe_over\@
    .p2align 2
.Llab_probe_lit\@:
    .word LAB_PROBE_REGION_BASE + (\id) * 4
.Llab_probe_over\@:
    str r3, [r3]
    .endm
#else
    .macro lab_probe id
    movw r12, #((\id) * 4)
    movt r12, #(LAB_PROBE_REGION_BASE >> 16)
    str r12, [r12]
    .endm
#endif
/* clang-format on */
#else

#define LAB_PROBE_STR_(x) #x
#define LAB_PROBE_XSTR_(x) LAB_PROBE_STR_(x)

/* Checked at compile time, whatever the form: the id fits the region, and the region's
 * base is 64 KiB aligned (movt loads its upper half; target.toml [probe] requires it). */
#define LAB_PROBE_CHECK_(id)                                                            \
    _Static_assert((id) >= 0 && (id) < (int)(LAB_PROBE_REGION_SIZE / 4u),               \
                   "probe id out of range");                                            \
    _Static_assert((LAB_PROBE_REGION_BASE & 0xFFFFu) == 0u,                             \
                   "probe region base must be 64 KiB aligned")

#if LAB_PROBE_ARMV6M_
#define LAB_PROBE_IMPL(id)                                                              \
    do {                                                                                \
        LAB_PROBE_CHECK_(id);                                                           \
        __asm__ volatile("ldr r3, .Llab_probe_lit%=\n\t"                                \
                         "b .Llab_probe_over%=\n\t"                                     \
                         ".p2align 2\n"                                                 \
                         ".Llab_probe_lit%=:\n\t"                                       \
                         ".word %c0 + (" LAB_PROBE_XSTR_(id) ") * 4\n"                  \
                         ".Llab_probe_over%=:\n\t"                                      \
                         "str r3, [r3]"                                                 \
                         :                                                              \
                         : "i"(LAB_PROBE_REGION_BASE)                                   \
                         : "r3", "memory");                                             \
    } while (0)
#else
/* r12 (ip) is the AAPCS intra-procedure scratch register. It is named as a clobber, not
 * as an output operand: an output would be spilled to the stack at -O0, adding a fourth
 * instruction (and a second store) that assembly-written probes do not have. */
#define LAB_PROBE_IMPL(id)                                                              \
    do {                                                                                \
        LAB_PROBE_CHECK_(id);                                                           \
        __asm__ volatile("movw r12, #((" LAB_PROBE_XSTR_(id) ") * 4)\n\t"              \
                         "movt r12, #%c0\n\t"                                           \
                         "str r12, [r12]"                                               \
                         :                                                              \
                         : "i"(LAB_PROBE_REGION_BASE >> 16)                             \
                         : "r12", "memory");                                            \
    } while (0)
#endif

/* A probe with a run-time id (lab/probe.h LAB_PROBE_VAR): one word store at
 * base + 4 * id; the value stored is the id (the plugin ignores it). Any architecture:
 * the compiler picks the instructions (so it is not a fixed sequence; docs/timeline.md). */
#define LAB_PROBE_VAR_IMPL(id)                                                          \
    (*(volatile uint32_t *)(uintptr_t)(LAB_PROBE_REGION_BASE + 4u * (uint32_t)(id)) =   \
         (uint32_t)(id))

#endif /* __ASSEMBLER__ */

#endif /* LAB_PROBE_MODE_BUFFER */

#endif /* LAB_PROBE_IMPL_H */
