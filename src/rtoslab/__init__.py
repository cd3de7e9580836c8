"""rtoslab: reproducible RTOS and execution-model measurements on emulated Cortex-M cores."""

__version__ = "0.1.0"
