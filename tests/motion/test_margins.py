"""The on-peg error stack: its budget, its sources, and a config whose tolerances cannot be met is refused."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from pathlib import Path

import pytest
from hanoibot.config import load_config
from hanoibot.config.robot_config import default_config_path
from hanoibot.errors import ConfigError
from hanoibot.motion.blends import NEAR_FACTOR
from hanoibot.motion.drivers import DRIVERS, output_error_us, output_us
from hanoibot.motion.kinematics import Point
from hanoibot.motion.margins import (
    LEAD_IN_MM,
    RATIO_STEP,
    lever_arms_mm,
    on_peg_speed_ratio,
    on_peg_stack,
    place_gap_mm,
    saturation_lag_us,
    servo_static_error_us,
)
from hanoibot.motion.servo_model import PWM_FRAME_S, RESPONSE_S
from hanoibot.motion.tolerances import Tolerances
from hanoibot.sim.disks import CONTACT_TOLERANCE_MM

CONFIG = load_config()


def test_the_budget_is_half_the_holes_play_less_its_tolerance_plus_the_lead_in() -> None:
    board, tolerances = CONFIG.board, CONFIG.tolerances
    stack = on_peg_stack(CONFIG, tolerances)
    assert board.disk_hole_diameter_mm == 14.0 and board.peg_diameter_mm == 8.0
    assert stack.budget_mm == pytest.approx(6.0 / 2 - tolerances.disk_hole_mm / 2 + LEAD_IN_MM)
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
    angles = CONFIG.grasp_angles(Point(peg.x_mm, peg.y_mm, CONFIG.board.grip_z_mm(0)))
    assert CONFIG.chain.grip_point(angles).x_mm == pytest.approx(peg.x_mm)


def with_tolerances(tmp_path: Path, **values: float) -> Path:
    text = default_config_path().read_text()
    for key, value in values.items():
        text = re.sub(rf"(?m)^{key} = [0-9.]+", f"{key} = {value}", text)
    path = tmp_path / "robot.toml"
    path.write_text(text)
    return path


def test_a_config_whose_tolerances_cannot_be_met_is_refused_with_the_reason(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"\[tolerances\] cannot be met.*expected a smaller peg_position_mm"):
        load_config(with_tolerances(tmp_path, peg_position_mm=3.5))
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


#: The term of one servo's static error: half its deadband, half its backlash and its output's step.
PLAY = "servo_deadband_us + servo_backlash_us + [servos] driver"


def test_the_shipped_tolerances_are_a_hobby_arms_and_the_shipped_board_holds_them(tmp_path: Path) -> None:
    # Issue 34 item 6: [tolerances] drew deadband and backlash up to 1 µs and calibration up to 0.05°, far kinder
    # than the MG996R servos of the default arm (datasheet: 5 µs deadband); with 5 µs the config was refused.
    t = CONFIG.tolerances
    assert (t.servo_deadband_us, t.servo_backlash_us, t.calibration_deg) == (5.0, 3.0, 0.1)
    assert Tolerances() == t, "without [tolerances] a config gets the same hobby figures"
    assert CONFIG.servo_driver == "pca9685", "the margins are checked for the coarsest output"
    assert load_config(with_tolerances(tmp_path, servo_deadband_us=5.0)).tolerances.servo_deadband_us == 5.0
    doc = Path(__file__).resolve().parents[2].joinpath("docs", "margins.md").read_text()
    sources = doc.split("## Where the figures come from", 1)[-1].split("\n## ", 1)[0]
    for key in ("calibration_deg", "servo_deadband_us", "servo_backlash_us", "peg_position_mm", "[servos] driver"):
        row = next((line for line in sources.splitlines() if line.startswith(f"| `{key}`")), "")
        assert "datasheet" in row or "typical" in row, f"docs/margins.md cites no source for {key}: {row!r}"


def test_each_servos_static_error_counts_its_outputs_step_by_the_lever_arms() -> None:
    # A PCA9685 at 50 Hz counts 4.88 µs (PRE_SCALE 121 at 25 MHz) and rounds to a count: 2.44 µs at most.
    assert DRIVERS["pca9685"].step_us == pytest.approx(4.88)
    assert output_error_us("pca9685") == pytest.approx(2.44, abs=0.01)
    assert output_us("pca9685", 1502) == pytest.approx(308 * 4.88)  # (1502 * 25 MHz / 1e6) / 122 = 307.8 counts
    assert output_error_us("esp32s3") == pytest.approx(20000 / 8192, abs=0.15)  # 13 bits, truncated
    assert output_error_us("rp2") < 0.31
    t = CONFIG.tolerances
    arms, stack = lever_arms_mm(CONFIG), on_peg_stack(CONFIG, t)
    degrees_per_us = [s.calibration.max_deg_per_us(s.min_us, s.max_us) for s in CONFIG.servos]
    for driver in ("pca9685", "rp2"):
        config = replace(CONFIG, servo_driver=driver)
        play_us = (t.servo_deadband_us + t.servo_backlash_us) / 2 + output_error_us(driver)
        expected_mm = math.hypot(*(a * play_us * d for a, d in zip(arms, degrees_per_us, strict=True)))
        assert on_peg_stack(config, t).sources_mm[f"{PLAY} {driver}"] == pytest.approx(expected_mm)
    assert (
        stack.sources_mm[f"{PLAY} pca9685"]
        > on_peg_stack(replace(CONFIG, servo_driver="rp2"), t).sources_mm[f"{PLAY} rp2"]
    )
    assert on_peg_speed_ratio(replace(CONFIG, servo_driver="rp2")) >= on_peg_speed_ratio(CONFIG)


def test_a_ten_mm_hole_cannot_hold_hobby_servos_on_a_pca9685(tmp_path: Path) -> None:
    path = with_tolerances(tmp_path)
    path.write_text(path.read_text().replace("disk_hole_diameter_mm = 14.0", "disk_hole_diameter_mm = 10.0"))
    with pytest.raises(ConfigError, match=r"cannot be met.*expected a smaller servo_deadband_us, servo_backlash_us or"):
        load_config(path)


def test_a_servo_driver_the_margins_do_not_know_is_refused_naming_it(tmp_path: Path) -> None:
    path = with_tolerances(tmp_path)
    path.write_text(path.read_text().replace('driver = "pca9685"', 'driver = "pwm"'))
    with pytest.raises(ConfigError, match=r"\[servos\] driver.*'pwm'.*'pca9685', 'esp32s3', 'esp32', 'rp2'"):
        load_config(path)


def test_a_lower_ends_over_its_stack_by_the_height_errors_of_pick_and_place_less_the_lead_in() -> None:
    # Oracle for the vertical lever arms: the shoulder lifts a point at radius r by r * pi / 180 per degree (the
    # tool hangs straight down, so the wrist and the base move it sideways only).
    arms = lever_arms_mm(CONFIG, vertical=True)
    radius_mm = max(math.hypot(peg.x_mm, peg.y_mm) for peg in CONFIG.board.pegs)
    assert arms[1] == pytest.approx(radius_mm * math.pi / 180, rel=1e-3)
    assert arms[0] == pytest.approx(0.0, abs=1e-6) and arms[3] == pytest.approx(0.0, abs=0.01)
    t = CONFIG.tolerances
    play_us = servo_static_error_us(CONFIG, t)
    assert play_us == pytest.approx((5.0 + 3.0) / 2 + output_error_us("pca9685"))
    degrees_per_us = [s.calibration.max_deg_per_us(s.min_us, s.max_us) for s in CONFIG.servos]
    servos_mm = math.hypot(*(a * play_us * d for a, d in zip(arms, degrees_per_us, strict=True)))
    calibration_mm = math.hypot(*(a * t.calibration_deg for a in arms))
    thickness_mm = (CONFIG.board.disk_count - 1) * t.disk_thickness_mm
    stack_mm = math.sqrt(2 * servos_mm**2 + 2 * calibration_mm**2 + thickness_mm**2)
    assert place_gap_mm(CONFIG) == pytest.approx(stack_mm - LEAD_IN_MM)
    assert place_gap_mm(CONFIG) == pytest.approx(2.51, abs=0.01)  # docs/margins.md, "The height of a place"
    assert place_gap_mm(CONFIG, Tolerances(0, 0, 0, disk_thickness_mm=0)) < place_gap_mm(CONFIG)
