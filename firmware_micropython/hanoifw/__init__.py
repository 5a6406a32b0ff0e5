"""hanoifw: the I/O-free firmware core of hanoibot, shared by the board (MicroPython) and the host (CPython).

The host imports :mod:`hanoifw.protocol` (the one codec) and the simulator runs :mod:`hanoifw.controller`, so the
code that is tested is the code that goes on the board. Everything here must run on MicroPython: no dataclasses,
enum, typing at runtime, pathlib or logging.
"""

FW_VERSION = "0.1.0"
