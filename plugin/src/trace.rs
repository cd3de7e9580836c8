//! Trace file format v2 (docs/formats.md section 2): writer.
//!
//! Header (32 bytes): magic "RTLTRACE", version u32 = 2, record size u32 = 40, probe
//! region base u32, probe region size u32, flags u32 (bit 0: cycle column modelled),
//! cores u32 (the machine's vCPUs). Then 40-byte records: id u32, core u16, status u16
//! (0 for hits), insns u64 and cycles u64 (the core's own counts), and the shared
//! (machine) clock: m_insns u64 and m_cycles u64, the sums over all cores at that point
//! of the run (docs/timing-model.md, "Two cores"). All little-endian. A complete trace
//! ends with one core-total record per core (id 0xFFFFFFFE: that core's totals) and then
//! the end record (id 0xFFFFFFFF, status bits, the machine totals in both pairs).

use std::io::{self, Write};

pub const MAGIC: &[u8; 8] = b"RTLTRACE";
pub const VERSION: u32 = 2;
pub const HEADER_SIZE: usize = 32;
pub const RECORD_SIZE: usize = 40;
pub const END_ID: u32 = 0xFFFF_FFFF;
/// A core's totals, written before the end record, one per core.
pub const CORE_TOTAL_ID: u32 = 0xFFFF_FFFE;

/// Header flag bit 0: the cycle column holds modelled cycles.
pub const FLAG_CYCLES_MODELLED: u32 = 1 << 0;

/// End-record status bit 0: the record limit was reached, later hits were dropped.
pub const STATUS_RECORD_LIMIT: u16 = 1 << 0;
/// End-record status bit 1: the instruction limit was reached (guest stopped: a hang).
pub const STATUS_INSN_LIMIT: u16 = 1 << 1;
/// End-record status bit 2: a store hit the probe region at a non word-aligned address.
pub const STATUS_UNALIGNED: u16 = 1 << 2;

/// Counts at a point of the run: the core's own, and the machine's (all cores summed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stamp {
    pub core: u16,
    pub insns: u64,
    pub cycles: u64,
    pub m_insns: u64,
    pub m_cycles: u64,
}

impl Stamp {
    /// A single core's stamp: the machine's counts are the core's.
    pub fn single(insns: u64, cycles: u64) -> Stamp {
        Stamp {
            core: 0,
            insns,
            cycles,
            m_insns: insns,
            m_cycles: cycles,
        }
    }
}

/// Encode the 32-byte header.
pub fn header_bytes(base: u32, size: u32, flags: u32, cores: u32) -> [u8; HEADER_SIZE] {
    let mut h = [0u8; HEADER_SIZE];
    h[0..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&(RECORD_SIZE as u32).to_le_bytes());
    h[16..20].copy_from_slice(&base.to_le_bytes());
    h[20..24].copy_from_slice(&size.to_le_bytes());
    h[24..28].copy_from_slice(&flags.to_le_bytes());
    h[28..32].copy_from_slice(&cores.to_le_bytes());
    h
}

/// Encode one 40-byte record.
pub fn record_bytes(id: u32, status: u16, s: Stamp) -> [u8; RECORD_SIZE] {
    let mut r = [0u8; RECORD_SIZE];
    r[0..4].copy_from_slice(&id.to_le_bytes());
    r[4..6].copy_from_slice(&s.core.to_le_bytes());
    r[6..8].copy_from_slice(&status.to_le_bytes());
    r[8..16].copy_from_slice(&s.insns.to_le_bytes());
    r[16..24].copy_from_slice(&s.cycles.to_le_bytes());
    r[24..32].copy_from_slice(&s.m_insns.to_le_bytes());
    r[32..40].copy_from_slice(&s.m_cycles.to_le_bytes());
    r
}

/// Buffered trace writer. Hits are appended until `max_records`; after that they are
/// dropped and status bit 0 is set. `finish` writes the core totals and the end record
/// and flushes; after it nothing more is written.
pub struct TraceWriter<W: Write> {
    out: W,
    max_records: u64,
    hits: u64,
    status: u16,
    finished: bool,
}

