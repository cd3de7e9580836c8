//! Cycle cost models: the interface between the instrumentation and a timing model.
//!
//! A model has three parts, matching the three places the plugin can charge cycles:
//!
//! * **static**: `block_costs`, the cost of each instruction of a block whenever it
//!   executes, computed once at translation time (it may look at neighbouring
//!   instructions of the same block, e.g. for load pipelining) and charged by the QEMU
//!   inline adds that also count instructions (see `instrument.rs`): free at run time. Where a
//!   block continues straight on from the previous one (QEMU ends blocks at places the
//!   processor does not see), the model also returns opaque boundary contexts, so that
//!   the `Event::Next` charge can correct the first instruction for its real
//!   predecessor: the cycle count never depends on where QEMU cut the blocks.
//! * **dynamic, per block entry**: `event_charge`, charged when control enters a block.
//!   `flow::Tracker` works out what the entry means (taken branch, exception entry,
//!   exception return, tail-chain: an [`Event`]) from how the previous block ended; the
//!   model prices it. One callback per executed block, registered only when
//!   `is_dynamic()`.
//! * **dynamic, per data access**: `data_ws`, wait states of one data access by address
//!   (the memory region it falls in), charged from memory callbacks: on every store (which
//!   has a callback for the probe anyway) and on the loads `data_ws_callback` selects.
//!   Only used when `has_data_ws()`.
//!
//! `ZeroModel` (core `none`) costs nothing: the header says the cycle column is not
//! modelled (flag bit 0 clear) and no callback is registered for it. The Cortex-M models
//! are in `timing.rs`.

use crate::decoded::DecodedInsn;
use crate::flow::{Event, TbShape};

/// Cycles charged at a block entry (`CostModel::event_charge`), with whom they belong to:
/// a probe store's value is the cycles completed *before* it, so charges that belong to
/// the store itself or to a later instruction must not count in it.
///
/// Packed in one word, as it is returned and stored at every block entry (a struct
/// returned through memory cost a store-forwarding stall per block).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Charge(u64);

impl Charge {
    /// `before`: cycles before the block's first instruction (a refill, an exception entry
    /// or return); `head`: cycles that belong to the first instruction (its neighbour
    /// rules and fetch stall after a cut; negative for a pipelined load); `later`: cycles
    /// that belong to instruction `later_idx` (1 or 2: its fetch stall after a cut).
    pub fn new(before: u32, head: i32, later: i32, later_idx: u32) -> Charge {
        debug_assert!(before < 1 << 24 && later_idx < 256);
        debug_assert!(i16::try_from(head).is_ok() && i16::try_from(later).is_ok());
        Charge(
            u64::from(before & 0xFF_FFFF)
                | (u64::from(later_idx & 0xFF) << 24)
                | (u64::from(head as i16 as u16) << 32)
                | (u64::from(later as i16 as u16) << 48),
        )
    }

    /// Only cycles before the block.
    pub fn before_block(c: u32) -> Charge {
        Charge::new(c, 0, 0, 0)
    }

    pub fn before(&self) -> u32 {
        (self.0 & 0xFF_FFFF) as u32
    }

    pub fn head(&self) -> i32 {
        i32::from((self.0 >> 32) as u16 as i16)
    }

    pub fn later(&self) -> i32 {
        i32::from((self.0 >> 48) as u16 as i16)
    }

    pub fn later_idx(&self) -> u32 {
        ((self.0 >> 24) & 0xFF) as u32
    }

    /// Everything, added to the cycle counter at block entry (wrapping: a negative total
    /// is added as two's complement).
    pub fn total(&self) -> u64 {
        (i64::from(self.before()) + i64::from(self.head()) + i64::from(self.later())) as u64
    }

    /// The part that belongs to instruction `idx` of the block or later ones: what a
    /// probe store at `idx` must not count (two's complement when negative).
    pub fn from_insn(&self, idx: usize) -> u64 {
        let mut c = 0i64;
        if idx == 0 {
            c += i64::from(self.head());
        }
        if idx <= self.later_idx() as usize {
            c += i64::from(self.later());
        }
        c as u64
    }
}

