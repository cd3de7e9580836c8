/*
 * lab/target.h's benchmark timer for a Cortex-M target that has none (target.toml
 * `[lacks] timer`: a benchmark that needs one is n/a there, with the reason the target
 * gives): lab_target_timer_start() reports that it cannot start, lab_target_timer_stop()
 * has nothing to stop; and lab_target_clock_hz(), the clock the build was made for
 * (LAB_TARGET_CLOCK_HZ, target.toml clock_hz).
 *
 * Function definitions: included once per image by the target's target.c (or by
 * lab_cortex_m_board.h), right after lab_cortex_m_target.h, where each such target had
 * its own copy, so the image is what it was.
 */
#ifndef LAB_CORTEX_M_NO_TIMER_H
#define LAB_CORTEX_M_NO_TIMER_H

#include <stdint.h>

#include "lab/target.h"
#include "lab_cortex_m.h"

int lab_target_timer_start(uint32_t period, lab_irq_handler_t handler, uint32_t priority)
{
    (void)period;
    (void)handler;
    (void)priority;
    return -1;
}

void lab_target_timer_stop(void) {}

uint32_t lab_target_clock_hz(void) { return (uint32_t)LAB_TARGET_CLOCK_HZ; }

#endif /* LAB_CORTEX_M_NO_TIMER_H */
