"""Probe-cost calibration and subtraction (docs/formats.md §4)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rtoslab.analysis.pairing import pair_samples
from rtoslab.records import Hit, PairMeta, RtoslabError, Sample


def find_calibration_pair(metas: Iterable[PairMeta]) -> PairMeta:
    """The single pair flagged as calibration pair."""
    found = [meta for meta in metas if meta.is_calibration]
    if not found:
        raise RtoslabError(
            "probe metadata has no calibration pair (flag bit 0): build the firmware "
            "with the rtoslab harness, which runs the calibration before the benchmark"
        )
    if len(found) > 1:
        names = ", ".join(f"'{meta.name}'" for meta in found)
        raise RtoslabError(
            f"probe metadata has {len(found)} calibration pairs ({names}): "
            "only the harness may declare one"
        )
    return found[0]


def calibrate(hits: Sequence[Hit], metas: Iterable[PairMeta], *, complete: bool = True) -> Sample:
    """The probe cost: the value every calibration sample measured.

    All calibration samples must be equal in instructions and in cycles. ``complete`` is
    passed to :func:`pair_samples`.
    """
    pair = find_calibration_pair(metas)
    samples = pair_samples(hits, pair, complete=complete)
    if not samples:
        raise RtoslabError(
            f"calibration pair '{pair.name}' has no samples: the firmware never ran its "
            f"calibration (probes {pair.start_id} -> {pair.end_id}); check the harness start-up"
        )
    first = samples[0]
    for index, sample in enumerate(samples):
        if sample != first:
            raise RtoslabError(
                f"calibration unstable: calibration pair '{pair.name}' sample {index} is "
                f"{sample.insns} insns / {sample.cycles} cycles but sample 0 is "
                f"{first.insns} insns / {first.cycles} cycles; the probe cost must be "
                "constant: check that nothing (interrupts, the cycle model) interferes with "
                "the calibration loop"
            )
    return first


def subtract(samples: Iterable[Sample], cost: Sample, *, metric: str | None = None,
             slack: int = 0) -> list[Sample]:
    """``samples`` minus the probe ``cost``; ``metric`` names them in error messages.

    A negative result is an error: a sample cannot cost less than the probes bounding it,
    so the probe cost model is wrong. ``slack``: cycles a sample may fall below the cost and
    be kept as a negative figure (a board's buffer probe: its clock read sits inside a
    pipeline whose overlap with the code before it varies by a cycle or two; docs/boards.md,
    "Probe cost").
    """
    prefix = f"metric '{metric}': " if metric is not None else ""
    result: list[Sample] = []
    for index, sample in enumerate(samples):
        insns = sample.insns - cost.insns
        cycles = sample.cycles - cost.cycles
        if insns < 0 or cycles < -slack:
            raise RtoslabError(
                f"{prefix}sample {index} ({sample.insns} insns / {sample.cycles} cycles) is "
                f"smaller than the probe cost ({cost.insns} insns / {cost.cycles} cycles): "
                "the probe cost model is wrong; check that every probe is the fixed "
                "three-instruction sequence and that the probes are not reordered"
            )
        result.append(Sample(insns=insns, cycles=cycles))
    return result
