"""Helpers shared by the config and motion tests: the default robot.toml edited through tomlkit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tomlkit
from hanoibot.config import RobotConfig, default_config_path, parse_config

Edit = Callable[[Any], None]


def edited(change: Edit) -> bytes:
    """The default robot.toml after ``change`` has edited its tomlkit document (comments kept)."""
    document = tomlkit.parse(default_config_path().read_text(encoding="utf-8"))
    change(document)
    return tomlkit.dumps(document).encode("utf-8")


def config_with(change: Edit) -> RobotConfig:
    """The default robot with ``change`` applied, validated."""
    return parse_config(edited(change))


def four_pegs(document: Any) -> None:
    """An edit that spreads the pegs to y = -135, -45, 45 mm and adds peg D at y = 135 mm."""
    pegs = document["board"]["pegs"]
    for table, y_mm in zip(pegs, (-135.0, -45.0, 45.0), strict=True):
        table["y_mm"] = y_mm
    extra = tomlkit.table()
    extra["x_mm"] = 160.0
    extra["y_mm"] = 135.0
    pegs.append(extra)
