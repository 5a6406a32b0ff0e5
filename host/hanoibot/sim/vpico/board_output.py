"""What a host reads of the virtual Pico besides its frames: the board's own tracebacks, and its emulated time as a
clock.

:func:`last_traceback` finds the latest whole traceback MicroPython printed (a firmware exception), which
:class:`BoardTraceback` carries; :class:`ChipClock` is a driven virtual Pico's emulated time as the host's
:class:`~hanoibot.clock.Clock`.
"""

from __future__ import annotations

from typing import Protocol

from ...errors import HanoiError

TRACEBACK_HEADER = "Traceback (most recent call last):"


def last_traceback(text: str) -> str | None:
    """The latest whole traceback in the board's output ``text`` (its lines joined by newlines), or None.

    A traceback ends with its exception line: the first line after the header that is not indented; the last
    piece of ``text`` may be a line still arriving, so it never counts as that line.
    """
    start = text.rfind(TRACEBACK_HEADER)
    if start < 0:
        return None
    block = text[start:]
    lines = block.split("\r\n") if "\r\n" in block else block.split("\n")
    for index in range(1, len(lines) - 1):
        if lines[index] and not lines[index].startswith(" "):
            return "\n".join(lines[: index + 1])
    return None


class BoardTraceback(HanoiError, RuntimeError):
    """The firmware raised an exception on the virtual Pico; the message ends with the board's own traceback."""

    def __init__(self, traceback: str) -> None:
        super().__init__(f"the firmware on the virtual Pico raised an exception:\n{traceback}")
        self.traceback = traceback


class DrivenChip(Protocol):
    """A virtual Pico that runs only as far as it is asked (a driven VirtualPico, or its remote end)."""

    time_s: float

    def run_until(self, t_s: float, *, stop_on_output: bool = False) -> None: ...


class ChipClock:
    """The emulated time of a driven virtual Pico as the host's clock (:class:`~hanoibot.clock.Clock`):
    :meth:`now_s` is where the chip stands, :meth:`sleep` runs it on."""

    def __init__(self, pico: DrivenChip) -> None:
        self._pico = pico

    def now_s(self) -> float:
        """The chip's emulated time, in s since it was powered up."""
        return self._pico.time_s

    def sleep(self, duration_s: float) -> None:
        """Run the chip (and its world) ``duration_s`` s on."""
        if duration_s > 0:
            self._pico.run_until(self._pico.time_s + duration_s)
