"""rtoslab.report: render a stored run (``RunView``) as JSON, Markdown or a terminal table."""

from rtoslab.report.base import Renderer, get_renderer, renderer_names
from rtoslab.report.json_report import SCHEMA, JsonRenderer, run_document
from rtoslab.report.markdown import MarkdownRenderer
from rtoslab.report.terminal import TerminalRenderer, run_renderables

__all__ = [
    "SCHEMA",
    "JsonRenderer",
    "MarkdownRenderer",
    "Renderer",
    "TerminalRenderer",
    "get_renderer",
    "renderer_names",
    "run_document",
    "run_renderables",
]
