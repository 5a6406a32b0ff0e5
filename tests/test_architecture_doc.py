"""docs/architecture.md names the modules and folders a maintainer opens: each one it names by a path must exist
(under the repository, the host package ``host/hanoibot`` or ``firmware_micropython``), so moving code without
telling the page fails here."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Where a path the page names may start: the page says paths are below host/hanoibot/ unless they start with
#: firmware_micropython/ (the board's package is hanoifw); tests/, tools/ and the rest are the repository's.
BASES = (ROOT, ROOT / "host" / "hanoibot", ROOT / "firmware_micropython")


def named_paths(text: str) -> list[str]:
    """Every path in backticks ``text`` names: a module (``.py``) or a folder (ending in ``/``), with a folder in
    it; templates (``commands/<name>.py``) left out."""
    return sorted({m for m in re.findall(r"`([\w./-]+)`", text) if "/" in m.rstrip("/") and m.endswith((".py", "/"))})


def missing(text: str, bases: tuple[Path, ...] = BASES) -> list[str]:
    """The paths ``text`` names that exist under none of ``bases``."""
    return [name for name in named_paths(text) if not any((base / name).exists() for base in bases)]


def test_every_path_the_architecture_page_names_exists() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text("utf-8")
    assert len(named_paths(text)) > 40
    assert missing(text) == []


def test_a_path_that_moved_is_found(tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "sequencer.py").write_text("")
    text = "`run/sequencer.py` streams; `run/gone.py` moved; `run/` holds it; `commands/<name>.py` is a template"
    assert missing(text, (tmp_path,)) == ["run/gone.py"]
