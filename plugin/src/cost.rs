//! Cycle cost models.
//!
//! A model has two parts, matching the two places the plugin can charge cycles:
//!
//! * **static**: `insn_cycles`, the cost of one instruction whenever it executes. It is
//!   computed once per instruction at translation time and charged with QEMU inline
//!   adds (no callback), together with the instruction count (see `plan.rs`).
//! * **dynamic**: `transition_cycles`, charged when control enters a translation block,
//!   knowing how the previous block ended (`TbExit`: its last instruction, its
//!   fall-through address, whether it ran to the end). Comparing the new block's start
//!   with the previous fall-through tells a taken branch from a not-taken one, so a
//!   taken-branch pipeline refill (or an exception entry, when the previous block did
//!   not end in a branch at all) is charged here. This costs one callback per executed
//!   block, so it is only registered when `is_dynamic()` says the model uses it.
//!
//! `ZeroModel` is the model in use today: every cost is 0, the header says the cycle
//! column is not modelled (flag bit 0 clear), and no per-block callback is registered.

use crate::thumb::Insn;

/// How the previously executed translation block ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TbExit {
    /// Address of the block's last instruction.
    pub last_pc: u64,
    /// The block's last instruction.
    pub last: Insn,
    /// Address just after the last instruction.
    pub fallthrough: u64,
    /// Whether every instruction of the block ran. False when the block was left early
    /// (QEMU re-executes an I/O access in its own block under icount and then resumes
    /// with a new block at the next instruction: that resumption is not a branch).
    pub completed: bool,
}

impl TbExit {
    /// Did control reach `next_pc` some other way than falling through?
    pub fn redirected(&self, next_pc: u64) -> bool {
        self.completed && next_pc != self.fallthrough
    }
}

pub trait CostModel: Send + Sync + 'static {
    /// Short name (for messages).
    fn name(&self) -> &'static str;

    /// Whether the trace's cycle column carries modelled values (header flag bit 0).
    fn models_cycles(&self) -> bool;

    /// Cycles of `insn` at `pc` each time it executes (the static part).
    fn insn_cycles(&self, insn: &Insn, pc: u64) -> u32;

    /// Whether `transition_cycles` is used. If false no per-block callback is needed
    /// for the model.
    fn is_dynamic(&self) -> bool {
        false
    }

    /// Extra cycles charged when a block starting at `next_pc` is entered right after
    /// the block described by `prev` (the dynamic part).
    fn transition_cycles(&self, prev: &TbExit, next_pc: u64) -> u64 {
        let _ = (prev, next_pc);
        0
    }
}

/// No timing model: every cost is 0 and the cycle column is reported as not modelled.
#[derive(Clone, Copy, Debug, Default)]
pub struct ZeroModel;

impl CostModel for ZeroModel {
    fn name(&self) -> &'static str {
        "zero"
    }
    fn models_cycles(&self) -> bool {
        false
    }
    fn insn_cycles(&self, _insn: &Insn, _pc: u64) -> u32 {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::thumb::decode;

    #[test]
    fn zero_model_is_zero_and_static() {
        let m = ZeroModel;
        assert!(!m.models_cycles());
        assert!(!m.is_dynamic());
        assert_eq!(m.insn_cycles(&decode(0x6000, 0), 0), 0);
        let exit = TbExit {
            last_pc: 0,
            last: decode(0xe7fe, 0),
            fallthrough: 2,
            completed: true,
        };
        assert_eq!(m.transition_cycles(&exit, 0), 0);
    }

    #[test]
    fn redirected() {
        let exit = TbExit {
            last_pc: 0x10,
            last: decode(0xd1fc, 0),
            fallthrough: 0x12,
            completed: true,
        };
        assert!(exit.redirected(0x0c));
        assert!(!exit.redirected(0x12));
        let partial = TbExit {
            completed: false,
            ..exit
        };
        assert!(!partial.redirected(0x0c));
    }
}
