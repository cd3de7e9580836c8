//! Control flow between translation blocks, as seen from block entries.
//!
//! Reading registers or guest memory at every block would cost 6-7x in speed, so the
//! tracker works from what every block entry gives for free: which block ran before and
//! how many of its instructions were counted; the runtime reads the machine only where
//! that cannot decide the event (`Seen`). From the previous block's
//! last instruction (decoded at translation time) and the address of the block being
//! entered, [`Tracker::enter`] infers one [`Event`]:
//!
//! * **not taken / fall-through / resumption**: the new block starts where the previous
//!   one ended (or, for a block QEMU left early at an I/O access, at the instruction after
//!   that access);
//! * **taken branch**: the new block is the previous block's branch target, or (for an
//!   indirect branch) anywhere else. The refill kind (direct, register, loaded PC) is the
//!   cost model's business;
//! * **exception entry**: control arrived somewhere the previous block cannot explain: a
//!   block that ends without a branch (or in SVC, WFI, a fault, an I/O access that pended
//!   an interrupt) followed by a block that does not start at its fall-through; or a
//!   function return (`bx lr`, `pop {..,pc}`) followed by a block at a known exception
//!   handler entry (returns never target a function's first instruction). Handler entry
//!   addresses come from the host (`handlers=`: the vector table and the ISRs the
//!   firmware lists in `.lab_isr`);
//! * **exception return**: inside an exception, an instruction that can return from one
//!   (`bx`, `pop`/`ldm`/`ldr` loading the PC) loads an EXC_RETURN value (bits 31:28 all
//!   ones, ARMv7-M ARM B1.5.8). The machine decides this, not a guess: where it matters
//!   (such an instruction executing while an exception is active) the runtime reads the
//!   value the instruction is about to load into the PC, from the registers and memory
//!   just before it executes ([`exc_ret_source`], passed in as [`Seen::target`]). A
//!   plain value is a function return or jump; if the next block is not at that value,
//!   an interrupt was taken right after the branch. Where the value was not read (an
//!   encoding `exc_ret_source` does not cover), the tracker falls back to its call-depth
//!   count: a stack of active exceptions, each with the depth of calls made inside it
//!   (BL/BLX increment, function returns decrement), an exception return being such an
//!   instruction at depth 0, and `bx rN` (N not LR) counting only when rN holds a value
//!   copied from LR or popped from the stack (`reg_summary`);
//! * **tail-chain**: an exception return followed directly by a block at a handler entry.
//!
//! Handler entries: a block is one when its start is in `handlers=` (the host's list:
//! the image's vector table and the ISRs it lists in `.lab_isr`) or, read at run time
//! where it decides something, is the target of an entry of the live vector table (at
//! VTOR, in guest memory: [`Seen::vector`]), so a handler installed at run time and never
//! declared is still recognised.
//!
//! Limits (also in docs/timing-model.md): a handler that leaves through a path the
//! PC-value read does not cover and the depth count cannot follow (longjmp, a stack
//! switch by hand) shifts where the return is charged; late arrival and pop preemption
//! are not distinguished (they look like entry and tail-chain).

use crate::decoded::{DecodedInsn, ops};
use crate::thumb::{Class, Flow, Mem};

/// What the per-block callback needs to know about a block (kept for the block's
/// lifetime when that callback is registered).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TbShape {
    pub start: u64,
    pub n_insns: u32,
    /// Address just after the last instruction.
    pub fallthrough: u64,
    /// How control leaves the block.
    pub exit: Exit,
    /// Address of each instruction, for resuming after a block left early.
    pub pcs: Box<[u32]>,
    /// The block starts at a known exception handler entry.
    pub is_handler: bool,
    /// Extra cycles (beyond the model's refill) to refill the pipeline at this block's
    /// first instruction after a taken branch: alignment and fetch wait states.
    pub head_refill: u32,
    /// Fetch wait states of the first instruction (charged on exception entry/return).
    pub head_ws: u32,
    /// Registers the block leaves holding a value copied from LR or popped from the
    /// stack, and registers it leaves holding anything else (`flow::reg_summary`).
    pub reg_lr_like: u16,
    pub reg_other: u16,
    /// The cost model's boundary contexts: each instruction as a predecessor, the first
    /// as a successor (`CostModel::block_costs`).
    pub tail_ctx: Box<[u64]>,
    pub head_ctx: u64,
    /// The last instruction's context (`tail_ctx_after(n_insns)`), kept beside the other
    /// fields every block entry reads: the common case needs no second load through
    /// `tail_ctx`.
    pub last_ctx: u64,
    /// What a block entry after this block (run whole) means is decided by this block
    /// and the next one's address alone, and when it is `Next` or `Taken` nothing but the
    /// previous block and `lr_like` changes: no branch (`Seq`, `Wait`, `Exception`) or a
    /// PC-relative branch that is not a call (see `Tracker::enter_again`).
    pub pure_exit: bool,
}

impl TbShape {
    /// The shape of the non-empty block `insns`. `handlers`: exception handler entry
    /// addresses, sorted (bit 0 clear); `head`: the cost model's `(head_refill,
    /// head_ws)` for the first instruction (`CostModel::head_cycles`); `tail_ctx`,
    /// `head_ctx`: its boundary contexts (`CostModel::block_costs`).
    pub fn new(
        insns: &[DecodedInsn],
        handlers: &[u32],
        head: (u32, u32),
        tail_ctx: Vec<u64>,
        head_ctx: u64,
    ) -> TbShape {
        assert!(!insns.is_empty(), "empty translation block");
        let first = insns[0];
        let last = insns[insns.len() - 1];
        let start32 = (first.pc & 0xFFFF_FFFF) as u32;
        let (reg_lr_like, reg_other) = reg_summary(insns);
        let last_ctx = tail_ctx.get(insns.len() - 1).copied().unwrap_or(0);
        let exit = exit_of(insns);
        let pure_exit = match exit {
            Exit::Seq | Exit::Wait | Exit::Exception => true,
            Exit::Direct { link, .. } => !link,
            Exit::Indirect(_) => false,
        };
        TbShape {
            start: first.pc,
            n_insns: insns.len() as u32,
            fallthrough: (last.pc + u64::from(last.insn.len)) & 0xFFFF_FFFF,
            exit,
            pcs: insns.iter().map(|d| d.pc as u32).collect(),
            is_handler: handlers.binary_search(&start32).is_ok(),
            head_refill: head.0,
            head_ws: head.1,
            reg_lr_like,
            reg_other,
            tail_ctx: tail_ctx.into_boxed_slice(),
            head_ctx,
            last_ctx,
            pure_exit,
        }
    }

    /// Where execution goes on after `ran` of this block's instructions ran.
    pub fn resume_pc(&self, ran: u64) -> u64 {
        usize::try_from(ran)
            .ok()
            .and_then(|i| self.pcs.get(i))
            .map_or(self.fallthrough, |&pc| u64::from(pc))
    }

