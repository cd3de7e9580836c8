//! The machine's shared clock (docs/timing-model.md, "Two cores"): every core's guest
//! instructions and modelled cycles summed. Written once here; the trace's hits, the
//! event file's events and both files' end records take it from these functions.
//!
//! The cores run in turn on one thread, so when a core is at a point of interest the
//! others are stopped: the clock there is that core's counts at the point plus the
//! others' counts now. All sums wrap, as the counters do (a negative correction is
//! added as two's complement).

/// A core's counts: (guest instructions, modelled cycles).
pub type Counts = (u64, u64);

/// The shared clock at a point of core `core`, whose own counts there are `own`; `all`
/// holds every started core's counts now, in core order (`all[core]` is not used: the
/// point may lie before the core's current counts).
pub fn at_point(core: usize, own: Counts, all: &[Counts]) -> Counts {
    all.iter()
        .enumerate()
        .filter(|&(v, _)| v != core)
        .fold(own, |(i, c), (_, &(oi, oc))| {
            (i.wrapping_add(oi), c.wrapping_add(oc))
        })
}

/// The machine's totals: every core's counts summed.
pub fn total(all: &[Counts]) -> Counts {
    all.iter().fold((0, 0), |(i, c), &(oi, oc)| {
        (i.wrapping_add(oi), c.wrapping_add(oc))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_core_is_its_own_clock() {
        assert_eq!(at_point(0, (10, 25), &[(11, 30)]), (10, 25));
        assert_eq!(at_point(0, (10, 25), &[]), (10, 25));
        assert_eq!(total(&[(11, 30)]), (11, 30));
    }

    #[test]
    fn other_cores_add_their_counts_now() {
        let all = [(100, 300), (40, 90), (7, 8)];
        // core 1 at a probe before its current counts: its own point, the others' now
        assert_eq!(at_point(1, (35, 80), &all), (35 + 100 + 7, 80 + 300 + 8));
        assert_eq!(at_point(0, (99, 299), &all), (99 + 40 + 7, 299 + 90 + 8));
        assert_eq!(total(&all), (147, 398));
        // a core past the end of `all` (not started yet) adds everything else
        assert_eq!(at_point(3, (1, 1), &all), (148, 399));
    }

    #[test]
    fn sums_wrap_like_the_counters() {
        let all = [(u64::MAX, 5), (2, u64::MAX)];
        assert_eq!(total(&all), (1, 4));
        assert_eq!(at_point(0, (3, 3), &all), (5, 2));
    }
}
