"""The side grasp's height margin (docs/margins.md, "The side grasp"): a level claw comes in at a disk's mid-plane
with fingers ``finger_width_mm`` tall, so a finger keeps half the disk's thickness less half its own width above
the wider disk below; the grip point's height errors and the thicknesses of the disks below must fit in that (plus
the world's contact tolerance), or the config is refused naming the key."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hanoibot.arm import preset_text
from hanoibot.config import RobotConfig, parse_config
from hanoibot.errors import ConfigError
from hanoibot.motion.margins import check_margins, claw_height_stack_mm
from hanoibot.sim.disks import CONTACT_TOLERANCE_MM


def mearm() -> RobotConfig:
    return parse_config(preset_text("mearm").encode("utf-8"))


def test_the_mearms_claw_has_room_above_the_disk_below() -> None:
    config = mearm()
    room_mm, error_mm = claw_height_stack_mm(config)
    # The preset's figures: 8 mm disks, 6 mm fingers: 1 mm of air, plus the world's contact tolerance.
    assert room_mm == pytest.approx((8.0 - 6.0) / 2 + CONTACT_TOLERANCE_MM)
    # The disks below the top one (4 of the 5) may each be 0.2 mm thin: the error is at least their sum.
    assert 4 * 0.2 <= error_mm < room_mm


def test_fingers_as_tall_as_a_disk_are_refused_when_the_disks_thickness_errors_alone_exceed_the_lead_in() -> None:
    config = mearm()
    config = replace(config, gripper=replace(config.gripper, finger_width_mm=config.board.disk_thickness_mm))
    tolerances = replace(config.tolerances, disk_thickness_mm=0.3)  # 4 x 0.3 = 1.2 mm > 1 mm of room
    with pytest.raises(ConfigError, match=r"\[gripper\] finger_width_mm = 8: a level claw's finger"):
        check_margins(config, tolerances)
    check_margins(config, replace(tolerances, disk_thickness_mm=0.1))  # 0.4 mm, and the arm's own errors: fits
