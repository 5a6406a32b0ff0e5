"""A simulated USB bus adapter: a pseudo-terminal whose other end is a Feetech bus of simulated servos moving a
simulated arm, on the wall clock. What ``feetech://`` (:mod:`hanoibot.link.urlhandler.protocol_feetech`) drives
in the tests, as it drives a real adapter.

:class:`SimAdapter` opens a pty; a host opens its :attr:`~SimAdapter.device` (``feetech:///dev/pts/N``). A thread
reads what the host writes and puts it on :class:`~hanoibot.sim.bus.SimServoBus` at the wall time it came (the
servos act on each frame and answer after their Return Delay Time, byte for byte, as on a real bus); answers are
written back to the pty once the bus says they have arrived. Every :data:`TICK_S` the horns move (the servo model)
and the world (:class:`~hanoibot.sim.world.SimWorld`: arm, disks, grip) sees them; the world stops a horn as it
stops a simulated board's (a disk between the fingers, :meth:`~hanoibot.sim.world.SimWorld.block_joint`) and logs
picks, places, drops and collisions in :attr:`SimAdapter.events`: the judge of what the arm did. A USB adapter
switches the line's direction itself: the host hears no echo.

The adapter and its servos outlive any host that opens it (a host killed with ``kill -9``): the servos hold what
they were last told, as real ones do on their own power.
"""

from __future__ import annotations

import contextlib
import os
import pty
import select
import termios
import threading
import time
import tty
from collections.abc import Sequence
from typing import Any

from .bus import SimServoBus
from .world import SimWorld

#: How often the horns move and the world looks at them, in s.
TICK_S = 0.005
#: Longest the thread waits for the host's bytes before it looks at the bus again, in s.
POLL_S = 0.0005


class SimAdapter:
    """A pty with the servos ``ids`` (one per channel, the gripper last) of ``world``'s arm behind it (module
    doc). A context manager: :meth:`close` stops the thread and closes the pty."""

    def __init__(self, world: SimWorld, ids: Sequence[int] | None = None, *, delay_us: float | None = None) -> None:
        channels = world.config.channels
        ids = tuple(ids) if ids is not None else tuple(range(1, channels + 1))
        self.world = world
        self.events: list[dict[str, Any]] = world.events
        self._origin_s = time.monotonic()
        self.bus = SimServoBus(
            ids,
            now_s=self.now_s,
            traits=world.servo_traits,
            start_us=list(world.config.start_pulses_us()),
            echo=False,
            delay_us=delay_us,
            stop_us=world.servo_stop_us,
        )
        if world.servo_traits is None:  # plain servos at the world's speeds
            for servo, speed in zip(self.bus.servos, world.max_speed_us_per_s, strict=True):
                servo.traits = servo.traits._replace(max_speed_us_s=speed)
        self._master, slave = pty.openpty()
        tty.setraw(slave)
        attrs = termios.tcgetattr(slave)
        attrs[3] &= ~termios.ECHO
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
        self.device = os.ttyname(slave)
        self._slave = slave  # kept open: the pty lives while a host comes and goes
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="simulated bus adapter", daemon=True)
        self._thread.start()

    def now_s(self) -> float:
        """The adapter's time: wall-clock seconds since it was made."""
        return time.monotonic() - self._origin_s

    @property
    def lock(self) -> threading.Lock:
        """Held while the thread moves the servos and the world: take it to change them from another thread."""
        return self._lock

    def _serve(self) -> None:
        master = self._master
        next_tick_s = self.now_s()
        while not self._stop.is_set():
            readable, _, _ = select.select([master], [], [], POLL_S)
            with self._lock:
                now_s = self.now_s()
                if readable:
                    try:
                        data = os.read(master, 4096)
                    except OSError:  # no host has the other end open just now
                        data = b""
                    if data:
                        self.bus.write(data, now_s)
                answer = self.bus.read(4096, now_s)
                if answer:
                    os.write(master, answer)
                if now_s >= next_tick_s:
                    self.bus.settle(now_s)
                    self.world.on_tick(now_s, [None if p is None else round(p) for p in self.bus.positions_us()])
                    next_tick_s = now_s + TICK_S

    def close(self) -> None:
        """Stop the thread and close the pty."""
        self._stop.set()
        self._thread.join(timeout=2.0)
        for fd in (self._master, self._slave):
            with contextlib.suppress(OSError):
                os.close(fd)

    def __enter__(self) -> SimAdapter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
