"""Checks of a board against the arm, run when the config is loaded, before any motion.

Pegs must not overlap, neighbouring stacks must keep ``clearance_mm`` of air, every peg must stand above a full
stack, the open gripper must pass around the largest disk with its palm clear of the peg tips (top-down) or of the
disk's rim (a level claw, whose fingers must also be no taller than a disk), and every stack level of every peg
(and the carry height above the tallest peg) must be reachable with the tool at its grasp mode's pitch.
"""

from __future__ import annotations

import itertools

from ..arm import GraspMode
from ..errors import ConfigError, UnreachableError
from .geometry import Board, Peg
from .hardware import Gripper
from .kinematics import Point
from .robot import RobotConfig


def _peg_key(board: Board, peg: Peg) -> str:
    """The config key that sets ``peg``'s height, as messages name it."""
    return f"[board.pegs #{board.pegs.index(peg) + 1}] (peg {peg.name})"


def check_board(board: Board, gripper: Gripper, grasp: GraspMode, *, clearance_mm: float) -> None:
    """Raise :class:`ConfigError` naming the key if pegs, disks and gripper cannot work together (sizes in mm)."""
    open_width_mm, finger_length_mm = gripper.open_width_mm, gripper.finger_length_mm
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
    if grasp is GraspMode.SIDE:
        _check_level_claw(board, gripper, clearance_mm)
        return
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


def _check_level_claw(board: Board, gripper: Gripper, clearance_mm: float) -> None:
    """A level claw (side grasp) closes on a disk across its middle, its fingers reaching to the peg's axis: the
    palm behind them must keep ``clearance_mm`` from the largest disk's rim, and each finger must be no taller
    than a disk, or it hits the wider disk below the one it takes."""
    needed_mm = board.disk_diameters_mm[-1] / 2 + clearance_mm
    if gripper.finger_length_mm < needed_mm:
        raise ConfigError(
            f"[gripper] finger_length_mm = {gripper.finger_length_mm:g}: a level claw's palm would come within "
            f"clearance_mm of the largest disk's rim; expected at least {needed_mm:g} mm"
        )
    if gripper.finger_width_mm > board.disk_thickness_mm:
        raise ConfigError(
            f"[gripper] finger_width_mm = {gripper.finger_width_mm:g}: a level claw's fingers must be no taller than "
            f"a disk ([board] disk_thickness_mm = {board.disk_thickness_mm:g}), or they hit the disk below"
        )


def grasp_heights(board: Board, peg: Peg, clearance_mm: float) -> list[tuple[str, float]]:
    """The grip-point heights (mm) the arm must reach over ``peg``, labelled: every stack level, the empty
    gripper's hover height and the carry height over the tallest peg."""
    heights = [(f"level {level + 1}", board.grip_z_mm(level)) for level in range(board.disk_count)]
    heights += [
        ("hover height", hover_z_mm(peg, clearance_mm)),
        ("carry height", carry_z_mm(board, board.pegs, clearance_mm)),
    ]
    return heights


def check_reachable(config: RobotConfig) -> None:
    """Raise :class:`UnreachableError` naming the peg and level if the arm cannot serve every stack level.

    Checked per peg (:func:`grasp_heights`) with the tool at the grasp mode's pitch and every joint (and servo)
    within its limits.
    """
    board = config.board
    for peg in board.pegs:
        for label, z_mm in grasp_heights(board, peg, config.motion.clearance_mm):
            try:
                config.grasp_angles(Point(peg.x_mm, peg.y_mm, z_mm))
            except UnreachableError as err:
                raise UnreachableError(f"peg {peg.name} {label} is out of the arm's reach: {err}") from None
