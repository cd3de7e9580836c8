//! Trace file format v1 (docs/formats.md section 2): writer.
//!
//! Header (32 bytes): magic "RTLTRACE", version u32 = 1, record size u32 = 24, probe
//! region base u32, probe region size u32, flags u32 (bit 0: cycle column modelled),
//! reserved u32 = 0. Then 24-byte records: id u32, status u32 (0 for hits), insns u64,
//! cycles u64. All little-endian. The last record of a complete trace is the end record
//! (id 0xFFFFFFFF, status bits, totals).

use std::io::{self, Write};

pub const MAGIC: &[u8; 8] = b"RTLTRACE";
pub const VERSION: u32 = 1;
pub const HEADER_SIZE: usize = 32;
pub const RECORD_SIZE: usize = 24;
pub const END_ID: u32 = 0xFFFF_FFFF;

/// Header flag bit 0: the cycle column holds modelled cycles.
pub const FLAG_CYCLES_MODELLED: u32 = 1 << 0;

/// End-record status bit 0: the record limit was reached, later hits were dropped.
pub const STATUS_RECORD_LIMIT: u32 = 1 << 0;
/// End-record status bit 1: the instruction limit was reached (guest stopped: a hang).
pub const STATUS_INSN_LIMIT: u32 = 1 << 1;
/// End-record status bit 2: a store hit the probe region at a non word-aligned address.
pub const STATUS_UNALIGNED: u32 = 1 << 2;

/// Encode the 32-byte header.
pub fn header_bytes(base: u32, size: u32, flags: u32) -> [u8; HEADER_SIZE] {
    let mut h = [0u8; HEADER_SIZE];
    h[0..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&(RECORD_SIZE as u32).to_le_bytes());
    h[16..20].copy_from_slice(&base.to_le_bytes());
    h[20..24].copy_from_slice(&size.to_le_bytes());
    h[24..28].copy_from_slice(&flags.to_le_bytes());
    // 28..32 reserved, 0
    h
}

/// Encode one 24-byte record.
pub fn record_bytes(id: u32, status: u32, insns: u64, cycles: u64) -> [u8; RECORD_SIZE] {
    let mut r = [0u8; RECORD_SIZE];
    r[0..4].copy_from_slice(&id.to_le_bytes());
    r[4..8].copy_from_slice(&status.to_le_bytes());
    r[8..16].copy_from_slice(&insns.to_le_bytes());
    r[16..24].copy_from_slice(&cycles.to_le_bytes());
    r
}

/// Buffered trace writer. Hits are appended until `max_records`; after that they are
/// dropped and status bit 0 is set. `finish` writes the end record and flushes; after
/// it nothing more is written.
pub struct TraceWriter<W: Write> {
    out: W,
    max_records: u64,
    hits: u64,
    status: u32,
    finished: bool,
}

impl<W: Write> TraceWriter<W> {
    /// Write the header to `out` and return the writer.
    pub fn new(mut out: W, base: u32, size: u32, flags: u32, max_records: u64) -> io::Result<Self> {
        out.write_all(&header_bytes(base, size, flags))?;
        Ok(TraceWriter {
            out,
            max_records,
            hits: 0,
            status: 0,
            finished: false,
        })
    }

    /// Append a hit record, or count it as dropped when the record limit is reached.
    pub fn hit(&mut self, id: u32, insns: u64, cycles: u64) -> io::Result<()> {
        if self.finished {
            return Ok(());
        }
        if self.hits >= self.max_records {
            self.status |= STATUS_RECORD_LIMIT;
            return Ok(());
        }
        self.hits += 1;
        self.out.write_all(&record_bytes(id, 0, insns, cycles))
    }

    /// Set end-record status bits (e.g. `STATUS_UNALIGNED`).
    pub fn set_status(&mut self, bits: u32) {
        self.status |= bits;
    }

    pub fn status(&self) -> u32 {
        self.status
    }

    /// Hit records written so far.
    pub fn hits(&self) -> u64 {
        self.hits
    }

    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Write the end record (status bits `extra_status` added) and flush. Only the first
    /// call writes anything; it returns whether it did.
    pub fn finish(&mut self, extra_status: u32, insns: u64, cycles: u64) -> io::Result<bool> {
        if self.finished {
            return Ok(false);
        }
        self.finished = true;
        self.status |= extra_status;
        self.out
            .write_all(&record_bytes(END_ID, self.status, insns, cycles))?;
        self.out.flush()?;
        Ok(true)
    }

