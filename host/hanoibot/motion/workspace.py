"""Checks of a board against the arm, run when the config is loaded, before any motion.

Pegs must not overlap, neighbouring stacks must keep ``clearance_mm`` of air, every peg must stand above a full
stack, the open gripper must pass around the largest disk with its palm clear of the peg tips, and every stack
level of every peg (and the carry height above the tallest peg) must be reachable with the gripper vertical.
"""

from __future__ import annotations

import itertools

from ..errors import ConfigError, UnreachableError
from .geometry import Arm, Board, Peg
from .kinematics import Point, inverse_kinematics


def _peg_key(board: Board, peg: Peg) -> str:
    """The config key that sets ``peg``'s height, as messages name it."""
    return f"[board.pegs #{board.pegs.index(peg) + 1}] (peg {peg.name})"


def check_board(board: Board, *, open_width_mm: float, finger_length_mm: float, clearance_mm: float) -> None:
    """Raise :class:`ConfigError` naming the key if pegs, disks and gripper cannot work together (sizes in mm)."""
    largest_mm = board.disk_diameters_mm[-1]
    for first, second in itertools.combinations(board.pegs, 2):
        apart_mm = first.distance_mm(second.x_mm, second.y_mm)
        if apart_mm < board.peg_diameter_mm:
            raise ConfigError(
                f"{_peg_key(board, second)} x_mm, y_mm: peg {second.name} overlaps peg {first.name} "
                f"({apart_mm:.1f} mm apart): expected at least peg_diameter_mm = {board.peg_diameter_mm:g} mm"
            )
        if apart_mm < largest_mm + clearance_mm:
            raise ConfigError(
                f"[board] disk_diameters_mm: the largest disk ({largest_mm:g} mm) is too wide for pegs "
                f"{first.name} and {second.name}, {apart_mm:.1f} mm apart: expected at most "
                f"{apart_mm - clearance_mm:.1f} mm (peg spacing minus clearance_mm)"
            )
    stack_mm = board.stack_top_mm(board.disk_count)
    for peg in board.pegs:
        if peg.height_mm < stack_mm:
            raise ConfigError(
                f"{_peg_key(board, peg)} height_mm = {peg.height_mm:g}: peg {peg.name} is shorter than a full stack "
                f"of {board.disk_count} disks ({stack_mm:g} mm); expected at least {stack_mm:g} mm"
            )
    if open_width_mm <= largest_mm:
        raise ConfigError(
            f"[gripper] open_width_mm = {open_width_mm:g}: expected more than the largest disk ({largest_mm:g} mm)"
        )
    tallest = max(board.pegs, key=lambda p: p.height_mm)
    needed_mm = tallest.height_mm - board.grip_z_mm(0) + clearance_mm
    if finger_length_mm < needed_mm:
        raise ConfigError(
            f"[gripper] finger_length_mm = {finger_length_mm:g}: the palm would come within clearance_mm of "
            f"peg {tallest.name}'s tip when gripping its bottom disk; expected at least {needed_mm:g} mm"
        )


def carry_z_mm(board: Board, pegs: list[Peg] | tuple[Peg, ...], clearance_mm: float) -> float:
    """Grip-point height in mm at which a held disk's bottom clears the tips of ``pegs`` by ``clearance_mm``."""
    return max(p.height_mm for p in pegs) + board.disk_thickness_mm / 2 + clearance_mm


def hover_z_mm(peg: Peg, clearance_mm: float) -> float:
    """Grip-point (fingertip) height in mm at which the empty gripper clears ``peg``'s tip by ``clearance_mm``."""
    return peg.height_mm + clearance_mm


def check_reachable(board: Board, arm: Arm, clearance_mm: float) -> None:
    """Raise :class:`UnreachableError` naming the peg and level if the arm cannot serve every stack level.

    Checked per peg: the grip height of every level 1..disk_count, the empty-gripper hover height and the
    carry height over the tallest peg, all with the gripper vertical and every joint within its limits.
    """
    top_z_mm = carry_z_mm(board, board.pegs, clearance_mm)
    for peg in board.pegs:
        heights = [(f"level {level + 1}", board.grip_z_mm(level)) for level in range(board.disk_count)]
        heights += [("hover height", hover_z_mm(peg, clearance_mm)), ("carry height", top_z_mm)]
        for label, z_mm in heights:
            try:
                inverse_kinematics(arm, Point(peg.x_mm, peg.y_mm, z_mm))
            except UnreachableError as err:
                raise UnreachableError(f"peg {peg.name} {label} is out of the arm's reach: {err}") from None
