/*
 * lab/target.h - the target (board) API. Implemented once per folder under
 * firmware/targets/. Targets include no kernel header; kernels reach the hardware only
 * through these functions and through the CMSIS-style exception names below.
 *
 * Dependencies run one way: the harness, ports and benchmarks call the target through this
 * header; a target calls the harness only through lab/fault.h (fault reports) and
 * lab/exit.h (status codes), and includes no kernel header.
 *
 * Exception entry points. The target's vector table calls these names; each is a weak
 * default (a fault report) unless something else defines it. A kernel port connects its
 * own handlers by defining these symbols (e.g. in its config header by renaming), never by
 * touching the vector table:
 *     void SVC_Handler(void); void PendSV_Handler(void); void SysTick_Handler(void);
 */
#ifndef LAB_TARGET_H
#define LAB_TARGET_H

#include <stdint.h>

typedef void (*lab_irq_handler_t)(void);

/* The width of the board's output register (lab_target_output_reg): a 32-bit register on
 * the Cortex-M boards, an 8-bit I/O port on AVR (one byte store, as a pin write there is). */
#if defined(__AVR__)
typedef uint8_t lab_output_t;
#else
typedef uint32_t lab_output_t;
#endif

/* Bring up the board: relocated vector table, console. Called once by the harness before
 * anything else. Does not enable interrupts. */
void lab_target_init(void);

/* Write `len` bytes to the console. Blocks until queued. Never call on a measured path. */
void lab_target_console_write(const char *buf, uint32_t len);

/* Stop the machine and hand `status` (one of lab/exit.h's LAB_EXIT_*, chosen by the
 * harness) to the host as the process exit code. Never returns. */
__attribute__((noreturn)) void lab_target_exit(int status);

/* Number of device interrupt lines (IRQ 0 .. n-1) usable with the functions below. */
uint32_t lab_target_irq_count(void);

/* Install `handler` for device interrupt `irq` in the RAM vector table and enable it in
 * the NVIC at `priority` (0 = most urgent; only the top implemented bits count). Returns 0,
 * or -1 if irq is out of range. Must not be called with that IRQ pending or active.
 * The macro below also lists `handler` with LAB_ISR_HERE, so `handler` must be a function
 * name; to install a handler held in a variable call (lab_target_irq_install)(...) and
 * list every function it can be with LAB_ISR. */
int lab_target_irq_install(uint32_t irq, lab_irq_handler_t handler, uint32_t priority);
#define lab_target_irq_install(irq, handler, priority)                                      \
    (__extension__({                                                                        \
        LAB_ISR_HERE(handler);                                                              \
        (lab_target_irq_install)((irq), (handler), (priority));                             \
    }))

/* Exception handlers installed at run time, for the emulator's timing model
 * (docs/timing-model.md): the host reads the vector table and the addresses listed in the
 * ELF section .lab_isr, which is not loaded (no code, flash or RAM), to recognise handler
 * entries, returns and tail-chains. LAB_ISR(fn) lists function `fn`, at file scope;
 * LAB_ISR_HERE(fn) does the same inside a function. Handlers in the vector table and
 * those given to lab_target_irq_install() need neither. */
#define LAB_ISR(fn)                                                                         \
    __attribute__((section(".lab_isr"), used, aligned(4))) static const lab_irq_handler_t    \
        lab_isr_rec_##fn = (fn)
#define LAB_ISR_HERE(fn)                                                                    \
    do {                                                                                    \
        __attribute__((section(".lab_isr"), used, aligned(4))) static const lab_irq_handler_t \
            lab_isr_rec_ = (fn);                                                            \
    } while (0)

/* Make device interrupt `irq` pending from software (NVIC STIR). Returns without waiting:
 * the handler runs as soon as priorities allow, which is before the next instruction when
 * the caller runs at lower priority with interrupts enabled. */
void lab_target_irq_trigger(uint32_t irq);

/* Disable `irq` in the NVIC and restore the default handler. */
void lab_target_irq_remove(uint32_t irq);

/* Bounds of the main (MSP) stack: [*lo, *hi), addresses, lo < hi. Used by the harness to
 * paint it and measure its high-water mark. Never fails. */
void lab_target_main_stack(uintptr_t *lo, uintptr_t *hi);

/* Device interrupt lines that no device of the board drives, free for benchmarks that
 * raise them with lab_target_irq_trigger() only: n = 0 .. 3 gives four distinct lines. */
uint32_t lab_target_irq_soft(uint32_t n);

/* A periodic hardware timer interrupt, for events at times unrelated to the code they
 * interrupt (interrupt latency under load). Starts the target's benchmark timer so that
 * `handler` runs every `period` cycles of the target clock (lab_target_clock_hz()), the
 * first time `period` cycles from now, at NVIC `priority`. The target's own handler
 * acknowledges the timer, then calls `handler`. Returns 0, or -1 if period is 0 or too
 * large for the timer. The timer's interrupt line is the target's: not one of
 * lab_target_irq_soft(). */
