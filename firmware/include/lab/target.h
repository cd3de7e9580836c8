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
volatile uint32_t *lab_target_output_reg(void);

/* Bulk data: a static object declared with LAB_TARGET_BULK (or placed in an input section
 * named .bss.lab_bulk*) goes to a large memory of the board that is not the
 * microcontroller's RAM, e.g. for a simulated flash chip (mps2-an385: PSRAM above the
 * probe region). Footprints do not count it as RAM. It is not cleared at reset: the code
 * initialises it. A target without such memory may leave it in .bss. */
#define LAB_TARGET_BULK __attribute__((section(".bss.lab_bulk")))

#endif /* LAB_TARGET_H */