    /// The cost model's context of the last instruction that ran when `ran` of this
    /// block's instructions ran (`ran` >= 1).
    pub fn tail_ctx_after(&self, ran: u64) -> u64 {
        usize::try_from(ran)
            .ok()
            .and_then(|i| i.checked_sub(1))
            .and_then(|i| self.tail_ctx.get(i))
            .copied()
            .unwrap_or(0)
    }
}

/// Cycles of a pipeline refill differ by the pipeline stage that issues the branch target
/// (Cortex-M3 TRM r2p0, ARM DDI 0337G, 15.3 Table 15-3 "Branches and stages evaluated by
/// the processor"; the prefetch unit, 1.4: PC-relative targets are generated no later than
/// decode, and "short subroutine returns are optimized to take advantage of the forwarding
/// behavior in the case of BX LR").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refill {
    /// Target issued at decode: B, B<c>, BL (PC-relative), and BX LR, BLX LR, MOV PC, LR
    /// (LR forwarded), the last four only when the instruction before does not write LR.
    Direct,
    /// Target issued at execute: BX/BLX Rm (Rm not LR, or LR just written), MOV/ADD PC,
    /// CBZ, CBNZ.
    Register,
    /// Target loaded from memory (POP/LDM with PC, LDR PC, TBB/TBH).
    Load,
}

/// An indirect branch, classified for the exception tracker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Indirect {
    pub refill: Refill,
    /// Saves a return address (BLX): a call.
    pub link: bool,
    /// A function return (BX LR, MOV PC, LR, POP {..,PC}, LDM SP!/LDR PC, [SP]): ends a
    /// call made inside a handler.
    pub ret: bool,
    /// Can perform an exception return in Handler mode (ARMv7-M B1.5.8: BX with any
    /// register, POP/LDM loading the PC, LDR to the PC; not MOV/ADD PC, not TBB/TBH).
    pub exc_ret: bool,
    /// For `BX Rm` with Rm other than LR: Rm. It is taken for an exception return only
    /// when Rm holds a value copied from LR or popped from the stack (an EXC_RETURN can
    /// be there); a pointer loaded or computed otherwise makes it a jump (a tail call
    /// through a function pointer, e.g. `ldr r3, [r3]; bx r3`).
    pub bx_reg: Option<u8>,
    /// Inside an IT block: may not execute.
    pub cond: bool,
}

/// Where an exception-return-capable branch (the last instruction of a block) takes the
/// value it loads into the PC from, so the runtime can read it just before the branch
/// executes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetSrc {
    /// A register (BX Rm).
    Reg(u8),
    /// The word at `base + offset` (+ `index` register shifted left by `shift`, if any):
    /// POP/LDM/LDR loading the PC.
    Mem {
        base: u8,
        offset: i32,
        index: Option<(u8, u8)>,
    },
}

/// The source of the PC value of `d` if it is an exception-return-capable indirect
/// branch whose encoding is covered: BX Rm, POP {..,PC}, LDM/LDMDB {..,PC} (IA with or
/// without writeback), LDR.W PC with an immediate offset (pre-, post-indexed or plain)
/// or a register offset. None otherwise.
pub fn exc_ret_source(d: &DecodedInsn) -> Option<TargetSrc> {
    if !matches!(d.insn.flow, Flow::Indirect { link: false }) {
        return None;
    }
    let (h1, h2) = (d.hw1(), d.hw2());
    if d.insn.len == 2 {
        if h1 & 0xFF87 == 0x4700 {
            return Some(TargetSrc::Reg(((h1 >> 3) & 0xF) as u8)); // BX Rm
        }
        if h1 & 0xFF00 == 0xBD00 {
            // POP {list, PC}: the PC is the highest address, after the listed registers.
            let n = (h1 & 0xFF).count_ones() as i32;
            return Some(TargetSrc::Mem {
                base: 13,
                offset: 4 * n,
                index: None,
            });
        }
        return None;
    }
    let rn = (h1 & 0xF) as u8;
    if h1 & 0xFFD0 == 0xE890 && h2 & 0x8000 != 0 {
        // LDM(IA).W Rn{!}, {list, PC}
        let n = h2.count_ones() as i32;
        return Some(TargetSrc::Mem {
            base: rn,
            offset: 4 * (n - 1),
            index: None,
        });
    }
    if h1 & 0xFFD0 == 0xE910 && h2 & 0x8000 != 0 {
        // LDMDB Rn{!}, {list, PC}: the PC is the word just below Rn.
        return Some(TargetSrc::Mem {
            base: rn,
            offset: -4,
            index: None,
        });
    }
    if rn == 15 || h2 >> 12 != 0xF {
        return None; // literal loads and non-PC destinations
    }
    if h1 & 0xFFF0 == 0xF8D0 {
        // LDR.W PC, [Rn, #imm12]
        return Some(TargetSrc::Mem {
            base: rn,
            offset: i32::from(h2 & 0xFFF),
            index: None,
        });
    }
    if h1 & 0xFFF0 == 0xF850 {
        if h2 & 0x0800 != 0 {
            // LDR PC, [Rn, #+/-imm8]{!} or [Rn], #+/-imm8: the word at the offset
            // address when indexing first (P), else at Rn.
            let imm = i32::from(h2 & 0xFF);
            let offset = match (h2 & 0x0400 != 0, h2 & 0x0200 != 0) {
                (false, _) => 0,
                (true, true) => imm,
                (true, false) => -imm,
            };
            return Some(TargetSrc::Mem {
                base: rn,
                offset,
                index: None,
            });
        }
        if h2 & 0x0FC0 == 0 {
            // LDR.W PC, [Rn, Rm, LSL #imm2]
            return Some(TargetSrc::Mem {
                base: rn,
                offset: 0,
                index: Some(((h2 & 0xF) as u8, ((h2 >> 4) & 3) as u8)),
            });
        }
    }
    None
}

/// A value loaded into the PC in Handler mode is an exception return when its bits 31:28
/// are all ones (EXC_RETURN, ARMv7-M ARM B1.5.8; ARMv6-M B1.5.8 likewise).
pub fn is_exc_return(v: u32) -> bool {
    v >> 28 == 0xF
}

/// What the machine showed about a block entry, read only where it decides something
/// (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    /// The value the previous block's last instruction (an exception-return-capable
    /// branch) was about to load into the PC, read just before it executed; None when
    /// it was not read.
    pub target: Option<u32>,
}

/// How control leaves a block (its last instruction).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// No branch: QEMU ended the block (size or page limit, a system instruction, ...).
    Seq,
    /// PC-relative branch to `target`. `cond`: may fall through (B<c>, CBZ/CBNZ, or any
    /// branch inside an IT block). `link`: BL. `refill`: the stage that issues the target
    /// (see [`Refill`]): decode for B, B<c> and BL, execute for CBZ/CBNZ and for a BL
    /// right after an instruction that writes LR.
    Direct {
        target: u64,
        cond: bool,
        link: bool,
        refill: Refill,
    },
    Indirect(Indirect),
    /// SVC, BKPT (semihosting returns to the fall-through), UDF, undecodable encodings.
    Exception,
    /// WFI / WFE.
    Wait,
}

