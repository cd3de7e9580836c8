"""An experiment's report spec: what its reports need beyond the stored results (its name,
table layout, short axis names, baselines and [[report.table]] pivots).

`rtoslab run FILE` stores it with the run (column ``runs.report_spec``, JSON of schema
``rtoslab.report-spec/1``, docs/formats.md §8), so `show` prints a run as it was
reported, also when the file has moved or changed since. Plain values only: the store
holds the JSON text, renderers take a ``ReportSpec``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from rtoslab.records import RtoslabError, Unit
from rtoslab.report.pivot import FOOTPRINT_UNIT, SCALED_UNITS, PivotSpec

SCHEMA = "rtoslab.report-spec/1"

Match = tuple[tuple[str, object], ...]


@dataclass(frozen=True)
class ReportSpec:
    name: str
    rows: str = "benchmark"  # "benchmark" or "metric" ([report] rows)
    baselines: tuple[tuple[str, Match], ...] = ()  # (name, axis values) per [[baseline]]
    tables: tuple[PivotSpec, ...] = ()  # [[report.table]], in file order
    names: tuple[tuple[str, str], ...] = ()  # [report.names]
    question: str = ""  # the file's description: what its reports answer (HTML title line)

    def baseline_pairs(self) -> list[tuple[str, dict[str, object]]]:
        """The baselines as the comparison tables take them."""
        return [(name, dict(match)) for name, match in self.baselines]


def to_json(spec: ReportSpec) -> str:
    doc = {
        "schema": SCHEMA,
        "name": spec.name,
        "rows": spec.rows,
        "names": dict(spec.names),
        "baselines": [{"name": n, "match": [[k, v] for k, v in m]} for n, m in spec.baselines],
        "tables": [_table_doc(t) for t in spec.tables],
        "question": spec.question,
    }
    return json.dumps(doc, sort_keys=True, separators=(",", ":"))


def _table_doc(t: PivotSpec) -> dict[str, object]:
    return {"title": t.title, "rows": list(t.rows), "columns": list(t.columns),
            "metrics": list(t.metrics), "unit": str(t.unit.value if isinstance(t.unit, Unit) else t.unit),
            "stat": t.stat, "stats": list(t.stats), "where": dict(t.where),
            "ratio": list(t.ratio) if t.ratio else None, "names": dict(t.names), "chart": t.chart}


def from_json(text: str, where: str) -> ReportSpec:
    """The spec stored as ``text``; one line naming ``where`` if it is not one this
    version reads."""
    try:
        doc = json.loads(text)
        if not isinstance(doc, Mapping) or doc.get("schema") != SCHEMA:
            raise ValueError(f"schema {doc.get('schema') if isinstance(doc, Mapping) else None!r}")
        return ReportSpec(
            name=str(doc["name"]), rows=str(doc["rows"]),
            names=tuple(sorted((str(k), str(v)) for k, v in doc["names"].items())),
            baselines=tuple((str(b["name"]), tuple((str(k), v) for k, v in b["match"]))
                            for b in doc["baselines"]),
            tables=tuple(_table(t) for t in doc["tables"]),
            question=str(doc.get("question", "")))  # (absent in specs stored before it)
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise RtoslabError(f"{where}: its stored report spec is not {SCHEMA} ({err}): read it with "
                           "the rtoslab version that wrote it") from None


def _table(t: Mapping[str, object]) -> PivotSpec:
    unit: Unit | str = str(t["unit"])
    if unit not in (*SCALED_UNITS, FOOTPRINT_UNIT):
        unit = Unit(unit)
    ratio = t["ratio"]
    return PivotSpec(
        title=str(t["title"]), rows=tuple(_strs(t["rows"])), columns=tuple(_strs(t["columns"])),
        metrics=tuple(_strs(t["metrics"])), unit=unit,
        stat=str(t["stat"]), stats=tuple(_strs(t["stats"])), where=dict(_mapping(t["where"])),
        ratio=(str(ratio[0]), str(ratio[1]), str(ratio[2])) if isinstance(ratio, list) else None,
        names={str(k): str(v) for k, v in _mapping(t["names"]).items()}, chart=str(t["chart"]))


def _strs(value: object) -> list[str]:
    if not isinstance(value, list):
        raise TypeError(f"expected a list, got {value!r}")
    return [str(v) for v in value]


def _mapping(value: object) -> Mapping[str, object]:
    if not isinstance(value, Mapping):
        raise TypeError(f"expected an object, got {value!r}")
    return value
