//! Exception event file, versions 1 and 2 (docs/timeline.md, "Event file"): writer.
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
//!
//! Version 2 (written only on a machine with more than one vCPU; a single-vCPU machine
//! still gets version 1, byte for byte): record size 40, the version 1 fields followed by
//! the machine's shared clock at the event, m_insns u64 and m_cycles u64 (every core's
//! counts summed, as in trace format v2: docs/timing-model.md, "Two cores"). The end
//! record repeats the totals there.

use std::io::{self, Write};

pub const MAGIC: &[u8; 8] = b"RTLEVENT";
pub const VERSION: u32 = 1;
pub const HEADER_SIZE: usize = 32;
pub const RECORD_SIZE: usize = 24;
/// Version 2 (several vCPUs): each record adds the shared clock.
pub const VERSION_MULTI: u32 = 2;
pub const RECORD_SIZE_MULTI: usize = 40;

pub const KIND_ENTRY: u16 = 1;
pub const KIND_RETURN: u16 = 2;
pub const KIND_TAIL_CHAIN: u16 = 3;
pub const KIND_END: u16 = 0xFFFF;

/// End-record status bit 0: the cap was reached; later events were dropped.
pub const STATUS_CAPPED: u32 = 1;

/// Events kept per run (24 MB of file at most); the host keeps a window of them anyway.
pub const MAX_EVENTS: u64 = 1_000_000;

/// Encode the header (`multi`: version 2, the several-vCPU layout).
pub fn header_bytes(flags: u32, multi: bool) -> [u8; HEADER_SIZE] {
    let (version, size) = if multi {
        (VERSION_MULTI, RECORD_SIZE_MULTI)
    } else {
        (VERSION, RECORD_SIZE)
    };
    let mut h = [0u8; HEADER_SIZE];
    h[0..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&version.to_le_bytes());
    h[12..16].copy_from_slice(&(size as u32).to_le_bytes());
    h[16..20].copy_from_slice(&flags.to_le_bytes());
    h
}

/// Encode one record in the version 2 layout (version 1 is its first `RECORD_SIZE`
/// bytes): `shared` is the machine's (insns, cycles) at the event.
pub fn record_bytes(
    kind: u16,
    core: u16,
    pc: u32,
    insns: u64,
    cycles: u64,
    shared: (u64, u64),
) -> [u8; RECORD_SIZE_MULTI] {
    let mut r = [0u8; RECORD_SIZE_MULTI];
    r[0..2].copy_from_slice(&kind.to_le_bytes());
    r[2..4].copy_from_slice(&core.to_le_bytes());
    r[4..8].copy_from_slice(&pc.to_le_bytes());
    r[8..16].copy_from_slice(&insns.to_le_bytes());
    r[16..24].copy_from_slice(&cycles.to_le_bytes());
    r[24..32].copy_from_slice(&shared.0.to_le_bytes());
    r[32..40].copy_from_slice(&shared.1.to_le_bytes());
    r
}

/// Buffered event writer with a cap (`max`); `finish` writes the end record once.
pub struct EventWriter<W: Write> {
    out: W,
    max: u64,
    n: u64,
    status: u32,
    finished: bool,
    /// Bytes per record: `RECORD_SIZE` (version 1) or `RECORD_SIZE_MULTI` (version 2).
    size: usize,
}

impl<W: Write> EventWriter<W> {
    /// `multi`: the machine has more than one vCPU (version 2, with the shared clock).
    pub fn new(mut out: W, flags: u32, max: u64, multi: bool) -> io::Result<Self> {
        out.write_all(&header_bytes(flags, multi))?;
        Ok(EventWriter {
            out,
            max,
            n: 0,
            status: 0,
            finished: false,
            size: if multi {
                RECORD_SIZE_MULTI
            } else {
                RECORD_SIZE
            },
        })
    }

    /// Append an event, or drop it (status bit 0) once the cap is reached. `shared`: the
    /// machine's clock at the event (written in version 2 only).
    pub fn event(
        &mut self,
        kind: u16,
        core: u16,
        pc: u32,
        insns: u64,
        cycles: u64,
        shared: (u64, u64),
    ) -> io::Result<()> {
        if self.finished {
            return Ok(());
        }
        if self.n >= self.max {
            self.status |= STATUS_CAPPED;
            return Ok(());
        }
        self.n += 1;
        self.out
            .write_all(&record_bytes(kind, core, pc, insns, cycles, shared)[..self.size])
    }