/// What a block entry means (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The first block: nothing ran before it.
    None,
    /// Fall-through, not-taken branch, or resumption after an I/O access: the block goes
    /// on straight after an instruction whose cost-model context is carried (the model
    /// corrects the block's first instruction for it: see `CostModel::block_costs`).
    Next(u64),
    /// A taken branch into this block.
    Taken(Refill),
    /// Exception entry: this block is the first of a handler.
    Entry,
    /// Exception return: this block is where the interrupted code resumes.
    Return,
    /// Exception return directly followed by the entry of another handler.
    TailChain,
}

/// Number of instructions an IT instruction (16-bit encoding `h`) makes conditional.
fn it_len(h: u16) -> u32 {
    4 - (h & 0xF).trailing_zeros().min(3)
}

/// Classify how a block leaves, from its decoded instructions (raw encodings included).
pub fn exit_of(insns: &[DecodedInsn]) -> Exit {
    let Some(last) = insns.last() else {
        return Exit::Seq;
    };
    // IT state within the block: is the last instruction inside an IT block?
    let mut it_left = 0u32;
    for d in &insns[..insns.len() - 1] {
        it_left = it_left.saturating_sub(1);
        if d.insn.class == Class::It {
            it_left = it_len(d.hw1());
        }
    }
    let in_it = it_left > 0;
    let insn = last.insn;
    // M3 TRM Table 15-3: BL, BLX LR, BX LR and MOV PC, LR issue their target at decode
    // "if LR is not being written during decode", i.e. by the instruction before, then in
    // execute. Only the block's own previous instruction is seen: a branch that begins its
    // block (QEMU cut the code just before it) is taken as issued at decode.
    let lr_written = insns.len() >= 2 && writes(&insns[insns.len() - 2]).0 & (1 << 14) != 0;
    match insn.flow {
        Flow::Seq => Exit::Seq,
        Flow::Wait => Exit::Wait,
        Flow::Exception => Exit::Exception,
        Flow::Direct { cond, link, .. } => Exit::Direct {
            target: insn.direct_target(last.pc).unwrap_or(0),
            cond: cond || in_it,
            link,
            // CBZ/CBNZ (1011 o0i1 iiii innn): the only PC-relative branches issued at
            // execute (Table 15-3).
            refill: if (insn.len == 2 && last.hw1() & 0xF500 == 0xB100) || (link && lr_written) {
                Refill::Register
            } else {
                Refill::Direct
            },
        },
        Flow::Indirect { link } => {
            let (h1, h2) = (last.hw1(), last.hw2());
            let mut ind = Indirect {
                refill: Refill::Register,
                link,
                ret: false,
                exc_ret: false,
                bx_reg: None,
                cond: in_it,
            };
            if insn.class == Class::TableBranch {
                ind.refill = Refill::Load;
            } else if insn.mem == Mem::Load {
                // POP {..,PC}, LDM {..,PC}, LDR PC.
                ind.refill = Refill::Load;
                ind.exc_ret = true;
                ind.ret = if insn.len == 2 {
                    true // 16-bit POP {..,PC}
                } else if h1 & 0xFFD0 == 0xE890 || h1 & 0xFFD0 == 0xE910 {
                    // LDM.W / LDMDB: a return when the base is SP with writeback.
                    h1 & 0x002F == 0x002D
                } else {
                    // LDR.W PC, [Rn], ...: a return when Rn is SP, post-indexed by 4.
                    h1 & 0x000F == 0xD && h2 == 0xFB04
                };
            } else if insn.len == 2 && h1 & 0xFF00 == 0x4700 {
                // BX / BLX Rm (Rm = bits 6:3).
                let rm = (h1 >> 3) & 0xF;
                ind.exc_ret = !link;
                ind.ret = !link && rm == 14;
                if !link && rm != 14 {
                    ind.bx_reg = Some(rm as u8);
                }
                if rm == 14 && !lr_written {
                    ind.refill = Refill::Direct; // BX LR, BLX LR: LR forwarded at decode
                }
            } else {
                // MOV PC, Rm / ADD PC, Rm: a return only as MOV PC, LR; never an
                // exception return.
                ind.ret = h1 == 0x46F7;
                if ind.ret && !lr_written {
                    ind.refill = Refill::Direct; // MOV PC, LR: LR forwarded at decode
                }
            }
            Exit::Indirect(ind)
        }
    }
}

/// Registers written by `d`, and the subset written with a value that may be an
/// EXC_RETURN: copied from LR (`mov rN, lr`) or popped from the stack (POP, LDM SP).
fn writes(d: &DecodedInsn) -> (u16, u16) {
    let (h1, h2) = (d.hw1(), d.hw2());
    const PC_SP: u16 = 0xA000;
    if d.insn.len == 2 {
        if h1 & 0xFE00 == 0xBC00 {
            let list = h1 & 0xFF; // POP (PC handled as the branch)
            return (list, list);
        }
        if h1 & 0xFF00 == 0x4600 {
            // MOV Rd, Rm (any registers)
            let rd = ((h1 >> 4) & 8) | (h1 & 7);
            let rm = (h1 >> 3) & 0xF;
            let w = if rd < 15 { 1 << rd } else { 0 };
            return (w, if rm == 14 { w } else { 0 });
        }
        if h1 & 0xF000 == 0xC000 && h1 & 0x0800 != 0 {
            return (h1 & 0xFF, 0); // LDM Rn!, {list}
        }
    } else {
        if h1 & 0xFFD0 == 0xE890 || h1 & 0xFFD0 == 0xE910 {
            // LDM.W / LDMDB: from SP the values may be a saved LR.
            let list = h2 & !PC_SP;
            let wb = if h1 & 0x0020 != 0 { 1 << (h1 & 0xF) } else { 0 };
            let lr_like = if h1 & 0xF == 13 { list } else { 0 };
            return ((list | wb) & !PC_SP, lr_like);
        }
        if h1 & 0xFFEF == 0xEA4F && h2 & 0x70F0 == 0 && h2 & 0xF == 14 {
            let w = 1u16 << ((h2 >> 8) & 0xF); // MOV.W Rd, LR
            return (w & !PC_SP, w & !PC_SP);
        }
        if h1 == 0xF85D && h2 & 0x0F00 == 0x0B00 {
            let w = 1u16 << (h2 >> 12); // LDR Rt, [SP], #imm (POP.W of one register)
            return (w & !PC_SP, w & !PC_SP);
        }
    }
    let mut w = ops(d).writes;
    if let Flow::Direct { link: true, .. } | Flow::Indirect { link: true } = d.insn.flow {
        w |= 1 << 14;
    }
    (w, 0)
}

