/*
 * Probe implementation for the microbit (Cortex-M0, ARMv6-M): one store into the probe
 * region that the rtoslab QEMU plugin watches (docs/formats.md section 1).
 *
 * ARMv6-M has no movw/movt and its loads and stores take low registers only, so the
 * address comes from a literal placed inside the sequence: `ldr r3, lit; b over; lit:
 * .word address; over: str r3, [r3]`. That is always exactly three executed instructions
 * (the literal and its alignment padding are jumped over), one scratch register (r3, an
 * AAPCS argument/scratch register, named as a clobber), one load and one memory write,
 * and no flags, at every optimisation level. The calibration pair measures it like any
 * probe, so intervals exclude it.
 *
 * C: LAB_PROBE_IMPL(id) (through lab/probe.h's LAB_PROBE). Assembly sources (.S) that
 * include this header get the same sequence as the macro `lab_probe ID` (it overwrites r3).
 */
#ifndef LAB_PROBE_IMPL_H
#define LAB_PROBE_IMPL_H

#if !defined(LAB_PROBE_REGION_BASE) || !defined(LAB_PROBE_REGION_SIZE)
#error "LAB_PROBE_REGION_BASE and LAB_PROBE_REGION_SIZE must be set by the build (target.toml [probe])"
#endif

#ifdef __ASSEMBLER__
/* clang-format off */
    .macro lab_probe id
    ldr r3, .Llab_probe_lit\@
    b .Llab_probe_over\@
    .p2align 2
.Llab_probe_lit\@:
    .word LAB_PROBE_REGION_BASE + (\id) * 4
.Llab_probe_over\@:
    str r3, [r3]
    .endm
/* clang-format on */
#else

#define LAB_PROBE_STR_(x) #x
#define LAB_PROBE_XSTR_(x) LAB_PROBE_STR_(x)

#define LAB_PROBE_IMPL(id)                                                              \
    do {                                                                                \
        _Static_assert((id) >= 0 && (id) < (int)(LAB_PROBE_REGION_SIZE / 4u),           \
                       "probe id out of range");                                        \
        _Static_assert((LAB_PROBE_REGION_BASE & 0xFFFFu) == 0u,                         \
                       "probe region base must be 64 KiB aligned");                     \
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

#endif /* __ASSEMBLER__ */

#endif /* LAB_PROBE_IMPL_H */