int lab_target_timer_start(uint32_t period, lab_irq_handler_t handler, uint32_t priority);

/* Stop the benchmark timer; no further handler call starts after this returns. */
void lab_target_timer_stop(void);

/* Core clock in Hz as configured for this target (the timing model's clock). */
uint32_t lab_target_clock_hz(void);

/* A real output register of the board (LEDs or GPIO data out) that benchmarks may write
 * freely: the "pin" of a pin-toggling workload. Bit 0 drives one output; writing 0 and 1
 * alternately toggles it. Every store is a device access (the pointer is volatile, so the
 * compiler keeps each one, and the emulator executes it as I/O); reading returns the
 * outputs as last written (only the implemented bits). Nothing else on the board uses it.
 * Never NULL. */
volatile lab_output_t *lab_target_output_reg(void);

/* ------------------------------------------------------------------ cores (multi-core boards)
 * LAB_TARGET_CORES (a C macro from target.toml `cores`, default 1) is the number of
 * processor cores of the board. Core 0 boots, runs lab_target_init() and the harness;
 * every other core stays stopped until lab_target_core_start(). All cores share memory
 * and the RAM vector table (the handlers lab_target_irq_install() puts there serve every
 * core); each core has its own NVIC (enables, pending bits, priorities), its own SysTick
 * and its own PRIMASK/BASEPRI: lab_target_irq_install(), lab_target_irq_trigger() and
 * lab_target_irq_remove() act on the calling core's NVIC only. */

/* The calling core's index, 0 .. LAB_TARGET_CORES - 1. ISR-safe, never blocks. On a
 * single-core target it is the constant 0; on a multi-core board it reads the board's
 * core-identity register (a device load: its cost is part of any path that calls it). */
uint32_t lab_target_core_id(void);

/* Release core `core` (1 .. LAB_TARGET_CORES - 1) from reset: it runs entry(arg) in
 * Thread mode, privileged, on the main stack whose top (highest address, exclusive,
 * 8-byte aligned) is `stack_top`, with the RAM vector table and PRIMASK set (interrupts
 * disabled: entry enables them when it is ready). entry must never return. Call from
 * core 0 after lab_target_init(). Returns 0 once the core has been released (it does not
 * wait for the core to reach entry), or -1 if `core` is out of range, already started, or
 * the target has one core. The stack is the caller's (it is not painted or measured). */
int lab_target_core_start(uint32_t core, void (*entry)(void *arg), void *arg,
                          uint32_t *stack_top);

/* The inter-core doorbell: an interrupt that any core raises on any core (also itself).
 * lab_target_doorbell_install(handler, priority) installs `handler` for the CALLING
 * core's doorbell line and enables that line in its NVIC at `priority` (raw NVIC value,
 * as lab_target_irq_install). The target's own handler acknowledges the doorbell first,
 * then calls `handler`: a ring that arrives while `handler` runs pends the line again, so
 * no ring is lost, but rings are not counted (several rings before the handler runs give
 * one call). Returns 0, or -1 if the target has one core. The doorbell line is not one of
 * lab_target_irq_soft(). */
int lab_target_doorbell_install(lab_irq_handler_t handler, uint32_t priority);

/* Make the doorbell pending on `core` (0 .. LAB_TARGET_CORES - 1). ISR-safe; returns
 * without waiting for the handler (one device store; the receiving core takes the
 * interrupt as soon as its priorities allow). No effect if `core` is out of range. */
void lab_target_doorbell_ring(uint32_t core);

/* The kernel tick for ports that program no timer themselves (ports hold no SysTick
 * code): starts the CALLING core's SysTick so that SysTick_Handler (a kernel port defines
 * it) runs every lab_target_clock_hz() / hz cycles of the core clock, the first time one
 * period from now, with SysTick and PendSV at the least urgent exception priority. Call
 * with interrupts disabled; they stay disabled. Returns 0, or -1 if hz is 0 or the period
 * does not fit the 24-bit SysTick reload. */
int lab_target_tick_start(uint32_t hz);

/* Bulk data: a static object declared with LAB_TARGET_BULK (or placed in an input section
 * named .bss.lab_bulk*) goes to a large memory of the board that is not the
 * microcontroller's RAM, e.g. for a simulated flash chip (mps2-an385: PSRAM above the
 * probe region). Footprints do not count it as RAM. It is not cleared at reset: the code
 * initialises it. A target without such memory may leave it in .bss. */
#define LAB_TARGET_BULK __attribute__((section(".bss.lab_bulk")))

#endif /* LAB_TARGET_H */
