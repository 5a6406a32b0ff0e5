"""What the page draws of the robot, computed from what the host knows: pure functions, lengths in mm.

The board is drawn with :func:`hanoibot.render.layout.layout_from_config` (the SVG renderer's geometry) and the arm
from the pulses the board reports, through the config's own forward kinematics, projected the same way.
"""

from __future__ import annotations

from typing import Any

from ..config import RobotConfig
from ..ops.board import latched_faults
from ..ops.board_words import Fault
from ..ops.follow import Kind, Outcome, RunEvent
from ..ops.stop import EstopResult
from ..puzzle import Move, State
from ..render.layout import BoardLayout, layout_from_config

#: The way back from a latched e-stop, in the page's words: the one sentence every message after an e-stop uses.
ESTOP_RECOVERY = "Look at the arm, press Clear, then Home or Resume."
#: What the page is told after a board reset.
RESET_WORDS = (
    "the board was reset: its servos are off and the arm is limp. Take a disk out of the gripper by hand and put "
    "it on a peg, then Home, or Resume the run"
)
#: What to do after a run stopped in fault (a missed pick, a lost link, a collision): the page's advice.
FAULT_ADVICE = (
    "Look at the arm and the disks: put a disk that is not where the arm's board shows it back there (or set the "
    "Play board to where the disks are and press Connect), press Clear if a fault is latched, then Home, and Resume "
    "to finish the run"
)
#: What the board's latched fault names mean, in the operator's words.
FAULT_WORDS: dict[str, str] = {
    Fault.ESTOP: f"E-stop latched: the arm holds its pose. {ESTOP_RECOVERY}",
    Fault.HOST_LOST: "the board stopped hearing the host and froze the arm. Press Clear, then Home.",
    Fault.LIMIT: "a servo pulse left its limits; the board stopped. Check the config, then Clear and Home.",
    Fault.POWER_LOST: "the servo power rail dropped and the board let go of the servos: restore power, Clear, Home.",
}


def fault_words(faults: tuple[str, ...] | list[str]) -> list[str]:
    """Each latched fault name as a sentence (unknown names are shown as the board sent them)."""
    return [FAULT_WORDS.get(name, f"board fault {name}: press Clear, then Home") for name in faults]


def geometry_json(layout: BoardLayout) -> dict[str, Any]:
    """The board layout as the page reads it (mm; u along the pegs, z up)."""
    return {
        "peg_u_mm": list(layout.peg_u_mm),
        "peg_foot_z_mm": [layout.foot_z_mm(peg) for peg in range(len(layout.peg_u_mm))],
        "peg_height_mm": layout.peg_height_mm,
        "peg_diameter_mm": layout.peg_diameter_mm,
        "disk_diameters_mm": list(layout.disk_diameters_mm),
        "disk_thickness_mm": layout.disk_thickness_mm,
        "base_mm": list(layout.base_mm) if layout.base_mm is not None else None,
        "disk_colours": list(layout.disk_colours),
    }


def config_geometry(config: RobotConfig) -> tuple[BoardLayout, dict[str, Any]]:
    """The robot's board layout and its JSON form."""
    layout = layout_from_config(config)
    return layout, geometry_json(layout)


def arm_polyline_mm(config: RobotConfig, layout: BoardLayout, pulses_us: tuple[int, ...]) -> list[list[float]]:
    """The arm as drawn (its base, each joint of the chain, the grip point) in page mm, or [] before the board
    outputs pulses."""
    if not pulses_us or min(pulses_us) <= 0:
        return []
    points = config.arm_points(pulses_us)
    flat = [layout.project((p.x_mm, p.y_mm, p.z_mm)) for p in points]
    if layout.base_mm is not None:
        flat.insert(0, layout.base_mm)
    return [[round(u, 2), round(z, 2)] for u, z in flat]


def status_json(status: Any, config: RobotConfig, layout: BoardLayout) -> dict[str, Any]:
    """What the page shows of the board's STATUS (None: none read yet): its mode, its faults (in words and by
    name), whether one is latched (Run, Play my move, Resume and Home wait for a Clear) and the arm as drawn."""
    pulses = tuple(int(p) for p in status.pulses_us) if status is not None else ()
    faults = list(status.faults) if status is not None else []
    return {
        "mode": status.mode if status is not None else "",
        "faults": fault_words(faults),
        "fault_names": faults,
        "latched": bool(latched_faults(status)) if status is not None else False,
        "arm_mm": arm_polyline_mm(config, layout, pulses),
    }


def board_json(board: State | None, carried: Move | None) -> dict[str, Any]:
    """The disks as the page draws them: on the pegs (bottom first), the one ``carried`` in the gripper."""
    stacks = [list(s) for s in board.stacks] if board is not None else []
    if carried is not None:
        stacks[carried.src].pop()
    return {
        "board": stacks,
        "board_text": board.to_string() if board is not None else "",
        "held": carried.disk if carried is not None else None,
    }


def run_words(event: RunEvent, kind: Kind, error: str, *, journaled: bool) -> tuple[str, str]:
    """The page's message and error after a run stopped streaming with ``event`` (``kind``: a FAULT for a paused
    run whose link failed); ``error`` is the error shown so far. ``journaled``: Resume can finish the run."""
    if kind is Kind.PAUSED:
        return f"{event.words}: Continue or Stop", error
    if kind is Kind.STOPPED:
        resume = "Resume finishes the run, or " if journaled else ""
        return (
            f"{Outcome.STOPPED.word} {event.where}: the arm holds its pose; {resume}Clear and Home to start again",
            error,
        )
    if kind is Kind.FAULT:
        reason = event.reason or error
        return f"{Outcome.FAULT.how} {event.where}", f"{reason}. {FAULT_ADVICE}" if reason else FAULT_ADVICE
    return event.words, error


def connect_words(port: str, known: State | None, board: State, *, kept: bool) -> str:
    """The page's message after Connect gave the arm ``board`` (``known``: the arm's board before, None when no arm
    was connected): ``kept`` a real arm's link (its disks are to be set by hand), else a new simulated board."""
    replaced = (
        f" The arm's board was {known}: Connect gave it the Play board's {board} instead."
        if known is not None and known != board
        else ""
    )
    if kept:
        by_hand = " Put the disks on the real board that way before a run." if replaced else ""
        return f"the arm's board is now {board}: {board.n_disks} disks on {board.pegs} pegs.{replaced}{by_hand}"
    return f"connected to {port}" + (f": a new simulated board.{replaced}" if replaced else "")


def estop_words(result: EstopResult, flushed: list[str]) -> tuple[str, str]:
    """The page's message and error ("": none) after the E-STOP: only what the board confirmed is claimed;
    ``flushed`` names the commands sent before it, which were discarded."""
    dropped = f" Discarded what was sent before it: {', '.join(flushed)}." if flushed else ""
    if not result.latched:
        return "", result.text + dropped
    no_arm = "No arm was connected to the console: " if result.opened else ""
    return f"{no_arm}{result.text}. {ESTOP_RECOVERY}{dropped}", ""
