"""Tests of hanoibot.config: the default robot loads, and every kind of bad input is a clear ConfigError."""

from __future__ import annotations

import fnmatch
import hashlib
import math
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import hanoibot.config.robot_config
import legacy_arm
import pytest
from hanoibot.config import default_config_path, is_packaged_config, load_config, packaged_config_path, parse_config
from hanoibot.config.arm_config import SHORT_FORM_JOINTS
from hanoibot.errors import ConfigError, HanoiError, UnreachableError
from hanoibot.motion.geometry import DEFAULT_MAX_ACCEL_DEG_S2
from robot_configs import edited, four_pegs

DEFAULT = load_config()


def setter(section: str, key: str, value: object) -> Callable[[Any], None]:
    """An edit that sets ``key`` in the dotted ``section`` (``servos.base``) to ``value``."""

    def change(document: Any) -> None:
        table = document
        for part in section.split("."):
            table = table[part]
        table[key] = value

    return change


def remover(section: str, key: str) -> Callable[[Any], None]:
    """An edit that deletes ``key`` from the dotted ``section``."""

    def change(document: Any) -> None:
        table = document
        for part in section.split("."):
            table = table[part]
        del table[key]

    return change


def peg_setter(index: int, key: str, value: float) -> Callable[[Any], None]:
    """An edit that sets ``key`` of the ``index``-th [[board.pegs]] table."""

    def change(document: Any) -> None:
        document["board"]["pegs"][index][key] = value

    return change


# --- the default robot -------------------------------------------------------------------------------------
def test_the_shipped_joints_with_a_nominal_calibration_keep_to_600_2400_us() -> None:
    """A joint calibrated by the nominal figures (center_us, us_per_deg), not measured, gets 600-2400 µs: inside
    the travel of every common hobby servo, where the firmware's own 500-2500 µs could drive one into its stop."""
    servos = tomllib.loads(default_config_path().read_text())["servos"]
    nominal = [name for name in SHORT_FORM_JOINTS if "center_us" in servos[name]]
    assert nominal, "the shipped config has a nominally calibrated joint"
    for name in nominal:
        assert (servos[name]["min_us"], servos[name]["max_us"]) == (600, 2400), name


def test_default_robot_has_three_pegs_eight_disks_and_five_channels() -> None:
    assert [p.name for p in DEFAULT.board.pegs] == ["A", "B", "C"]
    assert DEFAULT.board.disk_count == 8
    assert DEFAULT.channels == 5
    assert [s.name for s in DEFAULT.servos] == list(SHORT_FORM_JOINTS)


def test_start_pose_lies_within_every_pulse_range() -> None:
    for low, start, high in zip(
        DEFAULT.min_pulses_us(), DEFAULT.start_pulses_us(), DEFAULT.max_pulses_us(), strict=True
    ):
        assert low <= start <= high


def test_config_hash_is_the_sha256_of_the_file_bytes() -> None:
    assert DEFAULT.config_hash == hashlib.sha256(default_config_path().read_bytes()).hexdigest()
    assert DEFAULT.source_path == default_config_path()


# --- where the default robot comes from: the checkout's hardware/robot.toml, or the copy a wheel ships ------
ROOT = Path(__file__).resolve().parents[2]


def test_in_a_checkout_the_default_is_hardware_robot_toml() -> None:
    assert default_config_path() == ROOT / "hardware" / "robot.toml"


def test_the_packaged_config_is_the_same_file_as_hardware_robot_toml() -> None:
    # A link in the source tree; this fails if it is ever replaced by a copy that drifts, or checked out broken.
    assert packaged_config_path().read_bytes() == (ROOT / "hardware" / "robot.toml").read_bytes()
    assert packaged_config_path().is_relative_to(ROOT / "host" / "hanoibot")


def test_the_package_data_ships_the_packaged_config() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = pyproject["tool"]["setuptools"]["package-data"]["hanoibot"]
    relative = packaged_config_path().relative_to(ROOT / "host" / "hanoibot").as_posix()
    assert any(fnmatch.fnmatchcase(relative, pattern) for pattern in patterns), (relative, patterns)


def test_without_a_checkout_the_default_is_the_packaged_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # As in a wheel install: no hardware/robot.toml next to the package.
    monkeypatch.setattr(hanoibot.config.robot_config, "SOURCE_TREE_CONFIG", tmp_path / "hardware" / "robot.toml")
    assert default_config_path() == packaged_config_path()
    assert is_packaged_config(default_config_path())
    assert load_config().config_hash == DEFAULT.config_hash


