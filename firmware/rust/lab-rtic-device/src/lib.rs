//! The device crate that RTIC 2's `#[rtic::app(device = ...)]` needs, written by hand for
//! rtoslab's targets (docs/rust-models.md): `NVIC_PRIO_BITS` (target.toml nvic_prio_bits,
//! through the lab crate) and an `Interrupt` enum naming the target's four free device
//! interrupt lines FREE0..FREE3 (lab_target_irq_soft 3..0; their numbers from target.toml
//! irq_soft_top). There are no peripherals (apps use `peripherals = false`): the C target owns
//! the board. RTIC names each dispatcher's and hardware task's handler after its variant;
//! the C target's vector table is in RAM, so `install` puts a handler there at run time.
#![no_std]

/// Implemented NVIC priority bits of the target.
pub const NVIC_PRIO_BITS: u8 = lab::NVIC_PRIO_BITS;

/// The target's four free device interrupt lines (lab_target_irq_soft 0..3), the only
/// lines an app may bind or use as dispatchers, in ascending line order: `FREEn` is line
/// `lab::IRQ_SOFT_TOP - 3 + n`, so FREE3 is lab_target_irq_soft(0), FREE0 is
/// lab_target_irq_soft(3). The numbers are compile-time constants, since RTIC's thumbv6
/// backend (source masking) builds its interrupt masks from `Interrupt::X as u32` in const
/// context. (Names that sort as the lines do keep the handlers' order in the image, which
/// follows their names, as it was with IRQ28..IRQ31 on mps2-an385.)
#[allow(non_camel_case_types, clippy::upper_case_acronyms)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u16)]
pub enum Interrupt {
    FREE0 = lab::IRQ_SOFT_TOP as u16 - 3,
    FREE1 = lab::IRQ_SOFT_TOP as u16 - 2,
    FREE2 = lab::IRQ_SOFT_TOP as u16 - 1,
    FREE3 = lab::IRQ_SOFT_TOP as u16,
}

/// RTIC's codegen names handlers through `device::interrupt::<VARIANT>` (as PACs re-export).
pub use self::Interrupt as interrupt;

// SAFETY: each variant is the device interrupt line of its number.
unsafe impl cortex_m::interrupt::InterruptNumber for Interrupt {
    fn number(self) -> u16 {
        self as u16
    }
}

/// Install `handler` (an RTIC dispatcher or hardware-task handler) for `irq` at RTIC
/// priority `prio` (1 = least urgent, the value RTIC itself programs into the NVIC:
/// `(2^NVIC_PRIO_BITS - prio) << (8 - NVIC_PRIO_BITS)`). Call in `init`, before the
/// interrupt can be pended. `irq` must be one of the target's free lines
/// (lab_target_irq_soft 0..3): the run fails otherwise, rather than take a device's line.
pub fn install(irq: Interrupt, handler: lab::IrqHandler, prio: u8) {
    lab::check!(prio >= 1);
    // The build's IRQ_SOFT_TOP (target.toml irq_soft_top) must be the C target's.
    lab::check!((0..4).any(|n| lab::irq_soft(n) == irq as u32));
    lab::irq_install(
        irq as u32,
        handler,
        lab::nvic_prio_from_least_urgent(prio - 1),
    );
}

/// The glue around every RTIC benchmark app, written once. At item level in the benchmark
/// crate, `lab_rtic_device::bench_glue!(FREE3 => 1, FREE2 => 2);` (each free line the app
/// uses, as a dispatcher or bound to a hardware task, with its RTIC priority) declares:
///
/// * `mod handlers`: RTIC's handler of each line (RTIC defines it `#[no_mangle]` by the
///   variant's name, as for a PAC's vector table), listed for the timing model
///   (`lab::isr!`), and `handlers::install()`, which installs every one at its priority
///   with [`install`]; the app's `init` calls it before it spawns anything;
/// * the benchmark's entry point `lab_bench_run` (lab/bench.h): RTIC's generated `main`,
///   renamed `lab_rust_main` by the build (the C harness owns `main`), called once with
///   interrupts as the harness left them; it never returns.
#[macro_export]
macro_rules! bench_glue {
    ($($line:ident => $prio:expr),+ $(,)?) => {
        /// RTIC's dispatcher and hardware-task handlers, installed by `install()` in init
        /// and listed for the timing model.
        mod handlers {
            extern "C" {
                $(pub fn $line();)+
            }
            $(
                #[allow(non_snake_case)]
                mod $line {
                    $crate::__lab::isr!(LAB_ISR, super::$line);
                }
            )+
            /// Install every handler at its RTIC priority (call in init, first).
            pub fn install() {
                $($crate::install($crate::Interrupt::$line, $line, $prio);)+
            }
        }

        /// The benchmark's entry point (lab/bench.h): RTIC's generated `main`; never returns.
        #[no_mangle]
        pub extern "C" fn lab_bench_run() {
            extern "C" {
                fn lab_rust_main() -> !;
            }
            // SAFETY: RTIC's main, called once.
            unsafe { lab_rust_main() }
        }
    };
}

#[doc(hidden)]
pub use lab as __lab;