    /// The underlying writer (tests).
    pub fn get_ref(&self) -> &W {
        &self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u32_at(b: &[u8], off: usize) -> u32 {
        u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
    }
    fn u64_at(b: &[u8], off: usize) -> u64 {
        u64::from_le_bytes(b[off..off + 8].try_into().unwrap())
    }

    #[test]
    fn header_layout() {
        let h = header_bytes(0x2100_0000, 0x4000, 0);
        assert_eq!(h.len(), 32);
        assert_eq!(&h[0..8], b"RTLTRACE");
        assert_eq!(u32_at(&h, 8), 1, "version");
        assert_eq!(u32_at(&h, 12), 24, "record size");
        assert_eq!(u32_at(&h, 16), 0x2100_0000, "base");
        assert_eq!(u32_at(&h, 20), 0x4000, "size");
        assert_eq!(u32_at(&h, 24), 0, "flags");
        assert_eq!(u32_at(&h, 28), 0, "reserved");
        // Exact bytes, little-endian.
        assert_eq!(
            h,
            [
                b'R', b'T', b'L', b'T', b'R', b'A', b'C', b'E', 1, 0, 0, 0, 24, 0, 0, 0, 0, 0, 0,
                0x21, 0, 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
            ]
        );
        assert_eq!(u32_at(&header_bytes(1, 2, FLAG_CYCLES_MODELLED), 24), 1);
    }

    #[test]
    fn record_layout() {
        let r = record_bytes(7, 0, 0x0102_0304_0506_0708, 0x1112_1314_1516_1718);
        assert_eq!(r.len(), 24);
        assert_eq!(
            r,
            [
                7, 0, 0, 0, 0, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1, 0x18, 0x17, 0x16, 0x15, 0x14, 0x13,
                0x12, 0x11
            ]
        );
        let e = record_bytes(END_ID, 5, 42, 0);
        assert_eq!(u32_at(&e, 0), 0xFFFF_FFFF);
        assert_eq!(u32_at(&e, 4), 5);
        assert_eq!(u64_at(&e, 8), 42);
        assert_eq!(u64_at(&e, 16), 0);
    }

    #[test]
    fn writer_file_layout() {
        let mut w = TraceWriter::new(Vec::new(), 0x2100_0000, 0x4000, 0, 10).unwrap();
        w.hit(0, 2, 0).unwrap();
        w.hit(1, 5, 0).unwrap();
        assert!(w.finish(0, 9, 0).unwrap());
        assert!(
            !w.finish(STATUS_INSN_LIMIT, 99, 0).unwrap(),
            "second finish is a no-op"
        );
        w.hit(3, 100, 0).unwrap(); // after finish: ignored
        let b = w.get_ref();
        assert_eq!(b.len(), HEADER_SIZE + 3 * RECORD_SIZE);
        assert_eq!(&b[0..8], MAGIC);
        // record 0 at offset 32, record 1 at 56, end record at 80
        assert_eq!(u32_at(b, 32), 0);
        assert_eq!(u32_at(b, 36), 0);
        assert_eq!(u64_at(b, 40), 2);
        assert_eq!(u64_at(b, 48), 0);
        assert_eq!(u32_at(b, 56), 1);
        assert_eq!(u64_at(b, 64), 5);
        assert_eq!(u32_at(b, 80), END_ID);
        assert_eq!(u32_at(b, 84), 0);
        assert_eq!(u64_at(b, 88), 9);
    }

    #[test]
    fn record_limit_drops_and_flags() {
        let mut w = TraceWriter::new(Vec::new(), 0, 16, 0, 2).unwrap();
        for i in 0..5 {
            w.hit(i, i as u64, 0).unwrap();
        }
        assert_eq!(w.hits(), 2);
        assert_eq!(w.status(), STATUS_RECORD_LIMIT);
        w.set_status(STATUS_UNALIGNED);
        w.finish(STATUS_INSN_LIMIT, 77, 0).unwrap();
        let b = w.get_ref();
        assert_eq!(b.len(), HEADER_SIZE + 3 * RECORD_SIZE);
        assert_eq!(u32_at(b, 32 + 2 * 24), END_ID);
        assert_eq!(u32_at(b, 32 + 2 * 24 + 4), 0b111);
        assert_eq!(u64_at(b, 32 + 2 * 24 + 8), 77);
    }

    #[test]
    fn record_limit_exactly_reached_is_not_flagged() {
        let mut w = TraceWriter::new(Vec::new(), 0, 16, 0, 2).unwrap();
        w.hit(0, 1, 0).unwrap();
        w.hit(1, 2, 0).unwrap();
        assert_eq!(w.status(), 0, "nothing dropped yet");
    }
}