def test_only_the_packaged_file_counts_as_packaged(tmp_path: Path) -> None:
    assert not is_packaged_config(ROOT / "hardware" / "robot.toml"), "the link's target is the source file"
    assert not is_packaged_config(tmp_path / "robot.toml")
    packaged = packaged_config_path()
    assert is_packaged_config(packaged.parent / ".." / packaged.parent.name / packaged.name)


def test_config_hash_changes_with_any_edit() -> None:
    changed = parse_config(edited(setter("motion", "settle_ms", 41)))
    assert changed.config_hash != DEFAULT.config_hash


def test_four_peg_board_loads(tmp_path: Path) -> None:
    path = tmp_path / "four.toml"
    path.write_bytes(edited(four_pegs))
    config = load_config(path)
    assert [p.name for p in config.board.pegs] == ["A", "B", "C", "D"]
    assert config.board.pegs[3].y_mm == 135.0


def test_a_peg_may_set_its_own_height() -> None:
    def taller_b(document: Any) -> None:
        peg_setter(1, "height_mm", 70.0)(document)
        setter("gripper", "finger_length_mm", 75.0)(document)

    config = parse_config(edited(taller_b))
    assert [p.height_mm for p in config.board.pegs] == [55.0, 70.0, 55.0]


def test_servo_speed_in_pulses_matches_the_joint_speed_on_linear_servos() -> None:
    base = DEFAULT.servos[0]
    rate_us_s = DEFAULT.max_speeds_us_s()[0]
    one_second_deg = base.angle_deg(base.pulse_us(0.0) + rate_us_s) - 0.0
    assert math.isclose(abs(one_second_deg), DEFAULT.servos[0].max_speed_deg_s)


# --- bad input ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (setter("board", "peg_heigth_mm", 55.0), ["'peg_heigth_mm'", "[board]", "'peg_height_mm'"]),
        (setter("servos.elbow", "offset_degs", 1.0), ["'offset_degs'", "[servos.elbow]", "'offset_deg'"]),
        (setter("arm.wrist", "max_speed_deg", 100.0), ["'max_speed_deg'", "[arm.wrist]", "'max_speed_deg_s'"]),
        (peg_setter(2, "z_mm", 1.0), ["'z_mm'", "[board.pegs #3]"]),
        (setter("motion", "clearence_mm", 8.0), ["'clearence_mm'", "[motion]", "'clearance_mm'"]),
    ],
)
def test_unknown_key_names_key_section_and_nearest_known_key(
    change: Callable[[Any], None], expected: list[str]
) -> None:
    with pytest.raises(ConfigError) as err:
        parse_config(edited(change))
    for text in expected:
        assert text in str(err.value)


def test_misspelt_section_is_named_with_a_suggestion() -> None:
    def rename(document: Any) -> None:
        document["motoin"] = document.pop("motion")

    with pytest.raises(ConfigError, match=r"\[motion\] is missing: .*is 'motoin' a misspelling of it\?"):
        parse_config(edited(rename))


def test_missing_key_names_key_and_section() -> None:
    with pytest.raises(ConfigError, match=r"\[arm\] forearm_mm is missing"):
        parse_config(edited(remover("arm", "forearm_mm")))