    /// Write the end record and flush; only the first call writes.
    pub fn finish(&mut self, insns: u64, cycles: u64) -> io::Result<()> {
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        let end = record_bytes(KIND_END, 0, self.status, insns, cycles, (insns, cycles));
        self.out.write_all(&end[..self.size])?;
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

    /// The one declaration of this format (tests/unit/test_format_contracts.py checks the
    /// host's reader against the same file).
    const DECL: &str = include_str!("../../formats/events.toml");

    #[test]
    fn writes_the_declared_layout() {
        use crate::format_decl::{Value, constant, examples};
        assert_eq!(constant(DECL, "KIND_ENTRY"), u64::from(KIND_ENTRY));
        assert_eq!(constant(DECL, "KIND_RETURN"), u64::from(KIND_RETURN));
        assert_eq!(
            constant(DECL, "KIND_TAIL_CHAIN"),
            u64::from(KIND_TAIL_CHAIN)
        );
        assert_eq!(constant(DECL, "KIND_END"), u64::from(KIND_END));
        assert_eq!(constant(DECL, "STATUS_CAPPED"), u64::from(STATUS_CAPPED));
        let mut seen = 0;
        for ex in examples(DECL) {
            let multi = match ex.layout {
                1 => false,
                2 => true,
                other => panic!("the plugin writes versions 1 and 2, not {other}"),
            };
            let v = &ex.values;
            let bytes: Vec<u8> = match ex.part.as_str() {
                "header" => {
                    assert_eq!(
                        v[0],
                        Value::Text(String::from_utf8(MAGIC.to_vec()).unwrap())
                    );
                    let h = header_bytes(v[3].int() as u32, multi);
                    assert_eq!(v[1].int(), u64::from(ex.layout));
                    assert_eq!(
                        u32::from_le_bytes(h[12..16].try_into().unwrap()) as u64,
                        v[2].int()
                    );
                    h.to_vec()
                }
                _ => {
                    let shared = if multi {
                        (v[5].int(), v[6].int())
                    } else {
                        (v[3].int(), v[4].int())
                    };
                    let r = record_bytes(
                        v[0].int() as u16,
                        v[1].int() as u16,
                        v[2].int() as u32,
                        v[3].int(),
                        v[4].int(),
                        shared,
                    );
                    r[..if multi {
                        RECORD_SIZE_MULTI
                    } else {
                        RECORD_SIZE
                    }]
                        .to_vec()
                }
            };
            assert_eq!(
                bytes, ex.bytes,
                "version {} {} example {v:?}",
                ex.layout, ex.part
            );
            seen += 1;
        }
        assert!(
            seen >= 4,
            "the declaration has a header and a record example per version"
        );
    }

    #[test]
    fn layout_and_cap() {
        let mut w = EventWriter::new(Vec::new(), 1, 2, false).unwrap();
        w.event(KIND_ENTRY, 0, 0x1234, 10, 20, (10, 20)).unwrap();
        w.event(KIND_RETURN, 1, 0x5678, 30, 40, (30, 40)).unwrap();
        w.event(KIND_TAIL_CHAIN, 0, 0x9, 50, 60, (50, 60)).unwrap(); // over the cap: dropped
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

    #[test]
    fn version_2_adds_the_shared_clock() {
        let mut w = EventWriter::new(Vec::new(), 1, 10, true).unwrap();
        w.event(KIND_ENTRY, 1, 0x1234, 10, 20, (70, 90)).unwrap();
        w.finish(99, 199).unwrap();
        let b = w.get_ref();
        assert_eq!(b.len(), HEADER_SIZE + 2 * RECORD_SIZE_MULTI);
        assert_eq!(
            &b[8..16],
            &[2, 0, 0, 0, 40, 0, 0, 0],
            "version 2, 40-byte records"
        );
        assert_eq!(&b[32..36], &[1, 0, 1, 0], "kind 1 on core 1");
        let u = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
        assert_eq!((u(40), u(48), u(56), u(64)), (10, 20, 70, 90));
        let end = 32 + RECORD_SIZE_MULTI;
        assert_eq!(&b[end..end + 2], &[0xFF, 0xFF]);
        assert_eq!(
            (u(end + 8), u(end + 16), u(end + 24), u(end + 32)),
            (99, 199, 99, 199)
        );
    }
}