impl<W: Write> TraceWriter<W> {
    /// Write the header to `out` and return the writer.
    pub fn new(
        mut out: W,
        base: u32,
        size: u32,
        flags: u32,
        cores: u32,
        max_records: u64,
    ) -> io::Result<Self> {
        out.write_all(&header_bytes(base, size, flags, cores))?;
        Ok(TraceWriter {
            out,
            max_records,
            hits: 0,
            status: 0,
            finished: false,
        })
    }

    /// Append a hit record, or count it as dropped when the record limit is reached.
    pub fn hit(&mut self, id: u32, at: Stamp) -> io::Result<()> {
        if self.finished {
            return Ok(());
        }
        if self.hits >= self.max_records {
            self.status |= STATUS_RECORD_LIMIT;
            return Ok(());
        }
        self.hits += 1;
        self.out.write_all(&record_bytes(id, 0, at))
    }

    /// Set end-record status bits (e.g. `STATUS_UNALIGNED`).
    pub fn set_status(&mut self, bits: u16) {
        self.status |= bits;
    }

    pub fn status(&self) -> u16 {
        self.status
    }

    /// Hit records written so far.
    pub fn hits(&self) -> u64 {
        self.hits
    }

    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Write one core-total record per entry of `cores` (core index, its insns and
    /// cycles), then the end record (status bits `extra_status` added; the machine
    /// totals are the sums over `cores`), and flush. Only the first call writes
    /// anything; it returns whether it did.
    pub fn finish(&mut self, extra_status: u16, cores: &[(u64, u64)]) -> io::Result<bool> {
        if self.finished {
            return Ok(false);
        }
        self.finished = true;
        self.status |= extra_status;
        let (m_insns, m_cycles) = crate::clock::total(cores);
        for (core, &(insns, cycles)) in cores.iter().enumerate() {
            let at = Stamp {
                core: core as u16,
                insns,
                cycles,
                m_insns,
                m_cycles,
            };
            self.out.write_all(&record_bytes(CORE_TOTAL_ID, 0, at))?;
        }
        let end = Stamp {
            core: 0,
            insns: m_insns,
            cycles: m_cycles,
            m_insns,
            m_cycles,
        };
        self.out
            .write_all(&record_bytes(END_ID, self.status, end))?;
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

    /// The one declaration of this format (tests/unit/test_format_contracts.py checks the
    /// host's reader against the same file).
    const DECL: &str = include_str!("../../formats/trace.toml");

    #[test]
    fn writes_the_declared_layout() {
        use crate::format_decl::{Value, constant, examples};
        assert_eq!(constant(DECL, "END_ID"), u64::from(END_ID));
        assert_eq!(constant(DECL, "CORE_TOTAL_ID"), u64::from(CORE_TOTAL_ID));
        assert_eq!(
            constant(DECL, "FLAG_CYCLES_MODELLED"),
            u64::from(FLAG_CYCLES_MODELLED)
        );
        assert_eq!(
            constant(DECL, "STATUS_RECORD_LIMIT"),
            u64::from(STATUS_RECORD_LIMIT)
        );
        assert_eq!(
            constant(DECL, "STATUS_INSN_LIMIT"),
            u64::from(STATUS_INSN_LIMIT)
        );
        assert_eq!(
            constant(DECL, "STATUS_UNALIGNED"),
            u64::from(STATUS_UNALIGNED)
        );
        let mut seen = 0;
        for ex in examples(DECL).iter().filter(|e| e.layout == VERSION) {
            let v = &ex.values;
            let bytes: Vec<u8> = match ex.part.as_str() {
                "header" => {
                    assert_eq!(
                        v[0],
                        Value::Text(String::from_utf8(MAGIC.to_vec()).unwrap())
                    );
                    assert_eq!(
                        (v[1].int(), v[2].int()),
                        (u64::from(VERSION), RECORD_SIZE as u64)
                    );
                    let i = |k: usize| v[k].int() as u32;
                    header_bytes(i(3), i(4), i(5), i(6)).to_vec()
                }
                _ => {
                    let stamp = Stamp {
                        core: v[1].int() as u16,
                        insns: v[3].int(),
                        cycles: v[4].int(),
                        m_insns: v[5].int(),
                        m_cycles: v[6].int(),
                    };
                    record_bytes(v[0].int() as u32, v[2].int() as u16, stamp).to_vec()
                }
            };
            assert_eq!(bytes, ex.bytes, "{} example {v:?}", ex.part);
            seen += 1;
        }
        assert!(
            seen >= 2,
            "the declaration has a header and a record example"
        );
    }

    fn u16_at(b: &[u8], off: usize) -> u16 {
        u16::from_le_bytes(b[off..off + 2].try_into().unwrap())
    }
    fn u32_at(b: &[u8], off: usize) -> u32 {
        u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
    }
    fn u64_at(b: &[u8], off: usize) -> u64 {
        u64::from_le_bytes(b[off..off + 8].try_into().unwrap())
    }

    #[test]
    fn header_layout() {
        let h = header_bytes(0x2100_0000, 0x4000, 0, 1);
        assert_eq!(h.len(), 32);
        assert_eq!(&h[0..8], b"RTLTRACE");
        assert_eq!(u32_at(&h, 8), 2, "version");
        assert_eq!(u32_at(&h, 12), 40, "record size");
        assert_eq!(u32_at(&h, 16), 0x2100_0000, "base");
        assert_eq!(u32_at(&h, 20), 0x4000, "size");
        assert_eq!(u32_at(&h, 24), 0, "flags");
        assert_eq!(u32_at(&h, 28), 1, "cores");
        // Exact bytes, little-endian.
        assert_eq!(
            h,
            [
                b'R', b'T', b'L', b'T', b'R', b'A', b'C', b'E', 2, 0, 0, 0, 40, 0, 0, 0, 0, 0, 0,
                0x21, 0, 0x40, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0
            ]
        );
        assert_eq!(u32_at(&header_bytes(1, 2, FLAG_CYCLES_MODELLED, 2), 24), 1);
        assert_eq!(u32_at(&header_bytes(1, 2, 0, 2), 28), 2);
    }

    #[test]
    fn record_layout() {
        let at = Stamp {
            core: 1,
            insns: 0x0102_0304_0506_0708,
            cycles: 0x1112_1314_1516_1718,
            m_insns: 0x2122_2324_2526_2728,
            m_cycles: 0x3132_3334_3536_3738,
        };
        let r = record_bytes(7, 0, at);
        assert_eq!(r.len(), 40);
        assert_eq!(
            r,
            [
                7, 0, 0, 0, 1, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1, 0x18, 0x17, 0x16, 0x15, 0x14, 0x13,
                0x12, 0x11, 0x28, 0x27, 0x26, 0x25, 0x24, 0x23, 0x22, 0x21, 0x38, 0x37, 0x36, 0x35,
                0x34, 0x33, 0x32, 0x31
            ]
        );
        let e = record_bytes(END_ID, 5, Stamp::single(42, 0));
        assert_eq!(u32_at(&e, 0), 0xFFFF_FFFF);
        assert_eq!(u16_at(&e, 4), 0, "core");
        assert_eq!(u16_at(&e, 6), 5, "status");
        assert_eq!(u64_at(&e, 8), 42);
        assert_eq!(u64_at(&e, 16), 0);
        assert_eq!(u64_at(&e, 24), 42, "single core: machine = core");
    }

    #[test]
    fn writer_file_layout() {
        let mut w = TraceWriter::new(Vec::new(), 0x2100_0000, 0x4000, 0, 1, 10).unwrap();
        w.hit(0, Stamp::single(2, 0)).unwrap();
        w.hit(1, Stamp::single(5, 0)).unwrap();
        assert!(w.finish(0, &[(9, 0)]).unwrap());
        assert!(
            !w.finish(STATUS_INSN_LIMIT, &[(99, 0)]).unwrap(),
            "second finish is a no-op"
        );
        w.hit(3, Stamp::single(100, 0)).unwrap(); // after finish: ignored
        let b = w.get_ref();
        assert_eq!(b.len(), HEADER_SIZE + 4 * RECORD_SIZE);
        assert_eq!(&b[0..8], MAGIC);
        // record 0 at offset 32, record 1 at 72, core total at 112, end record at 152
        assert_eq!(u32_at(b, 32), 0);
        assert_eq!(u32_at(b, 36), 0);
        assert_eq!(u64_at(b, 40), 2);
        assert_eq!(u64_at(b, 48), 0);
        assert_eq!(u64_at(b, 56), 2);
        assert_eq!(u32_at(b, 72), 1);
        assert_eq!(u64_at(b, 80), 5);
        assert_eq!(u32_at(b, 112), CORE_TOTAL_ID);
        assert_eq!(u64_at(b, 120), 9);
        assert_eq!(u32_at(b, 152), END_ID);
        assert_eq!(u32_at(b, 156), 0);
        assert_eq!(u64_at(b, 160), 9);
    }

    #[test]
    fn two_cores_end_with_per_core_totals_and_machine_sum() {
        let mut w = TraceWriter::new(Vec::new(), 0, 16, FLAG_CYCLES_MODELLED, 2, 10).unwrap();
        let at = Stamp {
            core: 1,
            insns: 3,
            cycles: 4,
            m_insns: 10,
            m_cycles: 12,
        };
        w.hit(2, at).unwrap();
        w.finish(0, &[(100, 150), (20, 30)]).unwrap();
        let b = w.get_ref();
        assert_eq!(b.len(), HEADER_SIZE + 4 * RECORD_SIZE);
        assert_eq!(u16_at(b, 36), 1, "the hit's core");
        assert_eq!(u64_at(b, 56), 10);
        assert_eq!(u64_at(b, 64), 12);
        let r = 72;
        assert_eq!((u32_at(b, r), u16_at(b, r + 4)), (CORE_TOTAL_ID, 0));
        assert_eq!((u64_at(b, r + 8), u64_at(b, r + 16)), (100, 150));
        let r = 112;
        assert_eq!((u32_at(b, r), u16_at(b, r + 4)), (CORE_TOTAL_ID, 1));
        assert_eq!((u64_at(b, r + 8), u64_at(b, r + 16)), (20, 30));
        assert_eq!((u64_at(b, r + 24), u64_at(b, r + 32)), (120, 180));
        let r = 152;
        assert_eq!(u32_at(b, r), END_ID);
        assert_eq!(
            (u64_at(b, r + 8), u64_at(b, r + 16)),
            (120, 180),
            "machine totals"
        );
    }

    #[test]
    fn record_limit_drops_and_flags() {
        let mut w = TraceWriter::new(Vec::new(), 0, 16, 0, 1, 2).unwrap();
        for i in 0..5 {
            w.hit(i, Stamp::single(u64::from(i), 0)).unwrap();
        }
        assert_eq!(w.hits(), 2);
        assert_eq!(w.status(), STATUS_RECORD_LIMIT);
        w.set_status(STATUS_UNALIGNED);
        w.finish(STATUS_INSN_LIMIT, &[(77, 0)]).unwrap();
        let b = w.get_ref();
        assert_eq!(b.len(), HEADER_SIZE + 4 * RECORD_SIZE);
        let end = 32 + 3 * 40;
        assert_eq!(u32_at(b, end), END_ID);
        assert_eq!(u16_at(b, end + 6), 0b111);
        assert_eq!(u64_at(b, end + 8), 77);
    }

    #[test]
    fn record_limit_exactly_reached_is_not_flagged() {
        let mut w = TraceWriter::new(Vec::new(), 0, 16, 0, 1, 2).unwrap();
        w.hit(0, Stamp::single(1, 0)).unwrap();
        w.hit(1, Stamp::single(2, 0)).unwrap();
        assert_eq!(w.status(), 0, "nothing dropped yet");
    }
}
