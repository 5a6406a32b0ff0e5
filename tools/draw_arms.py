"""Draw the README's picture of each arm preset with ``hanoibot render`` (``make arm-pictures``).

Each picture is ``hanoibot render -n 3 --limit 1 --config <the preset as a robot config> --out docs/arms/NAME.svg``:
the preset's arm, drawn from its chain of joints, taking the smallest disk of a 3-disk tower on its own board (an
animated SVG). tests/cli/test_readme_arms.py checks that the committed pictures are what this draws now.

    python tools/draw_arms.py [FOLDER]     (default: docs/arms of this checkout)
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

#: The presets drawn, in the README table's order (every shipped preset is a whole robot config).
DRAWN = ("default", "mearm", "so101", "bracket6")
#: The render command's options for each picture (besides --config and --out).
RENDER_OPTIONS = ("-n", "3", "--limit", "1")
DOCS_ARMS = Path(__file__).resolve().parents[1] / "docs" / "arms"


def draw(name: str, out: Path) -> None:
    """Render the preset ``name`` into the SVG file ``out``."""
    from hanoibot.arm import preset_text
    from hanoibot.cli import main

    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / f"{name}.toml"
        config.write_text(preset_text(name), encoding="utf-8")
        argv = ["render", *RENDER_OPTIONS, "--config", str(config), "--out", str(out), "--force"]
        if main(argv) != 0:
            raise SystemExit(f"hanoibot {' '.join(argv)} failed")


def main() -> None:
    """Draw every preset of :data:`DRAWN` into the folder named on the command line (default docs/arms)."""
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else DOCS_ARMS
    folder.mkdir(parents=True, exist_ok=True)
    for name in DRAWN:
        draw(name, folder / f"{name}.svg")


if __name__ == "__main__":
    main()
