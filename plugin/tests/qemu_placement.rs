//! Placement independence: the cycles a snippet costs must not depend on where it sits
//! relative to a page boundary (docs/timing-model.md: translation-block boundaries never
//! show in cycles). tests/fixtures/placement_test.S holds each snippet at every halfword
//! offset across a 1 KiB page boundary (QEMU's translation page on M-profile: a block
//! ends there and a 32-bit instruction may straddle it).
//!
//! Known answer for snippet 0 (seven one-cycle data-processing instructions, [M3] Cortex-M3
//! TRM r2p1 Table 3-1: ADD, MOV, MOVW, NOP 1 cycle each): 7 cycles plus the probes' share
//! of 4 (tests/qemu_cycles.rs), wherever the boundary falls. Found by this test: QEMU 7.2
//! gave the plugin only the first halfword of an instruction straddling the page, which
//! then read as an undefined instruction and so as an exception entry (+12 cycles on M3).

mod common;

use common::*;

/// Copies of each snippet in the fixture (k = 0..COPIES: the boundary sweeps from before
/// the first probe to past the second).
const COPIES: u32 = 25;

/// Cycles between probe pair (2*(s*64+k), +1) for every copy k of snippet `s`.
fn per_copy(hits: &[Rec], s: u32) -> Vec<u64> {
    (0..COPIES)
        .map(|k| {
            let a = 2 * (s * 64 + k);
            let i = hits
                .iter()
                .position(|h| h.id == a)
                .unwrap_or_else(|| panic!("probe {a} (snippet {s}, copy {k}) not hit"));
            assert_eq!(hits[i + 1].id, a + 1, "snippet {s} copy {k}: pair order");
            hits[i + 1].cycles - hits[i].cycles
        })
        .collect()
}

#[test]
fn same_cycles_at_every_offset_across_a_page_boundary() {
    let Some(fx) = fixture("placement", "placement_test", &[]) else {
        return;
    };
    let insns = fx.trace("", true);
    for core in ["cortex-m3", "cortex-m4", "cortex-m0", "cortex-m0plus"] {
        let t = fx.trace(&format!("core={core}"), true);
        assert_eq!(t.end.status, 0, "{core}: end status");
        // The instruction counts never depended on placement; the check keeps the
        // fixture honest (each copy runs the same 3 + 7 + 3 instructions).
        let n: Vec<u64> = {
            let h = &insns.hits;
            (0..COPIES)
                .map(|k| {
                    let i = h.iter().position(|r| r.id == 2 * k).unwrap();
                    h[i + 1].insns - h[i].insns
                })
                .collect()
        };
        assert!(
            n.iter().all(|&x| x == 10),
            "{core}: instruction counts {n:?}"
        );
        let mut bad = Vec::new();
        for s in 0..2 {
            let c = per_copy(&t.hits, s);
            let want = c[0];
            for (k, &got) in c.iter().enumerate() {
                if got != want {
                    bad.push(format!(
                        "  {core} snippet {s}: {got} cycles with the boundary {} bytes into \
                         the copy, {want} with none",
                        2 * k
                    ));
                }
            }
        }
        assert!(
            bad.is_empty(),
            "placement changes cycles:\n{}",
            bad.join("\n")
        );
        if core == "cortex-m3" {
            assert_eq!(
                per_copy(&t.hits, 0)[0],
                7 + 4,
                "M3: seven one-cycle instructions plus the probes' share"
            );
        }
    }
}
