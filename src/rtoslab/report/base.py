"""The renderer interface and the registry of report formats."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from rtoslab.records import RtoslabError
from rtoslab.views import RunView


class Renderer(Protocol):
    """Turns one stored run into the text of one report format."""

    @property
    def name(self) -> str:
        """The format name users pass (``--format NAME``)."""
        ...

    @property
    def file_suffix(self) -> str:
        """File name suffix for a saved report, with the dot (``.json``)."""
        ...

    def render(self, view: RunView) -> str:
        """The whole report, ending in a newline."""
        ...


def _factories() -> dict[str, Callable[[], Renderer]]:
    # Imported here so that importing the interface does not import every renderer.
    from rtoslab.report.html import HtmlRenderer
    from rtoslab.report.json_report import JsonRenderer
    from rtoslab.report.markdown import MarkdownRenderer
    from rtoslab.report.terminal import TerminalRenderer

    return {
        "html": HtmlRenderer,  # without a sample loader: use report.html.render_html for histograms
        "json": JsonRenderer,
        "markdown": MarkdownRenderer,
        "terminal": TerminalRenderer,
    }


def renderer_names() -> tuple[str, ...]:
    return tuple(_factories())


def get_renderer(name: str) -> Renderer:
    """A renderer for format ``name``; an unknown name raises RtoslabError."""
    factory = _factories().get(name)
    if factory is None:
        raise RtoslabError(f"unknown report format {name!r}: use one of {', '.join(renderer_names())}")
    return factory()
