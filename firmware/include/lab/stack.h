/*
 * lab/stack.h - stack high-water marks by painting, independent of any kernel.
 *
 * lab_stack_paint(lo, hi)       fills the words of [lo, hi) with a pattern. Call it on a
 *                               stack that is not in use (before its task is created),
 *                               outside any measured interval: it costs ~4 instructions
 *                               per word.
 * lab_stack_peak_bytes(lo, hi)  bytes of [lo, hi) used at the deepest point so far: from
 *                               hi down to the lowest word that no longer holds the
 *                               pattern (stacks grow down). Does not block; never fails.
 * lab_stack_report(name, lo, hi) prints "LAB-KV stack_peak_<name>=<bytes>" (console:
 *                               never on a measured path); the host stores it with the
 *                               result and reports it with the footprint.
 * A word that happens to equal the pattern is counted as unused, so a peak can read low
 * by the few words that were written with exactly that value.
 */
#ifndef LAB_STACK_H
#define LAB_STACK_H

#include <stdint.h>

#define LAB_STACK_PAINT_WORD 0xA5A5A5A5u

void lab_stack_paint(uintptr_t lo, uintptr_t hi);
uint32_t lab_stack_peak_bytes(uintptr_t lo, uintptr_t hi);
void lab_stack_report(const char *name, uintptr_t lo, uintptr_t hi);

#endif /* LAB_STACK_H */
