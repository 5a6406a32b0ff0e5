"""The console's calibration page, on the worker's side: each of the page's calibration actions is one call of
:class:`hanoibot.ops.peg_calibration.PegCalibration`, and what the page shows of it.

The page sends one command, ``calibrate``, with an ``action``: ``begin`` (take the board over, go on from the first
peg not yet confirmed, or from peg A with ``restart`` = 1), ``peg`` (go to the foot of peg ``peg``), ``jog`` (one
step along ``axis`` x, y or z in ``direction`` +1 or -1), ``step`` (the jog step becomes ``step_mm``), ``confirm``
(save the peg gone to into the robot config now) and ``end``. The worker runs them one at a time like every other
command and polls the board between them (the link stays served however long the person takes); any other command,
an e-stop, a Clear, a board reset or Disconnect ends the calibration (what was confirmed stays saved; ``begin``
goes on from there).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import HanoiError
from ..ops.peg_calibration import PEG_AXES, PegCalibration, calibration_target
from ..puzzle import peg_letter

#: The actions of the page's ``calibrate`` command.
ACTIONS = ("begin", "peg", "jog", "step", "confirm", "end")


class CalibrationDesk:
    """The calibration the page drives on the console's robot, if one is open (:attr:`session`)."""

    def __init__(self) -> None:
        self.session: PegCalibration | None = None
        #: How many actions the page asked for so far (the worker counts each as it starts, done or refused).
        self.actions = 0

    @property
    def is_open(self) -> bool:
        """True while a calibration is under way."""
        return self.session is not None

    def stop(self) -> None:
        """End the calibration, if one is open (what was confirmed stays saved)."""
        self.session = None

    def act(self, robot: Any, action: str, options: dict[str, Any]) -> str:
        """Run the page's ``action`` with its ``options`` on ``robot``; returns the words the page shows.
        HanoiError (its message for the page) for an action that cannot be done now."""
        if action == "begin":
            return self._begin(robot, restart=bool(options.get("restart", 0)))
        if action not in ACTIONS:
            raise HanoiError(f"calibrate action {action!r}: expected one of {', '.join(ACTIONS)}")
        session = self.session
        if session is None:
            raise HanoiError("no calibration is under way: press Calibrate the pegs first")
        if action == "end":
            self.stop()
            return "calibration ended; the pegs confirmed stay saved"
        if action == "peg":
            peg = int(options.get("peg", session.next_peg))
            note = session.go_to_peg(peg)
            where = f"at the foot of peg {peg_letter(peg)} where the config has it"
            return f"{where} (stopped: {note})" if note else f"{where}: jog until the open fingers stand around it"
        if action == "jog":
            axis, direction = str(options.get("axis", "")), int(options.get("direction", 0))
            note = session.jog(axis, direction)
            moved = f"{'+' if direction > 0 else '-'}{axis} {session.step_mm:g} mm"
            return f"{moved} (stopped: {note})" if note else moved
        if action == "step":
            return f"step {session.set_step(float(options.get('step_mm', session.step_mm))):g} mm"
        return self._confirm(session)

    def _begin(self, robot: Any, *, restart: bool) -> str:
        """Open a calibration of the console's robot config (refused for the default one), saying where it goes on."""
        source = robot.config.source_path
        if source is None:
            raise HanoiError("the robot config was not read from a file: start hanoibot serve with --config FILE")
        target = calibration_target(None, Path(source))
        self.session = session = PegCalibration(robot, target, restart=restart)
        said = f"{session.set_aside}; " if session.set_aside else ""
        if session.confirmed and not session.is_done:
            return (
                f"{said}going on with the calibration that stopped at peg {peg_letter(session.next_peg)}: "
                f"{_pegs(session.confirmed)} saved in {target.name}; go to peg {peg_letter(session.next_peg)}"
            )
        return f"{said}calibrating the pegs of {target.name}: go to peg A, jog, then save it"

    def _confirm(self, session: PegCalibration) -> str:
        """Save the peg gone to; say where it was saved and what comes next."""
        peg = session.peg if session.peg is not None else session.next_peg
        x_mm, y_mm = session.confirm()
        said = f"peg {peg_letter(peg)}: x={x_mm:.1f} y={y_mm:.1f} mm, saved to {session.target.name}"
        if session.is_done:
            return f"{said}; every peg is saved (the grip sensor's threshold is unchanged)"
        return f"{said}; next: peg {peg_letter(session.next_peg)}"

    def snapshot_json(self, pegs_total: int) -> dict[str, Any]:
        """The robot state's ``calibration`` (:meth:`to_json`) and ``calibration_actions`` (:attr:`actions`)."""
        return {"calibration": self.to_json(pegs_total), "calibration_actions": self.actions}

    def to_json(self, pegs_total: int) -> dict[str, Any] | None:
        """What the page shows of the calibration (None when none is open): the peg gone to, the grip point and
        the step in mm, the pegs saved (letter -> [x_mm, y_mm]) and the next one; ``pegs_total`` pegs on the board."""
        session = self.session
        if session is None:
            return None
        x_mm, y_mm, z_mm = session.grip_point_mm()
        return {
            "peg": session.peg,
            "next_peg": session.next_peg,
            "pegs": [peg_letter(peg) for peg in range(pegs_total)],
            "saved": {peg_letter(peg): list(point) for peg, point in sorted(session.confirmed.items())},
            "done": session.is_done,
            "step_mm": session.step_mm,
            "point_mm": [round(x_mm, 2), round(y_mm, 2), round(z_mm, 2)],
            "axes": list(PEG_AXES),
            "target": str(session.target),
        }


def _pegs(confirmed: dict[int, Any]) -> str:
    """``peg A`` or ``pegs A, B``: the pegs numbered in ``confirmed``."""
    letters = ", ".join(peg_letter(peg) for peg in sorted(confirmed))
    return f"peg {letters}" if len(confirmed) == 1 else f"pegs {letters}"
