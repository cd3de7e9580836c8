/*
 * Probe implementation for AVR emulator targets: one store into the probe region that
 * the rtoslab QEMU plugin watches (docs/formats.md section 1), as on the Cortex-M targets.
 *
 * The region is in the data space above the part's SRAM, where QEMU's AVR machine maps
 * nothing (a store there is dropped). A probe is exactly one instruction, `sts k, r1`
 * (two words, two cycles: AVR Instruction Set Manual, STS, AVRe), storing the zero
 * register that avr-gcc keeps at 0: no scratch register, no flags, the same at every
 * optimisation level. The calibration pair measures it like any other, so intervals
 * exclude it. Assembly sources (.S) get the same instruction as the macro `lab_probe ID`.
 * Ids are word-spaced (base + 4 * id), as on Arm, so the host and the plugin read the
 * region the same way on every target.
 */
#ifndef LAB_PROBE_IMPL_H
#define LAB_PROBE_IMPL_H

#if !defined(LAB_PROBE_REGION_BASE) || !defined(LAB_PROBE_REGION_SIZE)
#error "LAB_PROBE_REGION_BASE and LAB_PROBE_REGION_SIZE must be set by the build (target.toml [probe])"
#endif
#if !defined(__AVR__)
#error "arch/avr/lab_probe_impl.h is for AVR targets"
#endif

#ifdef __ASSEMBLER__
/* clang-format off */
    .macro lab_probe id
    sts LAB_PROBE_REGION_BASE + (\id) * 4, r1
    .endm
/* clang-format on */
#else

#define LAB_PROBE_CHECK_(id)                                                            \
    _Static_assert((id) >= 0 && (id) < (int)(LAB_PROBE_REGION_SIZE / 4u),               \
                   "probe id out of range");                                            \
    _Static_assert(LAB_PROBE_REGION_BASE + LAB_PROBE_REGION_SIZE <= 0x10000u,           \
                   "the probe region must lie in the 16-bit data space")

#define LAB_PROBE_IMPL(id)                                                              \
    do {                                                                                \
        LAB_PROBE_CHECK_(id);                                                           \
        __asm__ volatile("sts %0, __zero_reg__"                                         \
                         :                                                              \
                         : "i"(LAB_PROBE_REGION_BASE + (id) * 4)                        \
                         : "memory");                                                   \
    } while (0)

/* A probe with a run-time id (lab/probe.h LAB_PROBE_VAR): one byte store at base + 4 * id
 * (the compiler picks the instructions). */
#define LAB_PROBE_VAR_IMPL(id)                                                          \
    (*(volatile uint8_t *)(uintptr_t)(LAB_PROBE_REGION_BASE + 4u * (uint16_t)(id)) =    \
         (uint8_t)(id))

#endif /* __ASSEMBLER__ */

#endif /* LAB_PROBE_IMPL_H */
