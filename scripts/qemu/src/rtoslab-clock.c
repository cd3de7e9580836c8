/*
 * rtoslab one-clock: QEMU's icount time driven by a plugin's cycle counters.
 * The contract is in rtoslab-clock.h; scripts/qemu/patch_qemu.py copies this file into
 * accel/tcg/ and adds the calls to it.
 */
#include "qemu/osdep.h"
#include "qemu/host-utils.h"
#include "qemu/seqlock.h"
#include "qemu/timer.h"
#include "hw/core/cpu.h"
#include "system/cpu-timers.h"
#include "system/cpu-timers-internal.h"
#include "system/rtoslab-clock.h"

uint32_t rtoslab_clock_hz;
__thread uint64_t rtoslab_clock_tb_cycles;

/* Cycles the vCPUs' counters advanced, summed at QEMU's icount sync points. */
static int64_t lab_cycles;
/* Cycles the clock jumped while every vCPU slept. */
static int64_t lab_idle;
/* Idle cycles not yet added to vCPU 0's counter. */
static int64_t lab_idle_pending;

bool rtoslab_clock_register(CPUState *cpu, uint64_t *counter, uint64_t hz)
{
    if (icount_enabled() != ICOUNT_PRECISE || counter == NULL || hz == 0
        || hz > UINT32_MAX) {
        return false;
    }
    if (rtoslab_clock_hz != 0 && rtoslab_clock_hz != hz) {
        return false;
    }
    seqlock_write_lock(&timers_state.vm_clock_seqlock, &timers_state.vm_clock_lock);
    rtoslab_clock_hz = (uint32_t)hz;
    if (cpu->lab_clock != NULL) {
        /* Moved: the new storage holds the same value, so what is accounted stays. */
        cpu->lab_last += *counter - *cpu->lab_clock;
    } else {
        cpu->lab_last = *counter;
    }
    cpu->lab_clock = counter;
    seqlock_write_unlock(&timers_state.vm_clock_seqlock, &timers_state.vm_clock_lock);
    return true;
}

int64_t rtoslab_clock_to_ns(int64_t cycles)
{
    return (int64_t)muldiv64((uint64_t)cycles, NANOSECONDS_PER_SECOND, rtoslab_clock_hz);
}

int64_t rtoslab_clock_round(int64_t ns)
{
    if (ns <= 0) {
        return 0;
    }
    return (int64_t)muldiv64_round_up((uint64_t)ns, rtoslab_clock_hz, NANOSECONDS_PER_SECOND);
}

int64_t rtoslab_clock_limit(void)
{
    int64_t deadline = qemu_clock_deadline_ns_all(QEMU_CLOCK_VIRTUAL, QEMU_TIMER_ATTR_ALL);

    if (deadline < 0 || deadline > INT32_MAX) {
        deadline = INT32_MAX; /* no timer armed: a long slice, as QEMU's own limit */
    }
    return rtoslab_clock_round(deadline);
}

void rtoslab_clock_account(CPUState *cpu)
{
    if (rtoslab_clock_hz == 0 || cpu->lab_clock == NULL) {
        return;
    }
    uint64_t now = qatomic_read(cpu->lab_clock);
    qatomic_set_i64(&lab_cycles, lab_cycles + (int64_t)(now - cpu->lab_last));
    cpu->lab_last = now;
}

int64_t rtoslab_clock_elapsed_ns(void)
{
    return rtoslab_clock_to_ns(qatomic_read_i64(&lab_cycles) + qatomic_read_i64(&lab_idle));
}

void rtoslab_clock_warp(void)
{
    CPUState *cpu;
    int64_t ns;
    int64_t cycles;

    /* A halted vCPU runs no more instructions, so its counter is final: account it here
     * (its thread's own accounting then adds nothing). */
    seqlock_write_lock(&timers_state.vm_clock_seqlock, &timers_state.vm_clock_lock);
    CPU_FOREACH(cpu) {
        rtoslab_clock_account(cpu);
    }
    seqlock_write_unlock(&timers_state.vm_clock_seqlock, &timers_state.vm_clock_lock);

    ns = qemu_clock_deadline_ns_all(QEMU_CLOCK_VIRTUAL, ~QEMU_TIMER_ATTR_EXTERNAL);
    if (ns <= 0) {
        return; /* a timer is due now (or none is armed): the vCPU thread runs it */
    }
    cycles = rtoslab_clock_round(ns);
    seqlock_write_lock(&timers_state.vm_clock_seqlock, &timers_state.vm_clock_lock);
    qatomic_set_i64(&lab_idle, lab_idle + cycles);
    lab_idle_pending += cycles;
    seqlock_write_unlock(&timers_state.vm_clock_seqlock, &timers_state.vm_clock_lock);
}

void rtoslab_clock_prepare(CPUState *cpu)
{
    if (rtoslab_clock_hz == 0) {
        return;
    }
    if (cpu->lab_clock == NULL) {
        /* A vCPU no plugin counter drives: a counter of its own that stays still. */
        cpu->lab_own = 0;
        cpu->lab_last = 0;
        cpu->lab_clock = &cpu->lab_own;
    }
    if (cpu->cpu_index == 0) {
        seqlock_write_lock(&timers_state.vm_clock_seqlock, &timers_state.vm_clock_lock);
        if (lab_idle_pending != 0) {
            *cpu->lab_clock += (uint64_t)lab_idle_pending;
            cpu->lab_last += (uint64_t)lab_idle_pending;
            lab_idle_pending = 0;
        }
        seqlock_write_unlock(&timers_state.vm_clock_seqlock, &timers_state.vm_clock_lock);
    }
    cpu->lab_deadline = *cpu->lab_clock + (uint64_t)cpu->icount_budget;
}

bool rtoslab_clock_slice_spent(CPUState *cpu)
{
    if (rtoslab_clock_hz == 0 || cpu->lab_clock == NULL
        || qatomic_read(cpu->lab_clock) < cpu->lab_deadline) {
        return false;
    }
    cpu->icount_budget = 0;
    cpu->neg.icount_decr.u16.low = 0;
    cpu->icount_extra = 0;
    return true;
}

void rtoslab_clock_step(CPUState *cpu, uint32_t one_insn_cflags, uint32_t tb_insns)
{
    if (rtoslab_clock_hz == 0 || cpu->lab_clock == NULL || tb_insns <= 1) {
        return;
    }
    /* QEMU's own instruction budget ended the block: QEMU shortens the next one itself. */
    if (cpu->icount_budget < (int64_t)tb_insns) {
        return;
    }
    if (qatomic_read(cpu->lab_clock) >= cpu->lab_deadline) {
        return;
    }
    cpu->cflags_next_tb = one_insn_cflags;
}
