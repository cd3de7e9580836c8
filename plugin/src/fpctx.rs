//! Floating-point context on exception entry and return (cores with a priced FPU): the
//! extended frame and lazy state preservation, as a state machine over the block-entry
//! events `flow` infers and the machine state the runtime reads at those events only.
//!
//! The architecture (ARMv7-M ARM B1.5.7 "Context state stacking on exception entry",
//! B1.5.8 "Exception return behavior"; ARM Application Note 298, DAI0298A "Cortex-M4(F)
//! Lazy Stacking and Context Switching"):
//!
//! * an exception taken while the FP context is active (CONTROL.FPCA = 1) pushes an
//!   extended frame: 26 words instead of 8; EXC_RETURN bit 4 is then 0;
//! * with FPCCR.LSPEN = 1 (the reset value) the 17 FP words (S0-S15, FPSCR) are only
//!   reserved: FPCCR.LSPACT is set and FPCAR points at the space. The first FP
//!   instruction executed while LSPACT = 1 stores them (and clears LSPACT);
//! * with LSPEN = 0 they are stored on entry;
//! * an exception return to an extended frame restores the 17 words if they were stored;
//!   if LSPACT is still 1 nothing was stored, and nothing is restored (LSPACT is cleared).
//!
//! Pricing (docs/timing-model.md, "FP context"): each of the 17 words stored or loaded
//! costs one cycle (`FpuTable::context_words`), the rate of the basic frame's stacking.

/// What the runtime read at a handler's first block (an `Entry` event).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryState {
    /// EXC_RETURN (LR at the handler's first instruction), bit 4 clear = extended frame.
    pub exc_return: u32,
    /// FPCCR.LSPACT after the entry (only read for an extended frame).
    pub lspact: bool,
}

impl EntryState {
    pub fn extended(&self) -> bool {
        self.exc_return & 0x10 == 0
    }
}

/// The FP-context state of the running program: the active exceptions' frame kinds and
/// whether a lazy save is pending.
#[derive(Debug, Default)]
pub struct FpContext {
    /// Per active exception (innermost last): extended frame?
    frames: Vec<bool>,
    /// A frame's FP space is reserved but not yet written (the model's LSPACT).
    pending: bool,
}

impl FpContext {
    pub fn new() -> FpContext {
        FpContext::default()
    }

    /// Exception entry (not a tail-chain): cycles beyond the core's `entry`.
    pub fn entry(&mut self, st: EntryState, words: u32) -> u32 {
        let ext = st.extended();
        self.frames.push(ext);
        if !ext {
            return 0;
        }
        if st.lspact {
            self.pending = true;
            0
        } else {
            words
        }
    }

    /// A block runs; `has_fp`: it executes a floating-point instruction. The deferred
    /// save, when one is pending.
    pub fn block(&mut self, has_fp: bool, words: u32) -> u32 {
        if has_fp && self.pending {
            self.pending = false;
            words
        } else {
            0
        }
    }

    /// Exception return (not into a tail-chain): cycles beyond the core's `ret`.
    pub fn ret(&mut self, words: u32) -> u32 {
        match self.frames.pop() {
            Some(true) if self.pending => {
                self.pending = false;
                0
            }
            Some(true) => words,
            _ => 0,
        }
    }

    /// Is a lazy save pending? (Tests and debugging.)
    pub fn pending(&self) -> bool {
        self.pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASIC: u32 = 0xFFFF_FFFD; // thread mode, PSP, basic frame
    const EXTENDED: u32 = 0xFFFF_FFED; // thread mode, PSP, extended frame
    const W: u32 = 17;

    fn st(exc_return: u32, lspact: bool) -> EntryState {
        EntryState { exc_return, lspact }
    }

    #[test]
    fn basic_frame_costs_nothing_more() {
        let mut f = FpContext::new();
        assert_eq!(f.entry(st(BASIC, false), W), 0);
        assert_eq!(
            f.block(true, W),
            0,
            "an FP handler with no FP context to save"
        );
        assert_eq!(f.ret(W), 0);
    }

    #[test]
    fn lazy_frame_unused_costs_nothing_more() {
        let mut f = FpContext::new();
        assert_eq!(f.entry(st(EXTENDED, true), W), 0);
        assert!(f.pending());
        assert_eq!(f.block(false, W), 0);
        assert_eq!(f.ret(W), 0, "nothing was stored, nothing is restored");
        assert!(!f.pending());
    }

    #[test]
    fn lazy_frame_used_saves_once_and_restores() {
        let mut f = FpContext::new();
        assert_eq!(f.entry(st(EXTENDED, true), W), 0);
        assert_eq!(f.block(false, W), 0);
        assert_eq!(
            f.block(true, W),
            W,
            "the first FP instruction stores the context"
        );
        assert_eq!(f.block(true, W), 0, "once");
        assert_eq!(f.ret(W), W, "restored on return");
    }

    #[test]
    fn eager_frame_saves_on_entry() {
        let mut f = FpContext::new();
        assert_eq!(f.entry(st(EXTENDED, false), W), W);
        assert_eq!(f.block(true, W), 0);
        assert_eq!(f.ret(W), W);
    }

    #[test]
    fn nested_basic_frame_keeps_the_outer_lazy_save_pending() {
        let mut f = FpContext::new();
        assert_eq!(f.entry(st(EXTENDED, true), W), 0);
        // a higher-priority exception preempts the handler before it used the FPU
        assert_eq!(f.entry(st(0xFFFF_FFF1, false), W), 0);
        assert_eq!(f.ret(W), 0);
        assert!(f.pending(), "the outer frame's space is still reserved");
        assert_eq!(f.block(true, W), W);
        assert_eq!(f.ret(W), W);
        assert_eq!(f.ret(W), 0, "no frame left: nothing");
    }
}
