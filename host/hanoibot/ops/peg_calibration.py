"""Calibrating where each peg stands, one action at a time: for a front end that is told each step (the console's
calibration page), and the rules every calibration shares with ``hanoibot calibrate``.

A :class:`PegCalibration` takes the board over for jogging (:func:`~hanoibot.ops.board.prepare_for_jogging`),
goes to the foot of a peg where the config has it, jogs the grip point along x, y or z by the step shown (mm), and
confirms the peg: its grip point (x, y), from the commanded pulses and the arm's kinematics, becomes that peg's
``x_mm`` and ``y_mm`` and is saved at once into the robot config through
:class:`~hanoibot.config.writer.ConfigWriter` (:func:`save_peg`, as the command line saves it; comments and layout
kept, validated before it is written). What was confirmed is recorded (:mod:`.calibration_progress`), so a
calibration cut short (an e-stop, a closed page, a ``hanoibot calibrate`` stopped with ``q``) goes on at the first
peg not yet confirmed, on the page or at the command line. Between the person's actions nothing here waits: the
front end keeps the link served (the console's worker polls the board's status while idle).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import ConfigError, HanoiError
from ..puzzle import peg_letter
from .jog import Jogger

#: The first step of the Cartesian jog at a peg, in mm.
PEG_STEP_MM = 2.0
#: The axes the grip point is jogged along at a peg.
PEG_AXES = ("x", "y", "z")


def calibration_target(output: str | None, config: Path) -> Path:
    """The file a calibration writes: ``output``, else the robot ``config`` in use.

    Checked before anything moves: a ConfigError when that would be the default robot config (the checkout's
    ``hardware/robot.toml`` or the copy packaged with hanoibot) and no ``output`` was given, and always for the
    packaged copy (it lies in site-packages).
    """
    from ..config import default_config_path, is_packaged_config

    target = Path(output) if output else config
    is_default = target.resolve() == default_config_path().resolve()
    if is_packaged_config(target) or (output is None and is_default):
        raise ConfigError(
            f"calibrate never writes the default robot config ({target}) unless told to: "
            "pass --output FILE to save the calibrated config there (or --config FILE to calibrate your own copy; "
            "hanoibot init makes one)"
        )
    return target


def save_peg(writer: Any, target: Path, peg: int, point: tuple[float, float]) -> None:
    """Write peg number ``peg`` (0 = A) at ``point`` (x, y in mm) through ``writer`` into ``target`` now; a position
    the config would refuse (a peg on another) is a ConfigError naming why, and nothing is written."""
    writer.set_peg(peg, *point)
    try:
        writer.save(target)
    except ConfigError:
        writer.forget_peg(peg)
        raise


class PegCalibration:
    """A peg calibration of ``robot`` saved into ``target`` (see the module doc); jog steps start at ``step_mm``.
    ``restart`` begins at peg A even when an earlier calibration of ``target`` was cut short. RunFault while the
    board holds a latched fault; ConfigError when the robot config was not read from a file."""

    def __init__(self, robot: Any, target: Path, *, step_mm: float = PEG_STEP_MM, restart: bool = False) -> None:
        from ..config.writer import ConfigWriter
        from .board import prepare_for_jogging
        from .calibration_progress import CalibrationProgress, load_progress

        source = robot.config.source_path
        if source is None:
            raise ConfigError("the robot config was not read from a file: name one with --config FILE")
        self.target = target
        self.pegs_total = len(robot.config.board.pegs)
        prepare_for_jogging(robot)
        self.writer = ConfigWriter(source)
        if restart:
            self.progress, self.set_aside = CalibrationProgress(target, self.pegs_total), ""
            self.progress.finish()
        else:
            self.progress, self.set_aside = load_progress(target, self.pegs_total)
        for peg, (x_mm, y_mm) in self.progress.confirmed.items():
            self.writer.set_peg(peg, x_mm, y_mm)  # already in the file when it is the source; again for another
        self.jogger = Jogger(robot, step_deg=step_mm)
        self.jogger.select_axis("x")
        #: The peg being calibrated (its index), None before the first go-to.
        self.peg: int | None = None

    @property
    def confirmed(self) -> dict[int, tuple[float, float]]:
        """The pegs confirmed and saved so far: index -> (x_mm, y_mm)."""
        return dict(self.progress.confirmed)

    @property
    def next_peg(self) -> int:
        """The first peg not yet confirmed (:attr:`pegs_total` when every peg is)."""
        return self.progress.next_peg

    @property
    def is_done(self) -> bool:
        """True when every peg is confirmed and saved."""
        return self.next_peg >= self.pegs_total

    @property
    def step_mm(self) -> float:
        """The jog step now, in mm."""
        return self.jogger.step_deg

    def go_to_peg(self, peg: int) -> str | None:
        """Go to the foot of peg number ``peg`` (0 = A) where the config has it: up, across, down, fingers open.
        Returns the note of a limit met on the way (None when it got there). HanoiError for a peg the board lacks."""
        if not 0 <= peg < self.pegs_total:
            raise HanoiError(
                f"peg {peg}: the board has pegs 0 to {self.pegs_total - 1} (A to {peg_letter(self.pegs_total - 1)})"
            )
        self.peg = peg
        self.jogger.select_axis("x")
        return self.jogger.go_to_peg(peg, at_foot=True)

    def jog(self, axis: str, direction: int) -> str | None:
        """One step of the grip point along ``axis`` (x, y or z) in ``direction`` (+1 or -1), shortened at the first
        limit it meets; returns the note naming that limit (None when the whole step fitted)."""
        if axis not in PEG_AXES or direction not in (1, -1):
            raise HanoiError(f"jog {axis!r} {direction!r}: expected an axis of {', '.join(PEG_AXES)} and +1 or -1")
        self._need_peg()
        self.jogger.select_axis(axis)
        return self.jogger.nudge(direction)

    def set_step(self, step_mm: float) -> float:
        """Make the jog step ``step_mm`` (kept within the jog's limits); returns the step set, in mm."""
        return self.jogger.set_step(step_mm)

    def grip_point_mm(self) -> tuple[float, float, float]:
        """Where the grip point is now, x, y, z in mm."""
        return self.jogger.grip_point_mm()

    def confirm(self) -> tuple[float, float]:
        """The peg gone to stands where the grip point is: save its (x, y) in mm, rounded to 0.1 mm, into the config
        now and record it; returns it. ConfigError (nothing saved) when the config refuses that position."""
        peg = self._need_peg()
        x_mm, y_mm, _z_mm = self.grip_point_mm()
        point = (round(x_mm, 1), round(y_mm, 1))
        save_peg(self.writer, self.target, peg, point)
        self.progress.confirm(peg, *point)
        if self.is_done:
            self.progress.finish()  # every peg saved: the next calibration starts at peg A
        return point

    def _need_peg(self) -> int:
        """The peg being calibrated; HanoiError before the arm went to one."""
        if self.peg is None:
            raise HanoiError("go to a peg first: the arm jogs and saves at the peg it went to")
        return self.peg
