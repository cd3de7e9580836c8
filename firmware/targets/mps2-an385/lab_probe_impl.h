/*
 * Probe implementation for emulator targets: one store into the probe region that the
 * rtoslab QEMU plugin watches (docs/formats.md section 1). The address is built inside the
 * same asm statement (movw, movt, str), so the probe is exactly three instructions, one
 * scratch register (r12) and one memory write, whatever the compiler does around it and
 * at every optimisation level.
 */
#ifndef LAB_PROBE_IMPL_H
#define LAB_PROBE_IMPL_H

#define LAB_PROBE_REGION_BASE 0x21000000u
#define LAB_PROBE_REGION_SIZE 0x4000u

#define LAB_PROBE_STR_(x) #x
#define LAB_PROBE_XSTR_(x) LAB_PROBE_STR_(x)

/* r12 (ip) is the AAPCS intra-procedure scratch register. It is named as a clobber, not
 * as an output operand: an output would be spilled to the stack at -O0, adding a fourth
 * instruction (and a second store) that assembly-written probes do not have. */
#define LAB_PROBE_IMPL(id)                                                              \
    do {                                                                                \
        _Static_assert((id) >= 0 && (id) < (int)(LAB_PROBE_REGION_SIZE / 4u),           \
                       "probe id out of range");                                        \
        __asm__ volatile("movw r12, #((" LAB_PROBE_XSTR_(id) ") * 4)\n\t"              \
                         "movt r12, #0x2100\n\t"                                        \
                         "str r12, [r12]"                                               \
                         :                                                              \
                         :                                                              \
                         : "r12", "memory");                                            \
    } while (0)

#endif /* LAB_PROBE_IMPL_H */
