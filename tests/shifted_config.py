"""A robot config of a test's own: the shipped robot with peg A said to stand off where it is (what a calibration
finds and saves), and the pegs a config file holds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tomlkit
from hanoibot.config import default_config_path


def shifted_config(folder: Path, dx_mm: float = 4.0) -> Path:
    """The shipped robot with peg A said to stand ``dx_mm`` further out along x than it does, as mine.toml in
    ``folder``."""
    document: Any = tomlkit.parse(default_config_path().read_text())
    document["board"]["pegs"][0]["x_mm"] = float(document["board"]["pegs"][0]["x_mm"]) + dx_mm
    path = folder / "mine.toml"
    path.write_text(tomlkit.dumps(document))
    return path


def pegs_mm(path: Path) -> list[tuple[float, float]]:
    """Each peg's (x_mm, y_mm) as the file ``path`` holds them."""
    pegs: Any = tomlkit.parse(path.read_text())["board"]["pegs"]
    return [(float(peg["x_mm"]), float(peg["y_mm"])) for peg in pegs]
