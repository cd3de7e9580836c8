/*
 * rtoslab one-clock: under -icount, QEMU's virtual time follows a cycle counter that a
 * TCG plugin owns (one u64 per vCPU), at a fixed rate in Hz, instead of the instruction
 * count. Part of rtoslab (scripts/qemu/ in its repository); copied into QEMU's tree by
 * scripts/qemu/patch_qemu.py.
 *
 * The rule, in one paragraph: a vCPU's slice ends at the first instruction boundary where
 * its counter has reached the cycle the next timer deadline falls on. A check generated at
 * every block start, beside QEMU's own icount check, leaves the block before it runs when
 * the counter plus the block's own cycles (which the plugin reports at translation)
 * reaches that cycle; the vCPU then runs one instruction per block until the counter has
 * reached it, so an interrupt is taken after the instruction in flight at its cycle, as a
 * core takes it (an instruction that straddles the cycle completes). Virtual time in ns is
 * (cycles accounted + idle cycles) * 1e9 / hz, accounted at QEMU's icount sync points, so
 * the main loop never reads a counter that is still moving. When every vCPU sleeps
 * (icount sleep=off), the clock jumps to the next deadline as QEMU's warp does, measured
 * after every vCPU's counter is accounted (the main loop may see a vCPU halted before its
 * thread reached a sync point); the jump, in cycles, is added to vCPU 0's counter before
 * it runs again, so a probe interval across a sleep spans the sleep.
 */
#ifndef RTOSLAB_CLOCK_H
#define RTOSLAB_CLOCK_H

/* The counters' rate in Hz; 0 while no plugin has registered a counter (QEMU's own
 * instruction clock applies). */
extern uint32_t rtoslab_clock_hz;

/* The static cycles of the block being translated, as the plugin's translation callback
 * reports them (qemu_plugin_lab_tb_cycles); read and cleared when the block's check is
 * completed (translator.c). */
extern __thread uint64_t rtoslab_clock_tb_cycles;

/* Register (or move, after a scoreboard grew) `cpu`'s counter; false when refused
 * (icount off, a rate of 0 or above 4 GHz, or a rate other than the one registered). */
bool rtoslab_clock_register(CPUState *cpu, uint64_t *counter, uint64_t hz);

/* Cycles to ns (rounded down) and ns to cycles (rounded up, as icount_round does). */
int64_t rtoslab_clock_to_ns(int64_t cycles);
int64_t rtoslab_clock_round(int64_t ns);

/* Add what `cpu`'s counter advanced since the last call to the accounted cycles (called
 * where QEMU accounts executed instructions, under the vm_clock seqlock). */
void rtoslab_clock_account(CPUState *cpu);

/* The budget to the next virtual-clock deadline, in cycles. Unlike QEMU's own limit it
 * leaves out the host's realtime timers: they would end slices at host-timed points, and
 * where a slice ends decides how code is split into blocks, which the one clock's
 * placement of an interrupt must not depend on. */
int64_t rtoslab_clock_limit(void);

/* Accounted cycles plus idle cycles, in ns (without QEMU's icount bias). */
int64_t rtoslab_clock_elapsed_ns(void);

/* Every vCPU sleeps: account every vCPU's counter, then advance the clock to the next
 * deadline, in whole cycles (nothing when a timer is already due). QEMU calls this from
 * its main loop, which may find a vCPU halted (WFI) before that vCPU's own thread has
 * accounted the cycles it ran up to its WFI: the deadline measured from the unaccounted
 * clock would be too far, and the clock would jump past it by a host-timed amount. */
void rtoslab_clock_warp(void);

/* Before a slice: move pending idle cycles into vCPU 0's counter and set the cycle at
 * which the slice ends (the counter now + the slice's budget, which icount computed in
 * cycles). */
void rtoslab_clock_prepare(CPUState *cpu);

/* After a block exit requested by the budget checks: true (and the slice's budget
 * emptied, so the vCPU returns to the timers) when the cycle budget is spent. */
bool rtoslab_clock_slice_spent(CPUState *cpu);

/* After the budget was refilled for a block of `tb_insns` instructions that the cycle
 * check left before it ran (the deadline falls inside it): run the next block as one
 * instruction, `one_insn_cflags`, so the vCPU steps to the deadline's instruction. */
void rtoslab_clock_step(CPUState *cpu, uint32_t one_insn_cflags, uint32_t tb_insns);

#endif
