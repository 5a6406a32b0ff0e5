"""Tests of hanoibot.arm.toml_table: bounds, kinds and unknown keys, each named with its section."""

from __future__ import annotations

import pytest
from hanoibot.arm.toml_table import Table
from hanoibot.errors import ConfigError


def test_values_are_checked_where_they_are_read() -> None:
    table = Table("arm.tool", {"grip_xyz_mm": [1, 2], "speed": True, "coupling": {"a": "x"}})
    with pytest.raises(ConfigError, match=r"\[arm.tool\] grip_xyz_mm = \[1, 2\]: expected three numbers"):
        table.vector("grip_xyz_mm")
    with pytest.raises(ConfigError, match=r"\[arm.tool\] speed = True: expected a number from 0 to 10"):
        table.number("speed", 0.0, 10.0)
    with pytest.raises(ConfigError, match="expected a table of servo names to gains"):
        table.gains("coupling")
    with pytest.raises(ConfigError, match=r"\[arm.tool\] name is missing: expected a text"):
        table.text("name")
    assert table.number("absent", 0.0, 10.0, default=3.0) == 3.0


def test_an_unknown_key_names_the_nearest_known_one() -> None:
    table = Table("board", {"peg_hieght_mm": 5})
    table.has("peg_height_mm")
    with pytest.raises(ConfigError, match=r"\[board\] peg_hieght_mm is not a known key; did you mean 'peg_height_mm'"):
        table.finish()