/// Static costs of one block (see `CostModel::block_costs`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockCosts {
    /// Cycles of each instruction.
    pub cycles: Vec<u32>,
    /// Each instruction as a predecessor (model-defined; carried by `Event::Next`).
    pub tail_ctx: Vec<u64>,
    /// The first instruction as a successor (model-defined).
    pub head_ctx: u64,
}

pub trait CostModel: Send + Sync + 'static {
    /// Short name (for messages).
    fn name(&self) -> &'static str;

    /// Whether the trace's cycle column carries modelled values (header flag bit 0).
    fn models_cycles(&self) -> bool;

    /// Static cycles of each instruction of a block, in order (same length as `insns`),
    /// with the boundary contexts for `Event::Next`.
    fn block_costs(&self, insns: &[DecodedInsn]) -> BlockCosts;

    /// For a block whose first instruction is `first`: the cycles a taken branch into it
    /// costs on top of the model's refill (alignment, fetch wait states), and the fetch
    /// wait states an exception entry or return into it costs.
    fn head_cycles(&self, first: &DecodedInsn) -> (u32, u32) {
        let _ = first;
        (0, 0)
    }

    /// Whether `event_charge` is used (needs a callback at every block entry).
    fn is_dynamic(&self) -> bool {
        false
    }

    /// Cycles charged when block `next` is entered and the entry means `ev`.
    fn event_charge(&self, ev: Event, next: &TbShape) -> Charge {
        let _ = (ev, next);
        Charge::default()
    }

    /// All the cycles of `event_charge`.
    fn event_cycles(&self, ev: Event, next: &TbShape) -> u64 {
        self.event_charge(ev, next).total()
    }

    /// Whether data accesses cost wait states that depend on their address.
    fn has_data_ws(&self) -> bool {
        false
    }

    /// Whether the non-store memory instruction `insn` needs a memory callback for its
    /// data wait states (false when they are static, e.g. a literal load).
    fn data_ws_callback(&self, insn: &DecodedInsn) -> bool {
        let _ = insn;
        false
    }

    /// Wait states of one data access at `vaddr`.
    fn data_ws(&self, vaddr: u64) -> u64 {
        let _ = vaddr;
        0
    }
}

/// No timing model: every cost is 0 and the cycle column is reported as not modelled.
#[derive(Clone, Copy, Debug, Default)]
pub struct ZeroModel;

impl CostModel for ZeroModel {
    fn name(&self) -> &'static str {
        "none"
    }
    fn models_cycles(&self) -> bool {
        false
    }
    fn block_costs(&self, insns: &[DecodedInsn]) -> BlockCosts {
        BlockCosts {
            cycles: vec![0; insns.len()],
            tail_ctx: vec![0; insns.len()],
            head_ctx: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_model_is_zero_and_static() {
        let m = ZeroModel;
        assert!(!m.models_cycles());
        assert!(!m.is_dynamic());
        assert!(!m.has_data_ws());
        let b = [
            DecodedInsn::new(0, 0x6000, 0),
            DecodedInsn::new(2, 0xe7fe, 0),
        ];
        assert_eq!(m.block_costs(&b).cycles, vec![0, 0]);
        assert_eq!(m.head_cycles(&b[0]), (0, 0));
        let shape = TbShape::new(&b, &[], m.head_cycles(&b[0]), vec![0; 2], 0);
        assert_eq!(m.event_cycles(Event::Entry, &shape), 0);
        assert!(!m.data_ws_callback(&b[0]));
    }

    #[test]
    fn charge_attribution() {
        let c = Charge::new(10, -1, 2, 2); // head -1: a pipelined load
        assert_eq!(
            (c.before(), c.head(), c.later(), c.later_idx()),
            (10, -1, 2, 2)
        );
        assert_eq!(c.total(), 11);
        assert_eq!(c.from_insn(0), 1, "head and later");
        let neg = Charge::new(0, -1, 0, 1);
        assert_eq!(
            10u64.wrapping_add(neg.total()),
            9,
            "a negative charge wraps back"
        );
        assert_eq!(neg.from_insn(0), u64::MAX);
        assert_eq!(c.from_insn(1), 2);
        assert_eq!(c.from_insn(2), 2, "the later instruction's own stall");
        assert_eq!(c.from_insn(3), 0);
        let none = Charge::before_block(5);
        assert_eq!(
            none.from_insn(0),
            0,
            "later_idx 0 with later 0 adds nothing"
        );
    }
}