@pytest.mark.parametrize(
    ("change", "pattern"),
    [
        # a speed of zero, or below it
        (
            setter("arm.shoulder", "max_speed_deg_s", 0.0),
            r"\[arm.shoulder\] max_speed_deg_s = 0.0: expected a number more",
        ),
        (setter("gripper", "max_speed_deg_s", -5.0), r"\[gripper\] max_speed_deg_s = -5.0"),
        # an acceleration limit of zero, or a string
        (setter("arm.elbow", "max_accel_deg_s2", 0), r"\[arm.elbow\] max_accel_deg_s2 = 0: expected a number more"),
        (setter("gripper", "max_accel_deg_s2", "fast"), r"\[gripper\] max_accel_deg_s2 = 'fast': expected a number"),
        # inverted pulse ranges
        (setter("servos.base", "min_us", 2400), r"\[servos.base\] max_us = 2400: expected more than min_us = 2400"),
        # a pulse range the firmware would refuse (it takes 500-2500 µs)
        (
            setter("servos.base", "min_us", 450),
            r"\[servos.base\] min_us = 450: expected a whole number from 500 to 2500",
        ),
        (setter("servos.wrist", "max_us", 2600), r"\[servos.wrist\] max_us = 2600: expected a whole number from 500"),
        # the grip threshold: needed with a sensor, a read_u16 value
        (setter("gripper", "grip_threshold_u16", 70000), r"\[gripper\] grip_threshold_u16 = 70000: expected a whole"),
        # channel may only restate the wire channel: board_config.py maps channels to pins
        (setter("servos.wrist", "channel", 2), r"^\[servos.wrist\] channel = 2: expected 3, the wire channel"),
        (setter("servos.gripper", "max_us", 800), r"\[servos.gripper\] max_us = 800: .*inverted"),
        # a joint limit the servo's pulse range cannot reach
        (setter("arm.base", "max_deg", 120.0), r"\[servos.base\] max_us = 2400: .*\[arm.base\] max_deg = 120"),
        # bad values and types
        (setter("board", "disk_thickness_mm", "6"), r"\[board\] disk_thickness_mm = '6': expected a number"),
        (setter("board", "disk_count", 3), r"\[board\] disk_diameters_mm = .*expected a list of 3 numbers"),
        (setter("board", "disk_diameters_mm", [20, 26, 26, 38, 44, 50, 56, 62]), r"strictly rising diameters"),
        (setter("servos.elbow", "direction", 0), r"\[servos.elbow\] direction = 0"),
        (setter("servos.shoulder", "points_deg_us", [[10, 620], [90, 1500], [170, 1400]]), r"points_deg_us.*strictly"),
        (setter("servos.shoulder", "points_deg_us", [[10, 620]]), r"points_deg_us.*at least 2"),
        (setter("servos.base", "start_deg", 95.0), r"\[servos.base\] start_deg = 95.0: expected a number from -80"),
        (setter("arm.elbow", "max_deg", -160.0), r"\[arm.elbow\] max_deg = -160.0: expected more than min_deg"),
        (setter("gripper", "grip_sensor", "yes"), r"\[gripper\] grip_sensor = 'yes': expected true or false"),
        (setter("gripper", "closed_us", 1000), r"\[gripper\] closed_us = 1000: expected a pulse other than open_us"),
        (setter("motion", "settle_ms", 2.5), r"\[motion\] settle_ms = 2.5: expected a whole number"),
        # a tuned knob that went: its old value is refused with what replaced it
        (
            setter("motion", "on_peg_speed_ratio", 0.7),
            r"on_peg_speed_ratio in section \[motion\] is no longer a setting",
        ),
    ],
)
def test_bad_value_names_key_section_and_what_is_wrong(change: Callable[[Any], None], pattern: str) -> None:
    with pytest.raises(ConfigError, match=pattern):
        parse_config(edited(change))


def test_overlapping_pegs_are_rejected() -> None:
    with pytest.raises(ConfigError, match=r"peg B overlaps peg A \(3.0 mm apart\)"):
        parse_config(edited(peg_setter(1, "y_mm", -87.0)))


def test_disks_wider_than_the_peg_spacing_allows_are_rejected() -> None:
    with pytest.raises(
        ConfigError, match=r"disk_diameters_mm: the largest disk \(62 mm\) is too wide for pegs A and B"
    ):
        parse_config(edited(peg_setter(1, "y_mm", -25.0)))


def test_peg_shorter_than_the_stack_is_rejected() -> None:
    with pytest.raises(ConfigError, match=r"peg C is shorter than a full stack of 8 disks \(48 mm\)"):
        parse_config(edited(peg_setter(2, "height_mm", 40.0)))


def test_gripper_narrower_than_the_largest_disk_is_rejected() -> None:
    with pytest.raises(ConfigError, match=r"\[gripper\] open_width_mm = 60: expected more than the largest disk"):
        parse_config(edited(setter("gripper", "open_width_mm", 60.0)))


def test_short_fingers_that_would_hit_a_peg_tip_are_rejected() -> None:
    with pytest.raises(ConfigError, match=r"\[gripper\] finger_length_mm = 40: .*peg A's tip"):
        parse_config(edited(setter("gripper", "finger_length_mm", 40.0)))


def test_peg_out_of_reach_is_named_with_its_level() -> None:
    with pytest.raises(UnreachableError, match=r"peg C level 1 is out of the arm's reach"):
        parse_config(edited(peg_setter(2, "x_mm", 300.0)))


def test_peg_whose_upper_levels_only_are_out_of_reach_names_that_level() -> None:
    x_mm, y_mm = 200.0, 160.0
    arm, board = legacy_arm.default_arm(), DEFAULT.board
    # Oracle: the first level whose wrist point (straight above the grip point) lies beyond the stretched arm.
    first_bad = next(
        level + 1
        for level in range(board.disk_count)
        if math.hypot(math.hypot(x_mm, y_mm), board.grip_z_mm(level) + arm.tool_length_mm - arm.shoulder_height_mm)
        > arm.upper_arm_mm + arm.forearm_mm
    )
    assert first_bad > 1

    def far_corner(document: Any) -> None:
        peg_setter(2, "x_mm", x_mm)(document)
        peg_setter(2, "y_mm", y_mm)(document)

    with pytest.raises(UnreachableError, match=rf"^peg C level {first_bad} is out of the arm's reach"):
        parse_config(edited(far_corner))


