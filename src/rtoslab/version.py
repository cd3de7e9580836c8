"""The rtoslab version (one home; ``rtoslab.__version__`` re-exports it)."""

__version__ = "0.1.0"