/// For a whole block: (registers it leaves holding a possible EXC_RETURN, registers it
/// leaves holding something else). The last write of each register decides.
pub fn reg_summary(insns: &[DecodedInsn]) -> (u16, u16) {
    let (mut lr_like, mut other) = (0u16, 0u16);
    for d in insns {
        let (w, l) = writes(d);
        lr_like = (lr_like & !w) | l;
        other = (other & !w) | (w & !l);
    }
    (lr_like, other)
}

/// Most exceptions tracked as active at once. Real nesting is bounded by the number of
/// priority levels; more can only come from a misdetection, and is ignored.
pub const MAX_NESTING: usize = 64;

/// Follows block entries and infers [`Event`]s. Lives on the vCPU thread.
#[derive(Debug, Default)]
pub struct Tracker<'a> {
    prev: Option<(&'a TbShape, u64)>,
    /// Call depth inside each active exception, innermost last.
    frames: Vec<u32>,
    /// Registers that may hold an EXC_RETURN (see `Indirect::bx_reg`).
    lr_like: u16,
}

impl<'a> Tracker<'a> {
    /// Active exceptions (innermost last), each with its call depth.
    pub fn frames(&self) -> &[u32] {
        &self.frames
    }

    fn entry(&mut self) -> Event {
        if self.frames.len() < MAX_NESTING {
            self.frames.push(0);
        }
        Event::Entry
    }

    fn call(&mut self) {
        if let Some(d) = self.frames.last_mut() {
            *d = d.saturating_add(1);
        }
    }

    fn ret(&mut self) {
        if let Some(d) = self.frames.last_mut() {
            *d = d.saturating_sub(1);
        }
    }

    /// Block `next` is entered with the instruction counter at `insns_now` (the block's
    /// own counting has not happened yet), with nothing read from the machine and no
    /// live vector table.
    pub fn enter(&mut self, next: &'a TbShape, insns_now: u64) -> Event {
        self.enter_seen(next, insns_now, Seen::default(), |_| false)
    }

    /// The previous block, when it has a pure exit (`TbShape::pure_exit`) and ran whole
    /// by `insns_now`: entering any block now, the event is a function of that block and
    /// the new block's address. A key for remembering the charge of a `Next` or `Taken`
    /// entry (see `enter_again`).
    pub fn pure_prev(&self, insns_now: u64) -> Option<*const TbShape> {
        let (prev, at) = self.prev?;
        (prev.pure_exit && insns_now.wrapping_sub(at) == u64::from(prev.n_insns))
            .then_some(prev as *const TbShape)
    }

    /// Fast path of `enter`: when the previous block is `key`, a block `pure_prev` returned
    /// at an earlier entry into `next` that `enter` found to be `Next` or `Taken`, and it
    /// ran whole again, this entry is the same event (a function of the two blocks, see
    /// `TbShape::pure_exit`): records it exactly as `enter` would and returns true.
    /// Otherwise changes nothing and returns false. Blocks are never freed, so a block's
    /// address names it for the plugin's lifetime.
    #[inline(always)]
    pub fn enter_again(&mut self, next: &'a TbShape, insns_now: u64, key: *const TbShape) -> bool {
        match self.prev {
            Some((prev, at))
                if std::ptr::eq(prev, key)
                    && prev.pure_exit
                    && insns_now.wrapping_sub(at) == u64::from(prev.n_insns) =>
            {
                self.lr_like = (self.lr_like & !prev.reg_other) | prev.reg_lr_like;
                self.prev = Some((next, insns_now));
                true
            }
            _ => false,
        }
    }

    /// Address of the previous block's last instruction (0 before the first block):
    /// where an exception return happened (masked-window tracking).
    pub fn prev_last_pc(&self) -> u32 {
        self.prev
            .map_or(0, |(p, _)| p.pcs.last().copied().unwrap_or(0))
    }

    /// Whether an exception is active (as far as the tracker knows): the runtime reads
    /// the PC value of exception-return-capable branches only then.
    pub fn in_handler(&self) -> bool {
        !self.frames.is_empty()
    }

