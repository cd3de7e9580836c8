"""The layers of src/rtoslab, read from the source (ast): imports go one way.

- no import cycles between rtoslab's modules;
- nothing under rtoslab.report imports rtoslab.store (renderers take plain values; the
  CLI loads them), rtoslab.cli, rtoslab.catalog or rtoslab.timing (a stored run is drawn
  from what was stored with it, never from today's port.toml, target.toml or plugin);
- rtoslab.records (the values every stage passes on) imports nothing else from rtoslab.

Every import counts, also one inside a function or under ``if TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = "rtoslab"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted((SRC / PACKAGE).rglob("*.py"))}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """rtoslab modules that ``name`` imports (``from pkg import mod`` counts as ``pkg.mod``
    when that is a module, else as ``pkg``)."""
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in known else module
                       for a in node.names]
        else:
            continue
        for target in targets:
            if target == PACKAGE or target.startswith(PACKAGE + "."):
                # The closest module that exists (``rtoslab.x.Name`` -> ``rtoslab.x``).
                while target not in known and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target != name:
                    out.add(target)
    return out


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _imports(name, path, known) for name, path in modules.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a list of modules (first == last), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)) is not None:
            return found
    return None


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_graph_is_read() -> None:
    graph = import_graph()
    # Sanity: the reader sees the imports it is meant to judge.
    assert "rtoslab.records" in graph["rtoslab.views"]
    assert "rtoslab.report.comparison.table" in graph["rtoslab.report.html"]
    assert "rtoslab.store.db" in graph["rtoslab.cli.common"]


def test_no_import_cycles() -> None:
    cycle = _cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


@pytest.mark.parametrize("forbidden", ["rtoslab.store", "rtoslab.cli", "rtoslab.pipeline",
                                       "rtoslab.catalog", "rtoslab.timing"])
def test_report_does_not_reach_back(forbidden: str) -> None:
    bad = sorted(f"{m} imports {t}" for m, targets in import_graph().items() if _within(m, "rtoslab.report")
                 for t in targets if _within(t, forbidden))
    assert bad == []


def test_records_import_nothing_else_from_rtoslab() -> None:
    assert import_graph()["rtoslab.records"] == set()


def test_cycle_finder_finds_one() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
