"""Tests of hanoibot.motion.workspace: board checks and reachability, on geometry built directly."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hanoibot.config import RobotConfig, load_config
from hanoibot.errors import ConfigError, UnreachableError
from hanoibot.motion.geometry import Peg
from hanoibot.motion.workspace import carry_z_mm, check_board, check_reachable, hover_z_mm

CONFIG = load_config()
BOARD = CONFIG.board
GRIPPER = replace(CONFIG.gripper, open_width_mm=72.0, finger_length_mm=60.0)
FITS = {"gripper": GRIPPER, "grasp": CONFIG.chain.grasp, "clearance_mm": 8.0}


def with_pegs(*pegs: Peg) -> RobotConfig:
    """The default robot with these pegs (clearance 8 mm)."""
    return replace(CONFIG, board=replace(BOARD, pegs=pegs), motion=replace(CONFIG.motion, clearance_mm=8.0))


def test_default_board_passes() -> None:
    check_board(BOARD, **FITS)
    check_reachable(with_pegs(*BOARD.pegs))


def test_heights_over_the_pegs() -> None:
    peg = BOARD.peg(0)
    assert hover_z_mm(peg, 8.0) == peg.height_mm + 8.0
    taller = replace(peg, height_mm=70.0)
    assert carry_z_mm(BOARD, [peg, taller], 8.0) == 70.0 + BOARD.disk_thickness_mm / 2 + 8.0


def test_pegs_closer_than_a_disk_plus_clearance_are_rejected() -> None:
    pegs = (BOARD.pegs[0], replace(BOARD.pegs[1], y_mm=BOARD.pegs[0].y_mm + 65.0), BOARD.pegs[2])
    with pytest.raises(ConfigError, match=r"at most 57.0 mm"):
        check_board(replace(BOARD, pegs=pegs), **FITS)


def test_a_fourth_peg_behind_the_arm_is_unreachable_at_its_first_level() -> None:
    pegs = (*BOARD.pegs, Peg("D", -160.0, 0.0, 55.0))
    with pytest.raises(UnreachableError, match=r"^peg D level 1 is out of the arm's reach: .*needs base at 180.0 deg"):
        check_reachable(with_pegs(*pegs))


def test_a_tall_peg_puts_the_carry_height_out_of_reach() -> None:
    pegs = (BOARD.pegs[0], replace(BOARD.pegs[1], height_mm=200.0), BOARD.pegs[2])
    with pytest.raises(UnreachableError, match=r"^peg A carry height is out of the arm's reach"):
        check_reachable(with_pegs(*pegs))
