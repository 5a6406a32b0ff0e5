"""Test bodies shared by the link tests over sim://, over a pty to ``hanoibot emulate``, on the virtual Pico
(``vpico://``) and on a real board.

Each body takes an open :class:`~hanoibot.link.session.Session`, so the same code runs on every transport.
The MOVE targets walk a "snake" through (channel 0, channel 1): consecutive targets differ by exactly 1 µs on one
channel, so the interpolator cannot output any pose between them, and the servo history must list exactly the
targets, once each, in order — any lost, repeated or reordered MOVE shows up as a wrong pose.
"""

from __future__ import annotations

from hanoibot.link.session import Session
from hanoibot.sim.servos import HistoryEntry
from hanoibot.sim.spawn import EmulatorProcess

CHANNELS = 5
MIN_US = (900,) * CHANNELS
MAX_US = (2100,) * CHANNELS
#: Duration of each MOVE in ms: two 10 ms control ticks. Steps are at most one tick apart, so when a MOVE ends
#: inside a step, the next one is less than half done at the end of that step; a 1 µs step rounds to the new
#: target only from half way, so every target is output for at least one step.
MOVE_MS = 20


def snake_pose_us(k: int) -> tuple[int, ...]:
    """The k-th target pose (k >= 0) in µs: channel 0 sweeps 1000..1999 up and down, channel 1 counts sweeps."""
    row, col = divmod(k, 1000)
    channel0_us = 1000 + (col if row % 2 == 0 else 999 - col)
    return (channel0_us, 1000 + row, 1500, 1500, 1500)


def configure_snake(session: Session) -> None:
    """CONFIG with the test limits, starting at snake pose 0."""
    session.configure(MIN_US, MAX_US, snake_pose_us(0))


def stream_snake(session: Session, count: int, *, first_cmd_id: int = 1, timeout_s: float = 600.0) -> None:
    """Send MOVEs ``first_cmd_id``.. to snake poses 1..count and wait until the last one is done."""
    for k in range(1, count + 1):
        session.send_move(first_cmd_id + k - 1, snake_pose_us(k), MOVE_MS)
    session.wait_done(first_cmd_id + count - 1, timeout_s=timeout_s)
    assert session.last_done_cmd == first_cmd_id + count - 1


def poses_from_history(history: list[HistoryEntry], channels: int = CHANNELS) -> list[tuple[int | None, ...]]:
    """Every distinct pose the servos were given once all of them were on, in order (channels set at the same
    instant form one pose; the board switches its outputs on one at a time after CONFIG)."""
    pose: list[int | None] = [None] * channels
    poses: list[tuple[int | None, ...]] = []
    for index, (t_s, channel, pulse_us) in enumerate(history):
        pose[channel] = pulse_us
        last_at_this_time = index + 1 == len(history) or history[index + 1][0] != t_s
        if last_at_this_time and None not in pose and (not poses or poses[-1] != tuple(pose)):
            poses.append(tuple(pose))
    return poses


def assert_snake_executed(history: list[HistoryEntry], count: int) -> None:
    """The servos went through snake poses 0..count exactly once each, in order, and never left the limits."""
    for _t_s, channel, pulse_us in history:
        assert pulse_us is not None, f"channel {channel} was released during the run"
        assert MIN_US[channel] <= pulse_us <= MAX_US[channel], f"pulse {pulse_us} µs outside the limits"
    poses = poses_from_history(history)
    expected = [snake_pose_us(k) for k in range(count + 1)]
    if poses != expected:
        pairs = zip(poses, expected, strict=False)
        first_bad = next((i for i, (got, want) in enumerate(pairs) if got != want), min(len(poses), len(expected)))
        raise AssertionError(
            f"{len(poses)} poses for {len(expected)} expected; first difference at {first_bad}:"
            f" {poses[first_bad : first_bad + 3]} vs {expected[first_bad : first_bad + 3]}"
        )


class Transport:
    """Where a link test runs, and what it can do there beyond the port URL."""

    def __init__(self, kind: str, url: str, emulator: EmulatorProcess | None = None) -> None:
        self.kind = kind
        self.url = url
        self.emulator = emulator

    def executed_cmd_ids(self, session: Session) -> list[int] | None:
        """Command ids the board executed, from the simulator or the emulator's log (None on a real board or vpico)."""
        if self.kind == "sim":
            return session.port.board.executed_cmd_ids()  # type: ignore[union-attr]
        if self.emulator is not None:
            return self.emulator.executed_cmd_ids()
        return None

    @property
    def can_replug(self) -> bool:
        """True where software can pull the cable and plug it back (the pty to an emulator process)."""
        return self.emulator is not None

    @property
    def can_power_cycle(self) -> bool:
        """True where software can reboot the board (sim:// and the emulator process; not the virtual Pico, whose
        chip only reboots by its watchdog, nor a real board)."""
        return self.kind == "sim" or self.emulator is not None

    def replug(self) -> bool:
        """Pull the cable and plug it back (pty only); False where that cannot be done by software."""
        if self.emulator is None:
            return False
        self.emulator.replug()
        return True

    def power_cycle(self, session: Session) -> bool:
        """Reboot the board under the session; False where :attr:`can_power_cycle` is."""
        if self.kind == "sim":
            session.port.board.reset("power")  # type: ignore[union-attr]
            return True
        if self.emulator is not None:
            self.emulator.power_cycle()
            return True
        return False

    def close(self) -> None:
        """Stop the emulator, if any."""
        if self.emulator is not None:
            self.emulator.close()


def open_transport(kind: str, *, hil_port: str | None = None) -> Transport:
    """A ready transport: ``sim`` (bare simulated board), ``pty`` (emulator process), ``vpico`` (the virtual Pico:
    stock MicroPython on an emulated RP2040, booted by the first open of its URL) or ``hil`` (real board)."""
    if kind == "sim":
        return Transport(kind, "sim://?world=0")
    if kind == "vpico":
        from vpico_checks import vpico_url

        return Transport(kind, vpico_url(world=0))  # on chip time: the bodies' link bounds hold on any machine
    if kind == "pty":
        emulator = EmulatorProcess("--no-world")
        emulator.start()
        return Transport(kind, emulator.port_path, emulator)
    assert hil_port is not None
    return Transport(kind, hil_port)
