"""What the sequencer needs of a link session: :class:`Link`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..clock import Clock
from ..link.status import Status


class Link(Protocol):
    """What the sequencer needs of a link session (:class:`~hanoibot.link.session.Session` fits; mypy checks it
    where the robot builds a sequencer). Pulses in µs per channel, durations in ms, timeouts in s."""

    @property
    def boot_id(self) -> str: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def last_sent_cmd(self) -> int: ...

    def open(self) -> None: ...

    def configure(
        self,
        min_us: Sequence[int],
        max_us: Sequence[int],
        start_us: Sequence[int],
        max_speeds_us_s: Sequence[int] | None = None,
        grip_threshold: int = 0,
    ) -> None: ...

    def send_move(
        self, cmd_id: int, pulses_us: Sequence[int], duration_ms: int, *, ramp_ms: int | None = None, blend_ms: int = 0
    ) -> None: ...

    def clear(self) -> None: ...

    def wait_done(self, cmd_id: int, timeout_s: float | None = None) -> None: ...

    def poll(self) -> None: ...

    def status(self) -> Status: ...

    def hold(self) -> None: ...

    def resume(self) -> None: ...

    def estop(self) -> None: ...
