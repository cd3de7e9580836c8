/*
 * lab/fault.h - fault reports: the target captures, the harness formats.
 *
 * A target's fault handler (any exception nobody else handles) collects what the core
 * tells about the fault into a struct lab_fault and calls lab_fault_report(), which prints
 * one console line the host parses (docs/formats.md):
 *
 *   LAB-FAULT exception=<n> pc=<hex> lr=<hex> xpsr=<hex> exc_return=<hex> cfsr=<hex>
 *             hfsr=<hex> mmfar=<hex> bfar=<hex>        (one line; pc/lr/xpsr only with a frame)
 *
 * and ends the run with LAB_EXIT_FAULT. Targets call this; the harness never calls into a
 * target except through lab/target.h.
 */
#ifndef LAB_FAULT_H
#define LAB_FAULT_H

#include <stdint.h>

struct lab_fault {
    uint32_t exception;    /* active exception number (IPSR) */
    const uint32_t *frame; /* stacked r0, r1, r2, r3, r12, lr, pc, xpsr; 0 if not found */
    uint32_t exc_return;   /* EXC_RETURN (lr on exception entry) */
    uint32_t cfsr;         /* configurable fault status (0 where the core has none) */
    uint32_t hfsr;         /* HardFault status */
    uint32_t mmfar;        /* MemManage fault address */
    uint32_t bfar;         /* BusFault address */
};

/* Print the fault line, then lab_target_exit(LAB_EXIT_FAULT). Callable from any exception
 * handler; uses only the console. Never returns. */
__attribute__((noreturn)) void lab_fault_report(const struct lab_fault *fault);

#endif /* LAB_FAULT_H */
