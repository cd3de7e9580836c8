"""Fixtures and hooks of every tier. `make test` runs the tiers together on two pytest-xdist
workers, a test file at a time per worker (`--dist loadfile`, so a module's shared fixtures
are built once): the files marked ``long`` (a serial chain of a minute or more: Rust
builds behind the one cargo target directory's lock, Ray clusters started and stopped) are
handed out first, so neither worker is left with one of them at the end
(docs/performance.md "Test time")."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Stable: the files marked `long` first (in their collection order), then the rest as
    # collected. Every worker collects and orders alike, as xdist requires.
    items.sort(key=lambda item: item.get_closest_marker("long") is None)
