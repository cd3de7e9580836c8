/*
 * Probe implementation for emulator targets: one store into the probe region that the
 * rtoslab QEMU plugin watches (docs/formats.md section 1). The address is built inside the
 * same asm statement (movw, movt, str), so the probe is exactly three instructions, one
 * scratch register and one memory write, whatever the compiler does around it.
 */
#ifndef LAB_PROBE_IMPL_H
#define LAB_PROBE_IMPL_H

#define LAB_PROBE_REGION_BASE 0x21000000u
#define LAB_PROBE_REGION_SIZE 0x4000u

#define LAB_PROBE_STR_(x) #x
#define LAB_PROBE_XSTR_(x) LAB_PROBE_STR_(x)

#define LAB_PROBE_IMPL(id)                                                              \
    do {                                                                                \
        _Static_assert((id) >= 0 && (id) < (int)(LAB_PROBE_REGION_SIZE / 4u),           \
                       "probe id out of range");                                        \
        uint32_t lab_probe_tmp_;                                                        \
        __asm__ volatile("movw %0, #(" LAB_PROBE_XSTR_(id) " * 4)\n\t"                   \
                         "movt %0, #0x2100\n\t"                                         \
                         "str %0, [%0]"                                                 \
                         : "=&r"(lab_probe_tmp_)                                        \
                         :                                                              \
                         : "memory");                                                   \
    } while (0)

#endif /* LAB_PROBE_IMPL_H */
