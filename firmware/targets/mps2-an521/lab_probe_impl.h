/*
 * Probe implementation for emulator targets: one store into the probe region that the
 * rtoslab QEMU plugin watches (docs/formats.md section 1). The address is built inside the
 * same asm statement (movw, movt, str), so the probe is exactly three instructions, one
 * scratch register (r12) and one memory write, whatever the compiler does around it and
 * at every optimisation level.
 *
 * C: LAB_PROBE_IMPL(id) (through lab/probe.h's LAB_PROBE). Assembly sources (.S) that
 * include this header get the same three instructions as the macro `lab_probe ID`.
 */
#ifndef LAB_PROBE_IMPL_H
#define LAB_PROBE_IMPL_H

/* The probe region comes from target.toml [probe] (the build defines both macros; the host
 * checks that the base is 64 KiB aligned and the size at most 64 KiB, so movt loads the
 * base's upper half and movw the id's byte offset). */
#if !defined(LAB_PROBE_REGION_BASE) || !defined(LAB_PROBE_REGION_SIZE)
#error "LAB_PROBE_REGION_BASE and LAB_PROBE_REGION_SIZE must be set by the build (target.toml [probe])"
#endif

#ifdef __ASSEMBLER__
/* clang-format off */
    .macro lab_probe id
    movw r12, #((\id) * 4)
    movt r12, #(LAB_PROBE_REGION_BASE >> 16)
    str r12, [r12]
    .endm
/* clang-format on */
#else

#define LAB_PROBE_STR_(x) #x
#define LAB_PROBE_XSTR_(x) LAB_PROBE_STR_(x)

/* r12 (ip) is the AAPCS intra-procedure scratch register. It is named as a clobber, not
 * as an output operand: an output would be spilled to the stack at -O0, adding a fourth
 * instruction (and a second store) that assembly-written probes do not have. */
#define LAB_PROBE_IMPL(id)                                                              \
    do {                                                                                \
        _Static_assert((id) >= 0 && (id) < (int)(LAB_PROBE_REGION_SIZE / 4u),           \
                       "probe id out of range");                                        \
        _Static_assert((LAB_PROBE_REGION_BASE & 0xFFFFu) == 0u,                         \
                       "probe region base must be 64 KiB aligned");                     \
        __asm__ volatile("movw r12, #((" LAB_PROBE_XSTR_(id) ") * 4)\n\t"              \
                         "movt r12, #%c0\n\t"                                           \
                         "str r12, [r12]"                                               \
                         :                                                              \
                         : "i"(LAB_PROBE_REGION_BASE >> 16)                             \
                         : "r12", "memory");                                            \
    } while (0)

#endif /* __ASSEMBLER__ */

#endif /* LAB_PROBE_IMPL_H */
