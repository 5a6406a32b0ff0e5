"""The README's table of the supported arm kits (issue 32): a row for each preset ``hanoibot init --arm`` takes, and
for each one drawn a picture under docs/arms/ that is what ``hanoibot render`` draws now (``make arm-pictures``,
tools/draw_arms.py, draws them again)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest
from hanoibot.arm import PRESET_NAMES

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def draw_arms() -> ModuleType:
    """tools/draw_arms.py as a module."""
    spec = importlib.util.spec_from_file_location("draw_arms", ROOT / "tools" / "draw_arms.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def kits_table() -> str:
    """The README's table of arm kits (the lines of its "Arms" section that start with ``|``)."""
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## Arms", 1)[1].split("\n## ", 1)[0]
    return "\n".join(line for line in section.splitlines() if line.startswith("|"))


def test_the_readme_has_a_row_for_every_preset_with_its_picture_or_why_not() -> None:
    table = kits_table()
    drawn = draw_arms().DRAWN
    for name in PRESET_NAMES:
        row = next((line for line in table.splitlines() if f"`--arm {name}`" in line), None)
        assert row is not None, f"no row for --arm {name}"
        pictures = re.findall(r'src="(docs/arms/[^"]+\.svg)"', row)
        if name in drawn:
            assert pictures == [f"docs/arms/{name}.svg"] and (ROOT / pictures[0]).is_file(), row
        else:
            assert not pictures and "not drawn" in row, row
    assert "make arm-pictures" in README.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", draw_arms().DRAWN)
def test_each_committed_picture_is_what_render_draws_now(name: str, tmp_path: Path) -> None:
    out = tmp_path / f"{name}.svg"
    draw_arms().draw(name, out)
    committed = ROOT / "docs" / "arms" / f"{name}.svg"
    assert out.read_text(encoding="utf-8") == committed.read_text(encoding="utf-8"), (
        f"{committed} is not what hanoibot render draws now: run make arm-pictures"
    )
