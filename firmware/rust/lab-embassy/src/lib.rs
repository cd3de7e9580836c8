//! rtoslab's embassy model (docs/rust-models.md): what every embassy benchmark shares.
//!
//! * `run_thread_executor(init)`: the thread-mode executor (embassy-executor 0.10
//!   `executor-thread` on `platform-cortex-m`: polls ready tasks in thread mode, waits with
//!   WFE when none is ready). Never returns; a task ends the run with `lab::finish()`.
//! * `start_interrupt_executor(exec, n, level)`: an `InterruptExecutor` in free device
//!   interrupt line `lab::irq_soft(n)` at NVIC priority level `level` (counted from the
//!   least urgent, so any level > 0 preempts thread mode and lower levels): its tasks
//!   preempt the thread executor's, the model's only preemption.
//!
//! The C target keeps the vector table and startup: the interrupt executor's handler is
//! installed at run time with lab_target_irq_install (and listed for the timing model in
//! `.lab_isr` by the benchmark with `lab::isr!`).
#![no_std]

use core::mem::MaybeUninit;
use embassy_executor::{Executor, InterruptExecutor, SendSpawner, Spawner};

/// A device interrupt line number for cortex-m's NVIC API.
#[derive(Clone, Copy)]
pub struct IrqLine(pub u16);

// SAFETY: the number is a device interrupt line of the target (lab_target_irq_soft).
unsafe impl cortex_m::interrupt::InterruptNumber for IrqLine {
    fn number(self) -> u16 {
        self.0
    }
}

static mut THREAD_EXECUTOR: MaybeUninit<Executor> = MaybeUninit::uninit();

/// Run the thread executor with the tasks `init` spawns. Never returns. Call once.
pub fn run_thread_executor(init: impl FnOnce(Spawner)) -> ! {
    // SAFETY: called once, from lab_bench_run; the executor lives for the rest of the run.
    let exec: &'static mut Executor = unsafe {
        let slot = &mut *core::ptr::addr_of_mut!(THREAD_EXECUTOR);
        slot.write(Executor::new())
    };
    // Interrupts are enabled by the harness? No: the harness leaves them as the target set
    // them; the executors need them on.
    // SAFETY: enabling interrupts once everything is set up.
    unsafe { cortex_m::interrupt::enable() };
    exec.run(init)
}

/// Start `exec` in free interrupt line `lab::irq_soft(n)` at priority `level` (from the
/// least urgent: 1 and up preempt thread mode) with `handler` as its interrupt handler
/// (which must call `exec.on_interrupt()`). Returns its spawner.
pub fn start_interrupt_executor(
    exec: &'static InterruptExecutor,
    n: u32,
    level: u8,
    handler: lab::IrqHandler,
) -> SendSpawner {
    let irq = lab::irq_soft(n);
    lab::irq_install(irq, handler, lab::nvic_prio_from_least_urgent(level));
    exec.start(IrqLine(irq as u16))
}

/// An interrupt executor's static and its interrupt handler, written once. At item level
/// in the benchmark crate, `lab_embassy::interrupt_executor!(HIGH_EXEC, high_irq);`
/// defines `static HIGH_EXEC: InterruptExecutor` and `unsafe extern "C" fn high_irq()`,
/// which polls it (`on_interrupt`) and is listed for the timing model (`lab::isr!`);
/// start it with [`start_interrupt_executor`]`(&HIGH_EXEC, n, level, high_irq)`.
/// Expanded in the calling crate, so the handler is the benchmark's own code.
#[macro_export]
macro_rules! interrupt_executor {
    ($exec:ident, $handler:ident) => {
        static $exec: $crate::__executor::InterruptExecutor =
            $crate::__executor::InterruptExecutor::new();

        unsafe extern "C" fn $handler() {
            // SAFETY: the executor's own interrupt, started by start_interrupt_executor.
            unsafe { $exec.on_interrupt() }
        }

        #[allow(non_snake_case)]
        mod $handler {
            $crate::__lab::isr!(LAB_ISR, super::$handler);
        }
    };
}

#[doc(hidden)]
pub use embassy_executor as __executor;
#[doc(hidden)]
pub use lab as __lab;
