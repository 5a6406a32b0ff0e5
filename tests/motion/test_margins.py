"""The on-peg error stack: its budget, its sources, and a config whose tolerances cannot be met is refused."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from hanoibot.config import load_config
from hanoibot.config.robot_config import default_config_path
from hanoibot.errors import ConfigError
from hanoibot.motion.blends import NEAR_FACTOR
from hanoibot.motion.kinematics import Point, forward_kinematics, inverse_kinematics
from hanoibot.motion.margins import (
    LEAD_IN_MM,
    RATIO_STEP,
    lever_arms_mm,
    on_peg_speed_ratio,
    on_peg_stack,
    saturation_lag_us,
)
from hanoibot.motion.servo_model import PWM_FRAME_S, RESPONSE_S
from hanoibot.motion.tolerances import Tolerances
from hanoibot.sim.disks import CONTACT_TOLERANCE_MM

CONFIG = load_config()


def test_the_budget_is_half_the_holes_play_less_its_tolerance_plus_the_lead_in() -> None:
    board, tolerances = CONFIG.board, CONFIG.tolerances
    stack = on_peg_stack(CONFIG, tolerances)
    assert board.disk_hole_diameter_mm == 10.0 and board.peg_diameter_mm == 8.0
    assert stack.budget_mm == pytest.approx(2.0 / 2 - tolerances.disk_hole_mm / 2 + LEAD_IN_MM)
    assert LEAD_IN_MM == CONTACT_TOLERANCE_MM, "the budget's lead-in is the overlap the simulated world lets pass"


def test_the_sources_add_as_a_root_sum_of_squares_and_fit_the_default_robot() -> None:
    stack = on_peg_stack(CONFIG, CONFIG.tolerances)
    assert stack.sources_mm["peg_position_mm"] == CONFIG.tolerances.peg_position_mm
    assert stack.sources_mm["line_tolerance_mm"] == NEAR_FACTOR * CONFIG.motion.line_tolerance_mm
    assert stack.rss_mm == pytest.approx(math.sqrt(sum(v * v for v in stack.sources_mm.values())))
    assert stack.rss_mm <= stack.budget_mm < stack.worst_mm


def test_a_lever_arm_is_the_grip_points_sideways_shift_per_degree_of_its_joint() -> None:
    # Oracle for the base: turning it by a degree moves a point at radius r by r * pi / 180 sideways.
    radius_mm = max(math.hypot(peg.x_mm, peg.y_mm) for peg in CONFIG.board.pegs)
    assert lever_arms_mm(CONFIG)[0] == pytest.approx(radius_mm * math.pi / 180, rel=1e-3)
    peg = CONFIG.board.pegs[0]
    angles = inverse_kinematics(CONFIG.arm, Point(peg.x_mm, peg.y_mm, CONFIG.board.grip_z_mm(0)))
    assert forward_kinematics(CONFIG.arm, angles).x_mm == pytest.approx(peg.x_mm)


def with_tolerances(tmp_path: Path, **values: float) -> Path:
    text = default_config_path().read_text()
    for key, value in values.items():
        text = re.sub(rf"(?m)^{key} = [0-9.]+", f"{key} = {value}", text)
    path = tmp_path / "robot.toml"
    path.write_text(text)
    return path


def test_a_config_whose_tolerances_cannot_be_met_is_refused_with_the_reason(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"\[tolerances\] cannot be met.*expected a smaller peg_position_mm"):
        load_config(with_tolerances(tmp_path, peg_position_mm=2.0))
    with pytest.raises(ConfigError, match=r"expected a smaller calibration_deg"):
        load_config(with_tolerances(tmp_path, calibration_deg=1.0))
    assert load_config(with_tolerances(tmp_path, peg_position_mm=1.0)).tolerances.peg_position_mm == 1.0


def test_a_sagged_servo_trails_no_further_while_its_loops_peak_speed_fits_its_top_speed() -> None:
    # Oracle: a first-order loop (time constant tau) that sees a new pulse every frame T runs, right after each
    # pulse, at 1 / (1 - e^(-T/tau)) times the command's speed: below that share of the sagged top speed nothing
    # saturates, so (with acceleration to spare) it trails exactly as an unlimited servo does.
    peak = 1 / (1 - math.exp(-PWM_FRAME_S / RESPONSE_S))
    top_us_s, accel_us_s2 = 2000.0, 50000.0
    nimble = Tolerances(servo_speed_sag=0.05, servo_accel_factor=1000.0)
    limit_us_s = top_us_s * (1 - nimble.servo_speed_sag) / peak
    assert saturation_lag_us(top_us_s, limit_us_s * 0.99, accel_us_s2, nimble) == pytest.approx(0.0, abs=0.01)
    assert 0.01 < saturation_lag_us(top_us_s, limit_us_s * 1.1, accel_us_s2, nimble) < 5
    # A command faster than either servo: both run flat out, the sagged one losing the sag's share of the top speed
    # every second (20 frames = 0.4 s).
    outrun_us = saturation_lag_us(top_us_s, 2 * top_us_s, 1e9, nimble)
    assert outrun_us == pytest.approx(top_us_s * nimble.servo_speed_sag * 20 * PWM_FRAME_S, rel=0.1)
    # A servo that accelerates no faster than the command trails it further.
    sluggish = Tolerances(servo_speed_sag=0.05, servo_accel_factor=1.0)
    assert saturation_lag_us(top_us_s, limit_us_s * 0.99, accel_us_s2, sluggish) > 1


def test_the_on_peg_speed_is_the_largest_step_whose_stack_fits_and_falls_for_weaker_servos(tmp_path: Path) -> None:
    ratio = on_peg_speed_ratio(CONFIG)
    assert RATIO_STEP < ratio < 1
    fits = on_peg_stack(CONFIG, CONFIG.tolerances, ratio)
    over = on_peg_stack(CONFIG, CONFIG.tolerances, ratio + RATIO_STEP)
    assert fits.rss_mm <= fits.budget_mm < over.rss_mm
    term = "servo_speed_sag + servo_accel_factor"
    assert over.sources_mm[term] > fits.sources_mm[term]
    assert on_peg_speed_ratio(load_config(with_tolerances(tmp_path, servo_speed_sag=0.3))) < ratio
    assert on_peg_speed_ratio(load_config(with_tolerances(tmp_path, servo_accel_factor=1.5))) < ratio