    /// As `enter`, with what the machine showed (`seen`) and `vector(addr)`: is `addr`
    /// the target of an entry of the live vector table (asked only where it decides the
    /// event, after an indirect branch). Inlined: it is the body of the runtime's
    /// block-entry path (`engine::Engine::enter`).
    #[inline(always)]
    pub fn enter_seen(
        &mut self,
        next: &'a TbShape,
        insns_now: u64,
        seen: Seen,
        vector: impl FnOnce(u64) -> bool,
    ) -> Event {
        let Some((prev, entered_at)) = self.prev.replace((next, insns_now)) else {
            return Event::None;
        };
        let to = next.start;
        let ran = insns_now.wrapping_sub(entered_at);
        if ran != u64::from(prev.n_insns) {
            // Left early: QEMU re-executed an I/O access alone (icount) and goes on at the
            // next instruction, unless that access raised an interrupt or a fault.
            return if to == prev.resume_pc(ran) {
                Event::Next(prev.tail_ctx_after(ran))
            } else {
                self.entry()
            };
        }
        self.lr_like = (self.lr_like & !prev.reg_other) | prev.reg_lr_like;
        let ft = prev.fallthrough;
        // (ran == n_insns here: `last_ctx` is `tail_ctx_after(ran)`)
        let next_seq = Event::Next(prev.last_ctx);
        match prev.exit {
            Exit::Seq | Exit::Wait | Exit::Exception => {
                if to == ft {
                    next_seq
                } else {
                    self.entry()
                }
            }
            Exit::Direct {
                target,
                cond,
                link,
                refill,
            } => {
                if to == target && (!cond || target != ft) {
                    if link {
                        self.call();
                    }
                    Event::Taken(refill)
                } else if to == ft {
                    next_seq
                } else {
                    // Interrupted before the target's first instruction ran. An
                    // unconditional BL has still made its call.
                    if link && !cond {
                        self.call();
                    }
                    self.entry()
                }
            }
            Exit::Indirect(ind) => {
                if to == ft && (ind.cond || !ind.exc_ret) {
                    return next_seq; // conditional, not executed
                }
                // Asked only where it decides (a lookup in the live vector table).
                let mut vector = Some(vector);
                let mut is_handler =
                    move || next.is_handler || vector.take().is_some_and(|f| f(to));
                let exc_ret = match seen.target {
                    // The machine's own answer: the value the branch loaded.
                    Some(v) => ind.exc_ret && is_exc_return(v),
                    None => {
                        ind.exc_ret
                            && ind.bx_reg.is_none_or(|r| self.lr_like & (1 << r) != 0)
                            && self.frames.last() == Some(&0)
                    }
                };
                if exc_ret {
                    self.frames.pop();
                    return if is_handler() {
                        self.frames.push(0);
                        Event::TailChain
                    } else {
                        Event::Return
                    };
                }
                if ind.link {
                    self.call();
                } else if ind.ret {
                    self.ret();
                }
                let landed_elsewhere = match seen.target {
                    // Not where the branch went (nor its fall-through, when it was
                    // conditional): an interrupt was taken right after it.
                    Some(v) => u64::from(v & !1) != to && !(ind.cond && to == ft),
                    // A return never lands on a handler's first instruction.
                    None => ind.ret && is_handler(),
                };
                if landed_elsewhere {
                    return self.entry();
                }
                Event::Taken(ind.refill)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape of a block as the zero model sees it (no head cycles, contexts 0).
    fn block(start: u64, encs: &[(u16, u16)], handlers: &[u32]) -> &'static TbShape {
        let mut pc = start;
        let insns: Vec<DecodedInsn> = encs
            .iter()
            .map(|&(a, b)| {
                let d = DecodedInsn::new(pc, a, b);
                pc += u64::from(d.insn.len);
                d
            })
            .collect();
        let n = insns.len();
        Box::leak(Box::new(TbShape::new(
            &insns,
            handlers,
            (0, 0),
            vec![0; n],
            0,
        )))
    }

    const NOP: (u16, u16) = (0xbf00, 0);
    const BX_LR: (u16, u16) = (0x4770, 0);

    fn target(s: &TbShape) -> u64 {
        match s.exit {
            Exit::Direct { target, .. } => target,
            ref e => panic!("not a direct branch: {e:?}"),
        }
    }

    #[test]
    fn exits() {
        let e = |encs: &[(u16, u16)]| block(0x100, encs, &[]).exit;
        assert_eq!(e(&[NOP]), Exit::Seq);
        assert_eq!(e(&[(0xbf30, 0)]), Exit::Wait); // wfi
        assert_eq!(e(&[(0xdf00, 0)]), Exit::Exception); // svc 0
        // b.n +8 at 0x100 -> 0x106
        assert_eq!(
            e(&[(0xe001, 0)]),
            Exit::Direct {
                target: 0x106,
                cond: false,
                link: false,
                refill: Refill::Direct
            }
        );
        // it eq; b.n: the branch is conditional
        assert_eq!(
            e(&[(0xbf08, 0), (0xe001, 0)]),
            Exit::Direct {
                target: 0x108,
                cond: true,
                link: false,
                refill: Refill::Direct
            }
        );
        // bl at 0x100 (f000 f802) -> 0x108
        assert_eq!(
            e(&[(0xf000, 0xf802)]),
            Exit::Direct {
                target: 0x108,
                cond: false,
                link: true,
                refill: Refill::Direct
            }
        );
        let ind = |encs: &[(u16, u16)]| match e(encs) {
            Exit::Indirect(i) => i,
            other => panic!("{other:?}"),
        };
        let bx_lr = ind(&[BX_LR]);
        assert_eq!(
            (
                bx_lr.refill,
                bx_lr.ret,
                bx_lr.exc_ret,
                bx_lr.link,
                bx_lr.cond
            ),
            (Refill::Direct, true, true, false, false),
            "BX LR: LR forwarded at decode (M3 TRM Table 15-3)"
        );
        // ... unless the instruction before writes LR: then issued at execute
        assert_eq!(ind(&[(0xf85d, 0xeb04), BX_LR]).refill, Refill::Register); // ldr lr, [sp], #4
        assert_eq!(ind(&[(0x4686, 0), BX_LR]).refill, Refill::Register); // mov lr, r0
        assert_eq!(ind(&[(0x4680, 0), BX_LR]).refill, Refill::Direct); // mov r8, r0
        assert_eq!(ind(&[(0x47f0, 0)]).refill, Refill::Direct); // blx lr
        assert_eq!(ind(&[(0x4798, 0)]).refill, Refill::Register); // blx r3
        assert_eq!(ind(&[(0x46f7, 0)]).refill, Refill::Direct); // mov pc, lr
        assert_eq!(ind(&[(0x4487, 0)]).refill, Refill::Register); // add pc, r0
        // it eq; bxeq lr: still decode (Table 15-2: "T1MOV LR ... in IT block")
        assert_eq!(ind(&[(0xbf08, 0), BX_LR]).refill, Refill::Direct);
        // cbz r0, +0x0a: issued at execute; b<c> and b at decode
        let dir = |encs: &[(u16, u16)]| match e(encs) {
            Exit::Direct { refill, cond, .. } => (refill, cond),
            other => panic!("{other:?}"),
        };
        assert_eq!(dir(&[(0xb128, 0)]), (Refill::Register, true));
        assert_eq!(dir(&[(0xb928, 0)]), (Refill::Register, true)); // cbnz r0
        assert_eq!(dir(&[(0xd0fe, 0)]), (Refill::Direct, true)); // beq .
        assert_eq!(dir(&[(0xf47f, 0xaffe)]), (Refill::Direct, true)); // bne.w .
        // bl after an instruction writing LR: execute (Table 15-3 note)
        assert_eq!(
            dir(&[(0x4686, 0), (0xf000, 0xf802)]),
            (Refill::Register, false)
        );
        assert_eq!(dir(&[NOP, (0xf000, 0xf802)]), (Refill::Direct, false));
        let bx_r3 = ind(&[(0x4718, 0)]);
        assert!(!bx_r3.ret && bx_r3.exc_ret && bx_r3.bx_reg == Some(3));
        assert_eq!(bx_lr.bx_reg, None);
        let blx = ind(&[(0x4798, 0)]); // blx r3
        assert!(blx.link && !blx.exc_ret && !blx.ret);
        let mov_pc_lr = ind(&[(0x46f7, 0)]);
        assert!(mov_pc_lr.ret && !mov_pc_lr.exc_ret);
        let add_pc = ind(&[(0x4487, 0)]); // add pc, r0
        assert!(!add_pc.ret && !add_pc.exc_ret);
        let pop = ind(&[(0xbd10, 0)]); // pop {r4, pc}
        assert_eq!(
            (pop.refill, pop.ret, pop.exc_ret),
            (Refill::Load, true, true)
        );
        let ldm_sp = ind(&[(0xe8bd, 0x8010)]); // ldmia.w sp!, {r4, pc}
        assert!(ldm_sp.ret && ldm_sp.exc_ret);
        let ldm_r0 = ind(&[(0xe890, 0x8010)]); // ldmia.w r0, {r4, pc}
        assert!(!ldm_r0.ret && ldm_r0.exc_ret);
        let ldr_pc_sp = ind(&[(0xf85d, 0xfb04)]); // ldr.w pc, [sp], #4
        assert!(ldr_pc_sp.ret && ldr_pc_sp.exc_ret);
        let ldr_pc_r1 = ind(&[(0xf8d1, 0xf004)]); // ldr.w pc, [r1, #4]
        assert!(!ldr_pc_r1.ret && ldr_pc_r1.exc_ret);
        let tbb = ind(&[(0xe8d1, 0xf002)]); // tbb [r1, r2]
        assert_eq!(
            (tbb.refill, tbb.exc_ret, tbb.ret),
            (Refill::Load, false, false)
        );
        assert!(ind(&[(0xbf18, 0), BX_LR]).cond, "it ne; bxne lr");
        assert!(
            !ind(&[(0xbf18, 0), NOP, BX_LR]).cond,
            "the IT block covered the nop only"
        );
        assert!(ind(&[(0xbf1c, 0), NOP, BX_LR]).cond, "itt ne covers two");
    }

    #[test]
    fn branches_taken_and_not() {
        let mut t = Tracker::default();
        // 0x20: subs r1, #1; bne 0x20
        let lp = block(0x20, &[(0x3901, 0), (0xd1fd, 0)], &[]);
        assert_eq!(target(lp), 0x20);
        let after = block(0x24, &[NOP], &[]);
        assert_eq!(
            t.enter(lp, 0),
            Event::None,
            "first block: nothing before it"
        );
        // (the zero model's contexts are 0)
        assert_eq!(t.enter(lp, 2), Event::Taken(Refill::Direct));
        assert_eq!(t.enter(after, 4), Event::Next(0), "not taken");
        // a block that ends without a branch, entered at its fall-through
        let seq = block(0x26, &[NOP], &[]);
        assert_eq!(t.enter(seq, 5), Event::Next(0));
        assert!(t.frames().is_empty());
    }

    #[test]
    fn svc_entry_return_and_calls_inside() {
        let h = [0x400u32];
        let mut t = Tracker::default();
        let thread = block(0x100, &[NOP, (0xdf00, 0)], &h); // nop; svc 0
        let handler = block(0x400, &[NOP, (0xf000, 0xf802)], &h); // nop; bl
        let func = block(target(handler), &[NOP, BX_LR], &h);
        let handler2 = block(handler.fallthrough, &[NOP, BX_LR], &h); // after the call
        let resume = block(0x104, &[NOP, BX_LR], &h);
        let caller = block(0x300, &[NOP], &h);
        assert!(handler.is_handler && !func.is_handler);
        assert_eq!(t.enter(thread, 0), Event::None);
        assert_eq!(
            t.enter(handler, 2),
            Event::Entry,
            "svc then not its fall-through"
        );
        assert_eq!(t.frames(), &[0]);
        assert_eq!(t.enter(func, 4), Event::Taken(Refill::Direct));
        assert_eq!(t.frames(), &[1], "bl made a call");
        assert_eq!(t.enter(handler2, 6), Event::Taken(Refill::Direct));
        assert_eq!(t.frames(), &[0], "bx lr at depth 1 is a function return");
        assert_eq!(t.enter(resume, 8), Event::Return, "bx lr at depth 0");
        assert!(t.frames().is_empty());
        assert_eq!(
            t.enter(caller, 10),
            Event::Taken(Refill::Direct),
            "in thread mode bx lr is a plain return"
        );
    }

    #[test]
    fn tail_chain_and_entries_after_returns() {
        let h = [0x400u32, 0x500];
        let mut t = Tracker::default();
        let svc = block(0x100, &[(0xdf00, 0)], &h);
        let h1 = block(0x400, &[BX_LR], &h);
        let h2 = block(0x500, &[(0xbd10, 0)], &h); // pop {r4, pc}
        let resume = block(0x102, &[BX_LR], &h); // a function's return, in thread mode
        let caller = block(0x600, &[NOP, (0x4798, 0)], &h); // nop; blx r3
        t.enter(svc, 0);
        assert_eq!(t.enter(h1, 1), Event::Entry);
        assert_eq!(
            t.enter(h2, 2),
            Event::TailChain,
            "exception return into a handler"
        );
        assert_eq!(t.frames(), &[0]);
        assert_eq!(
            t.enter(resume, 3),
            Event::Return,
            "pop {{.., pc}} at depth 0"
        );
        assert!(t.frames().is_empty());
        // thread-mode bx lr, then a block at a handler entry: an interrupt came in
        assert_eq!(t.enter(h1, 4), Event::Entry);
        assert_eq!(t.frames(), &[0]);
        assert_eq!(t.enter(caller, 5), Event::Return);
        // blx to a handler address is a call, not an entry
        assert_eq!(t.enter(h1, 7), Event::Taken(Refill::Register));
        assert!(t.frames().is_empty());
        // (which then returns to the caller as a plain return)
        let back = block(caller.fallthrough, &[NOP], &h);
        assert_eq!(t.enter(back, 8), Event::Taken(Refill::Direct));
    }

    #[test]
    fn nested_entry_and_partial_blocks() {
        let h = [0x400u32, 0x500];
        let mut t = Tracker::default();
        // 0x100: str r0, [r1] (I/O); nop; nop
        let io = block(0x100, &[(0x6008, 0), NOP, NOP], &h);
        let rest = block(0x102, &[NOP, NOP], &h);
        // 0x400: nop; str r0, [r1]; nop; bx lr
        let h1 = block(0x400, &[NOP, (0x6008, 0), NOP, BX_LR], &h);
        let h1_rest = block(0x404, &[NOP, BX_LR], &h);
        let h2 = block(0x500, &[BX_LR], &h);
        t.enter(io, 0);
        // only the store ran (1 of 3), then the rest of the block: a resumption
        assert_eq!(t.enter(rest, 1), Event::Next(0));
        assert!(t.frames().is_empty());
        let mut t = Tracker::default();
        t.enter(io, 0);
        // the store pended an interrupt, taken before the next instruction
        assert_eq!(t.enter(h1, 1), Event::Entry);
        // inside h1 its own store pends a higher-priority one: nested entry
        assert_eq!(t.enter(h2, 3), Event::Entry);
        assert_eq!(t.frames(), &[0, 0]);
        assert_eq!(t.enter(h1_rest, 4), Event::Return);
        assert_eq!(t.frames(), &[0]);
        assert_eq!(t.enter(rest, 6), Event::Return);
        assert!(t.frames().is_empty());
    }

    #[test]
    fn conditional_return_not_taken() {
        let h = [0x400u32];
        let mut t = Tracker::default();
        let svc = block(0x100, &[(0xdf00, 0)], &h);
        let h1 = block(0x400, &[(0xbf18, 0), BX_LR], &h); // it ne; bxne lr
        let next = block(0x404, &[BX_LR], &h);
        let resume = block(0x102, &[NOP], &h);
        t.enter(svc, 0);
        assert_eq!(t.enter(h1, 1), Event::Entry);
        assert_eq!(t.enter(next, 3), Event::Next(0), "bxne not taken");
        assert_eq!(t.frames(), &[0]);
        assert_eq!(t.enter(resume, 4), Event::Return);
    }

    #[test]
    fn interrupt_after_a_branch() {
        let h = [0x400u32, 0x500];
        let mut t = Tracker::default();
        let bl = block(0x100, &[(0xf000, 0xf802)], &h); // bl 0x108
        let h1 = block(0x400, &[BX_LR], &h);
        let callee = block(0x108, &[BX_LR], &h);
        t.enter(bl, 0);
        // an interrupt before the BL's target ran
        assert_eq!(t.enter(h1, 1), Event::Entry);
        assert_eq!(t.enter(callee, 2), Event::Return);
        assert!(t.frames().is_empty());
        // the same inside a handler: the interrupted handler's call is counted
        let svc = block(0x300, &[(0xdf00, 0)], &h);
        let h3 = block(0x500, &[(0xf000, 0xf802)], &h); // bl 0x508
        let func = block(0x508, &[BX_LR], &h);
        let back = block(0x504, &[BX_LR], &h);
        let resume = block(0x302, &[NOP], &h);
        assert_eq!(t.enter(svc, 3), Event::Taken(Refill::Direct));
        assert_eq!(t.enter(h3, 4), Event::Entry);
        assert_eq!(t.enter(h1, 5), Event::Entry);
        assert_eq!(t.frames(), &[1, 0]);
        assert_eq!(t.enter(func, 6), Event::Return);
        assert_eq!(t.frames(), &[1]);
        assert_eq!(
            t.enter(back, 7),
            Event::Taken(Refill::Direct),
            "func returns"
        );
        assert_eq!(t.frames(), &[0]);
        assert_eq!(t.enter(resume, 8), Event::Return);
        assert!(t.frames().is_empty());
        // WFI woken by an interrupt
        let wfi = block(0x200, &[(0xbf30, 0)], &h);
        t.enter(wfi, 9);
        assert_eq!(t.enter(h1, 10), Event::Entry);
    }

    #[test]
    fn register_provenance() {
        let sum = |encs: &[(u16, u16)]| {
            let mut pc = 0x100;
            let insns: Vec<DecodedInsn> = encs
                .iter()
                .map(|&(a, b)| {
                    let d = DecodedInsn::new(pc, a, b);
                    pc += u64::from(d.insn.len);
                    d
                })
                .collect();
            reg_summary(&insns)
        };
        assert_eq!(sum(&[(0x4673, 0)]), (1 << 3, 0), "mov r3, lr");
        assert_eq!(sum(&[(0xbc0c, 0)]), (0b1100, 0), "pop {{r2, r3}}");
        assert_eq!(
            sum(&[(0xe8bd, 0x4008)]),
            (1 << 3 | 1 << 14, 0),
            "ldmia.w sp!, {{r3, lr}}"
        );
        assert_eq!(sum(&[(0xea4f, 0x030e)]), (1 << 3, 0), "mov.w r3, lr");
        assert_eq!(sum(&[(0xf85d, 0x3b04)]), (1 << 3, 0), "ldr.w r3, [sp], #4");
        assert_eq!(sum(&[(0x681b, 0)]), (0, 1 << 3), "ldr r3, [r3]");
        assert_eq!(
            sum(&[(0x4673, 0), (0x681b, 0)]),
            (0, 1 << 3),
            "the last write decides"
        );
        assert_eq!(sum(&[(0x681b, 0), (0xbc08, 0)]), (1 << 3, 0));
        assert_eq!(sum(&[(0xf000, 0xf802)]), (0, 1 << 14), "bl writes lr");
    }

    #[test]
    fn bx_reg_tail_call_or_exception_return() {
        let h = [0x400u32, 0x500];
        // an ISR that tail-calls through a pointer: ldr r3, [r3]; bx r3
        let mut t = Tracker::default();
        let svc = block(0x100, &[(0xdf00, 0)], &h);
        let isr = block(0x400, &[(0x681b, 0), (0x4718, 0)], &h);
        let callee = block(0x600, &[BX_LR], &h);
        let resume = block(0x102, &[NOP], &h);
        t.enter(svc, 0);
        assert_eq!(t.enter(isr, 1), Event::Entry);
        assert_eq!(
            t.enter(callee, 3),
            Event::Taken(Refill::Register),
            "a tail call"
        );
        assert_eq!(t.frames(), &[0]);
        assert_eq!(
            t.enter(resume, 4),
            Event::Return,
            "the callee's bx lr returns"
        );
        // an ISR returning through a popped EXC_RETURN: pop {r2, r3} ... bx r3
        let mut t = Tracker::default();
        let isr2 = block(0x500, &[(0xbc0c, 0), (0xbf00, 0)], &h);
        let tail = block(0x504, &[(0x4718, 0)], &h);
        t.enter(svc, 0);
        assert_eq!(t.enter(isr2, 1), Event::Entry);
        assert_eq!(t.enter(tail, 3), Event::Next(0));
        assert_eq!(
            t.enter(resume, 4),
            Event::Return,
            "bx r3 with a popped value"
        );
        assert!(t.frames().is_empty());
    }

    fn insn(h1: u16, h2: u16) -> DecodedInsn {
        DecodedInsn::new(0x100, h1, h2)
    }

    #[test]
    fn where_exception_return_values_come_from() {
        let mem = |base, offset| {
            Some(TargetSrc::Mem {
                base,
                offset,
                index: None,
            })
        };
        assert_eq!(
            exc_ret_source(&insn(0x4770, 0)),
            Some(TargetSrc::Reg(14)),
            "bx lr"
        );
        assert_eq!(
            exc_ret_source(&insn(0x4718, 0)),
            Some(TargetSrc::Reg(3)),
            "bx r3"
        );
        assert_eq!(exc_ret_source(&insn(0x4798, 0)), None, "blx r3 is a call");
        assert_eq!(exc_ret_source(&insn(0xbd00, 0)), mem(13, 0), "pop {{pc}}");
        assert_eq!(
            exc_ret_source(&insn(0xbd10, 0)),
            mem(13, 4),
            "pop {{r4, pc}}"
        );
        assert_eq!(
            exc_ret_source(&insn(0xbdf0, 0)),
            mem(13, 16),
            "pop {{r4-r7, pc}}"
        );
        assert_eq!(
            exc_ret_source(&insn(0xe8bd, 0x8ff0)),
            mem(13, 32),
            "ldmia.w sp!, {{r4-r11, pc}}"
        );
        assert_eq!(
            exc_ret_source(&insn(0xe890, 0x8010)),
            mem(0, 4),
            "ldmia.w r0, {{r4, pc}}"
        );
        assert_eq!(
            exc_ret_source(&insn(0xe931, 0x8010)),
            mem(1, -4),
            "ldmdb r1!, {{r4, pc}}"
        );
        assert_eq!(
            exc_ret_source(&insn(0xf85d, 0xfb04)),
            mem(13, 0),
            "ldr.w pc, [sp], #4"
        );
        assert_eq!(
            exc_ret_source(&insn(0xf8d1, 0xf004)),
            mem(1, 4),
            "ldr.w pc, [r1, #4]"
        );
        assert_eq!(
            exc_ret_source(&insn(0xf851, 0xfc08)),
            mem(1, -8),
            "ldr pc, [r1, #-8]"
        );
        assert_eq!(
            exc_ret_source(&insn(0xf851, 0xf022)),
            Some(TargetSrc::Mem {
                base: 1,
                offset: 0,
                index: Some((2, 2))
            }),
            "ldr.w pc, [r1, r2, lsl #2]"
        );
        assert_eq!(
            exc_ret_source(&insn(0x46f7, 0)),
            None,
            "mov pc, lr never returns from one"
        );
        assert_eq!(exc_ret_source(&insn(0xe8d1, 0xf002)), None, "tbb");
        assert!(is_exc_return(0xFFFF_FFF9) && is_exc_return(0xFFFF_FFE1));
        assert!(!is_exc_return(0x0000_0401) && !is_exc_return(0x2000_0001));
    }

    #[test]
    fn the_machine_decides_exception_returns() {
        let h = [0x400u32];
        let svc = block(0x100, &[(0xdf00, 0)], &h);
        // a handler that calls a function through a pointer and returns with bx r3 after
        // loading r3 from memory (the depth count and register provenance would miss it)
        let isr = block(0x400, &[(0x681b, 0), (0x4718, 0)], &h); // ldr r3, [r3]; bx r3
        let resume = block(0x102, &[NOP], &h);
        let mut t = Tracker::default();
        t.enter(svc, 0);
        assert_eq!(t.enter(isr, 1), Event::Entry);
        assert!(t.in_handler());
        let seen = Seen {
            target: Some(0xFFFF_FFF9),
        };
        assert_eq!(t.enter_seen(resume, 3, seen, |_| false), Event::Return);
        assert!(!t.in_handler());
        // the same branch loading a plain address is a jump, not a return
        let callee = block(0x600, &[BX_LR], &h);
        let mut t = Tracker::default();
        t.enter(svc, 0);
        t.enter(isr, 1);
        let seen = Seen {
            target: Some(0x601),
        };
        assert_eq!(
            t.enter_seen(callee, 3, seen, |_| false),
            Event::Taken(Refill::Register)
        );
        assert!(t.in_handler());
        // ... and landing somewhere else than the value means an interrupt came in
        let other = block(0x500, &[BX_LR], &h);
        let mut t = Tracker::default();
        t.enter(svc, 0);
        t.enter(isr, 1);
        assert_eq!(
            t.enter_seen(
                other,
                3,
                Seen {
                    target: Some(0x601)
                },
                |_| false
            ),
            Event::Entry
        );
        assert_eq!(t.frames(), &[0, 0]);
    }

    #[test]
    fn live_vector_table_handlers() {
        // no handlers= at all: the live vector table says 0x500 is a handler
        let svc = block(0x100, &[(0xdf00, 0)], &[]);
        let h1 = block(0x400, &[BX_LR], &[]);
        let h2 = block(0x500, &[BX_LR], &[]);
        let resume = block(0x102, &[NOP], &[]);
        let vec = |a: u64| a == 0x500;
        let mut t = Tracker::default();
        t.enter(svc, 0);
        assert_eq!(t.enter(h1, 1), Event::Entry);
        let ret = Seen {
            target: Some(0xFFFF_FFF9),
        };
        assert_eq!(t.enter_seen(h2, 2, ret, vec), Event::TailChain);
        assert_eq!(t.enter_seen(resume, 3, ret, vec), Event::Return);
        // a thread-mode function return followed at once by an interrupt
        let caller = block(0x104, &[NOP, BX_LR], &[]);
        t.enter(caller, 4);
        assert_eq!(t.enter_seen(h2, 6, Seen::default(), vec), Event::Entry);
        assert_eq!(t.frames(), &[0]);
    }

    /// The runtime's fast path (`pure_prev` + `enter_again`, remembering the event of a
    /// `Next` or `Taken` entry per pair of blocks) agrees with `enter` entry by entry, and
    /// leaves the tracker in the same state, over a long pseudo-random walk through blocks
    /// of every exit kind, run whole or left early.
    #[test]
    fn remembered_entries_repeat_enter() {
        let h = [0x400u32];
        let blocks = [
            block(0x100, &[NOP, NOP], &h),                 // no branch
            block(0x104, &[(0x3901, 0), (0xd1fd, 0)], &h), // subs; bne 0x104
            block(0x108, &[NOP, (0xe7f9, 0)], &h),         // nop; b.n 0x100
            block(0x10c, &[(0xf000, 0xf802)], &h),         // bl (a call: impure)
            block(0x110, &[(0xbf08, 0), (0xe7f6, 0)], &h), // it eq; b.n
            block(0x200, &[NOP, (0xdf00, 0)], &h),         // svc
            block(0x204, &[(0xbf30, 0)], &h),              // wfi
            block(0x400, &[NOP, BX_LR], &h),               // handler; bx lr
            block(0x406, &[(0xbd10, 0)], &h),              // pop {r4, pc}
            block(0x102, &[NOP], &h),                      // mid-block resumption
            block(0x300, &[(0xbc08, 0), NOP], &h),         // pop {r3}: r3 may be EXC_RETURN
            block(0x304, &[(0x4603, 0)], &h),              // mov r3, r0: not any more
            block(0x306, &[(0x4718, 0)], &h),              // bx r3
        ];
        assert!(blocks[0].pure_exit && blocks[1].pure_exit && blocks[4].pure_exit);
        assert!(!blocks[3].pure_exit && !blocks[7].pure_exit && !blocks[8].pure_exit);
        let (mut plain, mut fast) = (Tracker::default(), Tracker::default());
        let mut memo: std::collections::HashMap<*const TbShape, (*const TbShape, Event)> =
            std::collections::HashMap::new();
        let (mut seed, mut now, mut repeated) = (0x2545_f491_4f6c_dd1du64, 0u64, 0u32);
        let mut prev_n = 0u64;
        for _ in 0..50_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            // mostly whole blocks, sometimes one left early; successors skewed so that
            // pairs repeat
            now += if seed % 5 == 0 {
                (seed >> 8) % prev_n.max(1)
            } else {
                prev_n
            };
            let next = blocks[((seed >> 16) % 9 + (seed >> 24) % 5) as usize % blocks.len()];
            let want = plain.enter(next, now);
            let key = memo
                .get(&(next as *const _))
                .map_or(std::ptr::null(), |m| m.0);
            let got = if fast.enter_again(next, now, key) {
                repeated += 1;
                memo[&(next as *const _)].1
            } else {
                let k = fast.pure_prev(now);
                let ev = fast.enter(next, now);
                if let (Some(k), Event::Next(_) | Event::Taken(_)) = (k, ev) {
                    memo.insert(next, (k, ev));
                }
                ev
            };
            assert_eq!(got, want, "at {now} entering {:#x}", next.start);
            assert_eq!(format!("{fast:?}"), format!("{plain:?}"));
            prev_n = u64::from(next.n_insns);
        }
        assert!(
            repeated > 1_000,
            "the fast path was taken ({repeated} times)"
        );
    }
}
