"""The robot facade: one link session to a board plus the robot config that turns moves into segments.

``Robot`` is what the commands and the pytest fixtures hold: it opens the port (any pyserial URL, ``sim://`` by
default; the program offers the simulator's schemes, :mod:`hanoibot.link.port_schemes`), knows whether the board is
simulated (the port says so), and builds a :class:`~hanoibot.run.sequencer.Sequencer` wired to the
config's segments, home pose, pulse limits and grip sensor.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Self

from ..clock import Clock
from ..config import RobotConfig, load_config
from ..errors import ConfigError, LinkTimeout
from ..link.board_port import SimulatorView
from ..link.session import Session
from ..link.status import Grip
from ..motion.phases import MotionPhase
from ..puzzle import Move, State
from .board_check import board_mismatches
from .journal import Journal
from .pose_check import PoseCheck
from .sequencer import Sequencer


class Robot:
    """A servo arm behind ``port_url`` described by ``config``; a context manager (``close()`` closes the link).

    The link is opened by :meth:`open` (or by the sequencer's ``connect``); ``session`` is the
    :class:`~hanoibot.link.session.Session`.
    """

    def __init__(
        self, port_url: str = "sim://", config: RobotConfig | None = None, *, clock: Clock | None = None
    ) -> None:
        self.port_url = port_url
        self.config = config if config is not None else load_config()
        self.session = Session(port_url, clock=clock)
        self.is_open = False
        #: How the config does not fit the board that answered (filled by ``open(diagnostic=True)``).
        self.mismatches: list[str] = []

    # --- link ---------------------------------------------------------------------------------------
    def open(self, *, diagnostic: bool = False) -> None:
        """Open the port and shake hands; PortError / ProtocolMismatch / ConfigError before anything moves.

        ``diagnostic`` (``hanoibot status``): a board that does not fit the config is kept open, and how it
        differs is in :attr:`mismatches`, instead of a ConfigError.
        """
        if self.is_open:
            return
        try:
            self.session.open()
        except LinkTimeout as err:
            if self.session.hello is not None:
                raise
            # Nothing there ever said HELLO: most often a board without hanoibot's firmware on it yet.
            raise LinkTimeout(
                f"{err}; a new or blank board needs the firmware first: hanoibot deploy --port {self.port_url}"
            ) from err
        self.is_open = True
        channels = self.session.channels
        if channels != self.config.channels:
            self.close()
            raise ConfigError(
                f"the board on {self.port_url} drives {channels} servo channels but the robot config "
                f"needs {self.config.channels}: check the firmware build and the [servos] section"
            )
        hello = self.session.hello
        self.mismatches = board_mismatches(self.config, hello, self.port_url) if hello is not None else []
        if self.mismatches and not diagnostic:
            self.close()
            raise ConfigError(self.mismatches[0])

    @property
    def boot_id(self) -> str:
        """The boot id the board announced (changes when the board is reset)."""
        return self.session.boot_id

    @property
    def board_clock(self) -> Clock | None:
        """The simulated board's own (virtual) clock, which the session reads (``sim://``), else None."""
        face = self.session.board_port
        return None if face is None else face.clock

    @property
    def simulator(self) -> SimulatorView | None:
        """The simulated board behind the port (``sim://``, ``vpico://``), None for a real one or before opening:
        the port's own answer (:attr:`~hanoibot.link.board_port.BoardPort.simulator`) to "is it simulated?"."""
        face = self.session.board_port
        return None if face is None else face.simulator

    @property
    def is_simulated(self) -> bool:
        """True when a simulated board is behind the port (:attr:`simulator`)."""
        return self.simulator is not None

    @property
    def sim_board(self) -> Any:
        """The simulated board object behind the port (``sim://``: the SimBoard; ``vpico://``: the virtual Pico),
        None for a real one."""
        simulator = self.simulator
        return None if simulator is None else simulator.board

    # --- motion -------------------------------------------------------------------------------------
    def segments_for(
        self,
        state: State,
        move: Move,
        from_pulses_us: tuple[int, ...] | None = None,
        previous: Sequence[Any] = (),
    ) -> list[Any]:
        """The pick-and-place segments of ``move`` from ``state``, the arm starting at ``from_pulses_us``; with
        ``previous``, the segments of the move the arm runs straight on from, which the approach may blend into."""
        from ..motion.segments import segments_for_move

        return list(segments_for_move(self.config, state, move, from_pulses_us=from_pulses_us, previous=previous))

    def duration_between_ms(
        self, from_pulses_us: tuple[int, ...], to_pulses_us: tuple[int, ...], phase: MotionPhase | None = None
    ) -> int:
        """Time in ms the servos need to go from one pose to another at their speed limits: at the on-peg share of
        them (:func:`~hanoibot.motion.margins.on_peg_speed_ratio`) for a ``phase`` whose held disk slides along its
        peg."""
        from ..motion.margins import on_peg_speed_ratio
        from ..motion.timing import duration_ms

        on_peg = phase is not None and phase.slides_on_peg
        ratio = on_peg_speed_ratio(self.config) if on_peg else 1.0
        return duration_ms(self.config, from_pulses_us, to_pulses_us, speed_ratio=ratio)

    def limits(self) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...], int]:
        """The board's CONFIG: per-channel pulse limits and start pose (µs), top speeds (µs/s), grip threshold."""
        config = self.config
        speeds_us_s = tuple(math.ceil(rate) + 1 for rate in config.max_speeds_us_s())
        threshold = config.gripper.grip_threshold_u16 if config.gripper.grip_sensor else 0
        return config.min_pulses_us(), config.max_pulses_us(), config.start_pulses_us(), speeds_us_s, threshold

    def home_segment(self) -> Any:
        """The segment to the start pose from where the arm is now (timed by the servo speeds); a gripper that the
        grip sensor reports holding a disk stays shut (any ``held`` of several reads:
        :func:`~.grip_check.read_grip`; an ``empty`` read once would open the fingers on a held disk)."""
        from ..motion.segment import home_segment
        from . import grip_check

        config = self.config
        if config.gripper.grip_sensor:
            status = grip_check.read_grip(self.session, grip_channel=config.gripper_channel)
        else:
            status = self.session.status()
        pulses_us = tuple(int(p) for p in status.pulses_us)
        lowest_us = min(self.config.min_pulses_us())
        segment = home_segment(self.config, pulses_us if min(pulses_us) >= lowest_us else None)
        if status.grip == Grip.HELD and min(pulses_us) >= lowest_us:
            # The grip sensor says a disk is held: keep the fingers shut on it instead of dropping it at home.
            held = self.config.with_gripper(segment.pulses_us, int(self.config.gripper_us(pulses_us)))
            return segment._replace(pulses_us=held)
        return segment

    def sequencer(self, *, journal: Journal | None = None, first_cmd_id: int = 1, queue_ahead: int = 3) -> Sequencer:
        """A sequencer that drives this robot (segments, home pose, limits and grip sensor from the config)."""
        return Sequencer(
            self.session,
            segments_for=self.segments_for,
            home=self.home_segment,
            limits=self.limits(),
            journal=journal,
            queue_ahead=queue_ahead,
            has_grip_sensor=self.config.gripper.grip_sensor,
            grip_channel=self.config.gripper_channel,
            first_cmd_id=first_cmd_id,
            duration_between=self.duration_between_ms,
            pose_check=PoseCheck.for_robot(self.config),
        )

    # --- lifetime -----------------------------------------------------------------------------------
    def close(self) -> None:
        """Close the link (the board's watchdog then holds the arm still)."""
        self.session.close()
        self.is_open = False

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
