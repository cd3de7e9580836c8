//! Exception event file, version 1 (docs/timeline.md, "Event file"): writer.
//!
//! Written only when the host passes `events=PATH` (the timeline, `rtoslab run --trace`);
//! otherwise the plugin opens no such file and its block-entry path is unchanged. The
//! events are the timing model's own exception entries, returns and tail-chains, so the
//! file needs a timing model (`core=` other than `none`).
//!
//! Header (32 bytes): magic "RTLEVENT", version u32 = 1, record size u32 = 24, flags u32
//! (bit 0: cycle column modelled), 12 reserved bytes = 0. Records (24 bytes): kind u16
//! (1 entry, 2 return, 3 tail-chain; 0xFFFF end), core u16 (the vCPU that took the
//! event; 0 on a single-core machine, which is what this field held before it had a
//! meaning), pc u32 (the first
//! block's address: the handler for entry and tail-chain, where the interrupted code
//! resumes for return), insns u64 (guest instructions completed before it), cycles u64
//! (modelled cycles completed before the event's own charge); both counts are the core's
//! own (the trace file has the machine's shared clock). The end record holds the
//! status bits in the pc field (bit 0: the record cap was reached and later events were
//! dropped) and the totals. All little-endian.

use std::io::{self, Write};

pub const MAGIC: &[u8; 8] = b"RTLEVENT";
pub const VERSION: u32 = 1;
pub const HEADER_SIZE: usize = 32;
pub const RECORD_SIZE: usize = 24;

pub const KIND_ENTRY: u16 = 1;
pub const KIND_RETURN: u16 = 2;
pub const KIND_TAIL_CHAIN: u16 = 3;
pub const KIND_END: u16 = 0xFFFF;

/// End-record status bit 0: the cap was reached; later events were dropped.
pub const STATUS_CAPPED: u32 = 1;

/// Events kept per run (24 MB of file at most); the host keeps a window of them anyway.
pub const MAX_EVENTS: u64 = 1_000_000;

/// Encode the header.
pub fn header_bytes(flags: u32) -> [u8; HEADER_SIZE] {
    let mut h = [0u8; HEADER_SIZE];
    h[0..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&(RECORD_SIZE as u32).to_le_bytes());
    h[16..20].copy_from_slice(&flags.to_le_bytes());
    h
}

/// Encode one record.
pub fn record_bytes(kind: u16, core: u16, pc: u32, insns: u64, cycles: u64) -> [u8; RECORD_SIZE] {
    let mut r = [0u8; RECORD_SIZE];
    r[0..2].copy_from_slice(&kind.to_le_bytes());
    r[2..4].copy_from_slice(&core.to_le_bytes());
    r[4..8].copy_from_slice(&pc.to_le_bytes());
    r[8..16].copy_from_slice(&insns.to_le_bytes());
    r[16..24].copy_from_slice(&cycles.to_le_bytes());
    r
}

/// Buffered event writer with a cap (`max`); `finish` writes the end record once.
pub struct EventWriter<W: Write> {
    out: W,
    max: u64,
    n: u64,
    status: u32,
    finished: bool,
}

impl<W: Write> EventWriter<W> {
    pub fn new(mut out: W, flags: u32, max: u64) -> io::Result<Self> {
        out.write_all(&header_bytes(flags))?;
        Ok(EventWriter {
            out,
            max,
            n: 0,
            status: 0,
            finished: false,
        })
    }

    /// Append an event, or drop it (status bit 0) once the cap is reached.
    pub fn event(
        &mut self,
        kind: u16,
        core: u16,
        pc: u32,
        insns: u64,
        cycles: u64,
    ) -> io::Result<()> {
        if self.finished {
            return Ok(());
        }
        if self.n >= self.max {
            self.status |= STATUS_CAPPED;
            return Ok(());
        }
        self.n += 1;
        self.out.write_all(&record_bytes(kind, core, pc, insns, cycles))
    }

    /// Write the end record and flush; only the first call writes.
    pub fn finish(&mut self, insns: u64, cycles: u64) -> io::Result<()> {
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        self.out
            .write_all(&record_bytes(KIND_END, 0, self.status, insns, cycles))?;
        self.out.flush()
    }

    /// The underlying writer (tests).
    pub fn get_ref(&self) -> &W {
        &self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_and_cap() {
        let mut w = EventWriter::new(Vec::new(), 1, 2).unwrap();
        w.event(KIND_ENTRY, 0, 0x1234, 10, 20).unwrap();
        w.event(KIND_RETURN, 1, 0x5678, 30, 40).unwrap();
        w.event(KIND_TAIL_CHAIN, 0, 0x9, 50, 60).unwrap(); // over the cap: dropped
        w.finish(99, 199).unwrap();
        w.finish(1, 1).unwrap(); // no-op
        let b = w.get_ref();
        assert_eq!(b.len(), HEADER_SIZE + 3 * RECORD_SIZE);
        assert_eq!(&b[0..8], b"RTLEVENT");
        assert_eq!(&b[8..20], &[1, 0, 0, 0, 24, 0, 0, 0, 1, 0, 0, 0]);
        assert_eq!(&b[32..40], &[1, 0, 0, 0, 0x34, 0x12, 0, 0]);
        assert_eq!(u64::from_le_bytes(b[40..48].try_into().unwrap()), 10);
        assert_eq!(u64::from_le_bytes(b[48..56].try_into().unwrap()), 20);
        assert_eq!(&b[56..60], &[2, 0, 1, 0], "kind 2 on core 1");
        let end = &b[80..];
        assert_eq!(&end[0..2], &[0xFF, 0xFF]);
        assert_eq!(
            u32::from_le_bytes(end[4..8].try_into().unwrap()),
            STATUS_CAPPED
        );
        assert_eq!(u64::from_le_bytes(end[8..16].try_into().unwrap()), 99);
    }
}