def test_invalid_toml_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="not valid TOML"):
        parse_config(b"[board\npeg_height_mm = 5")


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read robot config"):
        load_config(tmp_path / "nope.toml")


def test_config_errors_are_hanoi_errors_and_value_errors() -> None:
    with pytest.raises(ConfigError) as err:
        parse_config(edited(setter("arm", "forearm_mm", 0.0)))
    assert isinstance(err.value, HanoiError)
    assert isinstance(err.value, ValueError)


def test_a_grip_sensor_without_a_threshold_gets_the_documented_default() -> None:
    config = parse_config(edited(remover("gripper", "grip_threshold_u16")))
    assert config.gripper.grip_threshold_u16 == round(0.33 * 0.1 * 50 / 3.3 * 65536)  # 1.65 V: half the ADC range


def test_acceleration_limits_are_read_and_default_when_left_out() -> None:
    assert [servo.max_accel_deg_s2 for servo in DEFAULT.servos] == [5000.0, 4000.0, 5000.0, 6000.0]
    assert DEFAULT.gripper.max_accel_deg_s2 == 15000.0

    def drop_both(document: Any) -> None:
        remover("arm.base", "max_accel_deg_s2")(document)
        remover("gripper", "max_accel_deg_s2")(document)

    config = parse_config(edited(drop_both))
    assert config.servos[0].max_accel_deg_s2 == DEFAULT_MAX_ACCEL_DEG_S2 == config.gripper.max_accel_deg_s2


# --- the coloured disk set --------------------------------------------------------------------------------
def test_the_coloured_set_puts_equal_sizes_in_use_numbered_size_first_with_their_colours() -> None:
    owned = DEFAULT.board.colour_set
    assert owned is not None and owned.colours == ("red", "green", "blue")
    tricolor = DEFAULT.with_colour_disks(2, 3)
    assert tricolor.board.disk_diameters_mm == (owned.diameters_mm[0],) * 3 + (owned.diameters_mm[1],) * 3
    assert tricolor.board.disk_colours == ("red", "green", "blue") * 2
    assert tricolor.board.disk_colour(5) == "green" and DEFAULT.board.disk_colour(5) is None
    assert tricolor.config_hash == DEFAULT.config_hash, "still the same robot file (a journal resumes on it)"


@pytest.mark.parametrize(
    ("change", "pattern"),
    [
        (setter("board.colour_set", "colours", ["red", "pink"]), r"\[board.colour_set\] colours = .*'pink' is not"),
        (setter("board.colour_set", "colours", ["red", "red"]), r"\[board.colour_set\] colours = .*distinct"),
        (setter("board.colour_set", "diameters_mm", [36, 24]), r"\[board.colour_set\] diameters_mm = .*rising"),
        (setter("board.colour_set", "diameters_mm", []), r"\[board.colour_set\] diameters_mm = \[\]: expected a list"),
        (setter("board.colour_set", "size_mm", 3), r"unknown key 'size_mm' in section \[board.colour_set\]"),
        # 4 sizes x 3 colours = 12 disks (72 mm) stand taller than the 55 mm pegs
        (setter("board.colour_set", "diameters_mm", [20, 30, 40, 50]), r"\[board.colour_set\] of 12 disks does not"),
    ],
)
def test_a_bad_coloured_set_names_its_key(change: Callable[[Any], None], pattern: str) -> None:
    with pytest.raises(ConfigError, match=pattern):
        parse_config(edited(change))


def test_a_puzzle_the_coloured_set_cannot_hold_names_the_key() -> None:
    with pytest.raises(ConfigError, match=r"\[board.colour_set\] diameters_mm has 3 sizes: expected at least 4"):
        DEFAULT.with_colour_disks(4, 2)
    two_colours = parse_config(edited(setter("board.colour_set", "colours", ["red", "green"])))
    assert two_colours.with_colour_disks(3, 2).board.disk_count == 6
    with pytest.raises(ConfigError, match=r"colours = \['red', 'green'\]: expected also 'blue'"):
        two_colours.with_colour_disks(2, 3)
    without = parse_config(edited(remover("board", "colour_set")))
    with pytest.raises(ConfigError, match=r"\[board.colour_set\] is missing"):
        without.with_colour_disks(2, 2)
