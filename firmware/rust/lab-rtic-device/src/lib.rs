//! The device crate that RTIC 2's `#[rtic::app(device = ...)]` needs, written by hand for
//! rtoslab's targets (docs/rust-models.md): `NVIC_PRIO_BITS` (target.toml nvic_prio_bits,
//! through the lab crate) and an `Interrupt` enum naming device interrupt lines IRQ0..IRQ31
//! by number. There are no peripherals (apps use `peripherals = false`): the C target owns
//! the board. RTIC names each dispatcher's and hardware task's handler after its variant;
//! the C target's vector table is in RAM, so `install` puts a handler there at run time.
#![no_std]

/// Implemented NVIC priority bits of the target.
pub const NVIC_PRIO_BITS: u8 = lab::NVIC_PRIO_BITS;

/// Device interrupt lines by number (the target decides what drives each).
#[allow(non_camel_case_types, clippy::upper_case_acronyms)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u16)]
pub enum Interrupt {
    IRQ0 = 0,
    IRQ1 = 1,
    IRQ2 = 2,
    IRQ3 = 3,
    IRQ4 = 4,
    IRQ5 = 5,
    IRQ6 = 6,
    IRQ7 = 7,
    IRQ8 = 8,
    IRQ9 = 9,
    IRQ10 = 10,
    IRQ11 = 11,
    IRQ12 = 12,
    IRQ13 = 13,
    IRQ14 = 14,
    IRQ15 = 15,
    IRQ16 = 16,
    IRQ17 = 17,
    IRQ18 = 18,
    IRQ19 = 19,
    IRQ20 = 20,
    IRQ21 = 21,
    IRQ22 = 22,
    IRQ23 = 23,
    IRQ24 = 24,
    IRQ25 = 25,
    IRQ26 = 26,
    IRQ27 = 27,
    IRQ28 = 28,
    IRQ29 = 29,
    IRQ30 = 30,
    IRQ31 = 31,
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
    lab::check!((0..4).any(|n| lab::irq_soft(n) == irq as u32));
    lab::irq_install(irq as u32, handler, lab::nvic_prio_from_least_urgent(prio - 1));
}

/// The variant for device interrupt line `n` (0..31).
pub fn line(n: u32) -> Interrupt {
    lab::check!(n < 32);
    // SAFETY: Interrupt is repr(u16) with every value 0..31.
    unsafe { core::mem::transmute::<u16, Interrupt>(n as u16) }
}
