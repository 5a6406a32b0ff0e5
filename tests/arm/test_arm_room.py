"""The arm room stays pure and light: it imports the standard library, hanoibot.errors and itself, nothing else
(no numpy, no kinematics library: DESIGN decision 20), and only its two readers touch files."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from layers import imported_modules, module_name

HOST = Path(__file__).resolve().parents[2] / "host"
ROOM = HOST / "hanoibot" / "arm"


def test_the_room_imports_only_the_standard_library_the_errors_and_itself() -> None:
    found = []
    for path in sorted(ROOM.glob("*.py")):
        for line, target in imported_modules(path, module_name(path, HOST)):
            top = target.split(".")[0]
            if target == "hanoibot.errors" or target.startswith("hanoibot.arm") or top == "__future__":
                continue
            if top in sys.stdlib_module_names:
                continue
            found.append(f"{path.name}:{line}: {target}")
    assert found == []


def test_only_the_preset_and_urdf_readers_touch_files() -> None:
    readers = []
    for path in sorted(ROOM.glob("*.py")):
        calls = {
            node.func.attr
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        }
        if calls & {"read_text", "read_bytes", "open", "write_text"}:
            readers.append(path.name)
    assert readers == ["presets.py", "urdf.py"]
