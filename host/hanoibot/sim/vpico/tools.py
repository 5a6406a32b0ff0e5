"""Finding the programs the virtual Pico runs on: Node.js and the npm package rp2040js (pinned in package.json).

``make setup`` installs both in a source checkout (rp2040js under ./node_modules). Elsewhere point
``HANOIBOT_RP2040JS`` at an unpacked rp2040js package folder. Each miss is one line saying what to do.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ...errors import HanoiError

#: The rp2040js file the harness imports, inside the package folder.
ESM_INDEX = Path("dist") / "esm" / "index.js"


class ToolMissing(HanoiError, FileNotFoundError):
    """Node.js or rp2040js is not installed (the message says how to install it)."""


def find_node() -> str:
    """The path of the ``node`` program; ToolMissing if there is none on PATH."""
    node = shutil.which("node")
    if node is None:
        raise ToolMissing("Node.js not found on PATH: the virtual Pico needs it; install Node 18+ (make setup does)")
    return node


def find_rp2040js() -> str:
    """The path of rp2040js's ESM index: ``$HANOIBOT_RP2040JS``, else ``node_modules/rp2040js`` in the current
    folder or any folder above it or above this package; ToolMissing otherwise."""
    override = os.environ.get("HANOIBOT_RP2040JS")
    if override:
        index = Path(override) / ESM_INDEX
        if not index.is_file():
            raise ToolMissing(f"HANOIBOT_RP2040JS={override!r} has no {ESM_INDEX}: expected an rp2040js package folder")
        return str(index)
    starts = (Path.cwd().resolve(), Path(__file__).resolve().parent)
    for start in starts:
        for folder in (start, *start.parents):
            index = folder / "node_modules" / "rp2040js" / ESM_INDEX
            if index.is_file():
                return str(index)
    raise ToolMissing("npm package rp2040js not found: run `npm install` in the hanoibot checkout (make setup does)")
