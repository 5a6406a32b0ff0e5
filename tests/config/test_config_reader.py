"""Tests of hanoibot.config.reader: typed, bounded reads and unknown-key detection on plain dicts."""

from __future__ import annotations

import pytest
from hanoibot.config.reader import Section
from hanoibot.errors import ConfigError


def test_number_bounds_are_inclusive_unless_open() -> None:
    section = Section("arm", {"a_mm": 10, "b_mm": 0.0})
    assert section.number("a_mm", 0.0, 10.0) == 10.0
    with pytest.raises(ConfigError, match=r"\[arm\] b_mm = 0.0: expected a number more than 0 to 5"):
        section.number("b_mm", 0.0, 5.0, low_open=True)


@pytest.mark.parametrize("value", [True, "3", float("nan"), float("inf"), [1]])
def test_non_numbers_are_rejected(value: object) -> None:
    with pytest.raises(ConfigError, match=r"\[board\] x_mm = .*: expected a number from 0 to 5"):
        Section("board", {"x_mm": value}).number("x_mm", 0.0, 5.0)


def test_default_applies_only_when_absent() -> None:
    section = Section("board.pegs #1", {})
    assert section.number("height_mm", 5.0, 500.0, default=55.0) == 55.0


def test_integer_rejects_floats_and_bools() -> None:
    with pytest.raises(ConfigError, match=r"channel = 1.0: expected a whole number"):
        Section("servos.base", {"channel": 1.0}).integer("channel", 0, 31)
    with pytest.raises(ConfigError, match=r"channel = True"):
        Section("servos.base", {"channel": True}).integer("channel", 0, 31)


def test_numbers_need_the_exact_count() -> None:
    with pytest.raises(ConfigError, match=r"expected a list of 3 numbers"):
        Section("board", {"d_mm": [1, 2]}).numbers("d_mm", 0.0, 10.0, count=3)


def test_pairs_are_checked_one_by_one() -> None:
    section = Section("servos.shoulder", {"points_deg_us": [[0, 1000], [10, 9000]]})
    with pytest.raises(ConfigError, match=r"\[10, 9000\] is not"):
        section.pairs("points_deg_us", (-360.0, 360.0), (300.0, 3000.0))


def test_unread_key_is_unknown_and_the_nearest_read_key_is_suggested() -> None:
    section = Section("gripper", {"open_us": 1000, "closed_uss": 1900})
    section.integer("open_us", 0, 3000)
    section.has("closed_us")
    with pytest.raises(
        ConfigError, match=r"unknown key 'closed_uss' in section \[gripper\]: did you mean 'closed_us'\?"
    ):
        section.finish()


def test_a_missing_key_is_missing_even_when_a_similar_valid_key_is_present() -> None:
    section = Section("gripper", {"open_us": 1000})
    with pytest.raises(ConfigError) as err:
        section.integer("closed_us", 0, 3000)
    message = str(err.value)
    assert message.startswith("[gripper] closed_us is missing: expected a whole number from 0 to 3000"), message
    assert "unknown" not in message


def test_unknown_key_without_a_near_match_lists_the_known_keys() -> None:
    section = Section("motion", {"settle_ms": 4, "colour": "red"})
    section.integer("settle_ms", 0, 100)
    with pytest.raises(ConfigError, match=r"unknown key 'colour' in section \[motion\]: known keys: settle_ms"):
        section.finish()


def test_missing_table_and_arrays_of_tables() -> None:
    root = Section("", {"board": {"pegs": [{}, {}]}})
    with pytest.raises(ConfigError, match=r"^\[arm\] is missing: expected a table \[arm\]"):
        root.table("arm")
    with pytest.raises(ConfigError, match=r"\[\[board.pegs\]\] appears 2 times: expected 3 to 26"):
        root.table("board").tables("pegs", 3, 26)


def test_boolean() -> None:
    assert Section("gripper", {"grip_sensor": False}).boolean("grip_sensor") is False
