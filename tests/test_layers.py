"""Imports point down the layer order of :mod:`layers` (puzzle, planner, motion, ..., run, commands): none points
up, in the host package or in the firmware package."""

from __future__ import annotations

from pathlib import Path

from layers import LAYERS, front_end_reaches, layer_of, private_reaches, upward_imports

ROOT = Path(__file__).resolve().parents[1]
IMPORT_ROOTS = [ROOT / "host", ROOT / "firmware_micropython"]


def test_no_module_imports_a_higher_layer() -> None:
    assert upward_imports(IMPORT_ROOTS) == []


def test_every_host_module_has_a_layer() -> None:
    modules = [
        p.relative_to(ROOT / "host").with_suffix("").as_posix().replace("/", ".") for p in (ROOT / "host").rglob("*.py")
    ]
    assert [m for m in modules if layer_of(m.removesuffix(".__init__")) is None] == []


def test_an_upward_import_is_found(tmp_path: Path) -> None:
    # A synthetic tree: the puzzle layer reaching up into the run layer, relatively and absolutely, and lazily.
    package = tmp_path / "hanoibot"
    (package / "puzzle").mkdir(parents=True)
    (package / "run").mkdir()
    for init in (package, package / "puzzle", package / "run"):
        (init / "__init__.py").write_text("")
    (package / "run" / "runner.py").write_text("from ..puzzle import state\n")  # downward: fine
    (package / "puzzle" / "state.py").write_text(
        "from ..errors import HanoiError\nfrom ..run import runner\n\ndef f():\n    import hanoibot.link.session\n"
    )
    problems = upward_imports([tmp_path])
    where = "hanoibot/puzzle/state.py"
    assert problems == [
        f"{where}:2: hanoibot.puzzle.state (puzzle) imports hanoibot.run (run, a higher layer)",
        f"{where}:5: hanoibot.puzzle.state (puzzle) imports hanoibot.link.session (link, a higher layer)",
    ]


def test_layers_follow_the_data_flow_down_to_the_codec() -> None:
    order = [name for name, _ in LAYERS]
    chain = ["firmware", "arm", "puzzle", "planner", "motion", "link", "run", "ops", "console", "commands"]
    assert [order.index(name) for name in chain] == sorted(order.index(name) for name in chain)


#: Front-end imports of the run or the link that issue 36 (item 1: every use case in ops/) has not moved behind
#: ops/ yet, as ``path: imported module``. This list only shrinks: an entry that no longer matches fails the test.
STILL_PAST_OPS = {
    # `hanoibot emulate` makes the virtual Pico itself (issue 36 item 4: the simulator behind a seam)
    "hanoibot/cli_support/emulate_pico.py: hanoibot.link.urlhandler.protocol_vpico",
}


def test_front_ends_reach_the_run_and_the_link_only_through_ops() -> None:
    # commands/, console/ and what the commands share parse and render; the use cases are ops/'s (DESIGN 16)
    reaches = front_end_reaches([ROOT / "host"])
    assert [reach for reach in reaches if reach not in STILL_PAST_OPS] == []
    assert sorted(STILL_PAST_OPS - set(reaches)) == [], "moved behind ops/: strike it from STILL_PAST_OPS"


def test_a_front_end_reaching_past_ops_is_found(tmp_path: Path) -> None:
    # A synthetic tree: a command following a run itself and a console reaching the link, lazily and for types;
    # the same through ops/ is fine, and so is a layer that is no front end.
    package = tmp_path / "hanoibot"
    for folder in ("commands", "console", "ops", "run", "link"):
        (package / folder).mkdir(parents=True)
        (package / folder / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "commands" / "run.py").write_text(
        "from typing import TYPE_CHECKING\n\nfrom ..ops.follow import Follow\n\nif TYPE_CHECKING:\n"
        "    from ..run.runner import Run\n\ndef drive():\n    from ..run import sequencer\n"
    )
    (package / "console" / "worker.py").write_text("import hanoibot.link.session\nfrom ..ops import board\n")
    (package / "ops" / "follow.py").write_text("from ..run.runner import Run\n")
    assert front_end_reaches([tmp_path]) == [
        "hanoibot/commands/run.py: hanoibot.run",
        "hanoibot/commands/run.py: hanoibot.run.runner",
        "hanoibot/console/worker.py: hanoibot.link.session",
    ]


#: Private access that stays within its own class (a classmethod using the instance it made, a class counter).
OWN_CLASS = {
    "hanoibot/run/journal.py: journal._lock",
    "hanoibot/sim/board.py: SimBoard._boards_made",
}


def test_no_object_reaches_into_another_objects_private_members() -> None:
    # The link session talks to its LinkCore through public methods only, and so does every other seam.
    assert private_reaches(ROOT / "host", OWN_CLASS) == []


def test_a_reach_into_private_members_is_found(tmp_path: Path) -> None:
    (tmp_path / "seam.py").write_text("def f(session):\n    return session.core._window, session._replace()\n")
    assert private_reaches(tmp_path, set()) == ["seam.py:2: session.core._window"]


def test_registering_a_url_handler_by_name_counts_as_an_import(tmp_path: Path) -> None:
    # The link once registered its simulator handlers by name in its own __init__: pyserial imported the sim for it,
    # and no import statement showed that the link depended on a layer above it.
    package = tmp_path / "hanoibot" / "link"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        "import serial\nserial.protocol_handler_packages.append('hanoibot.link.urlhandler')\n"
    )
    assert upward_imports([tmp_path]) == [
        "hanoibot/link/__init__.py:2: hanoibot.link (link) imports hanoibot.link.urlhandler"
        " (transports, a higher layer)"
    ]


def test_the_link_rooms_sit_below_the_engine_that_composes_them(tmp_path: Path) -> None:
    package = tmp_path / "hanoibot" / "link"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "core.py").write_text("from .sender import Sender\nfrom .urlhandler import register\n")
    (package / "sender.py").write_text("from .flight import UnreadBytes\n\ndef f():\n    from .core import LinkCore\n")
    assert upward_imports([tmp_path]) == [
        "hanoibot/link/core.py:2: hanoibot.link.core (link) imports hanoibot.link.urlhandler"
        " (transports, a higher layer)",
        "hanoibot/link/sender.py:4: hanoibot.link.sender (link rooms) imports hanoibot.link.core"
        " (link, a higher layer)",
    ]


def test_the_url_handlers_are_registered_where_the_layers_see_it() -> None:
    # Only the transports layer names itself to pyserial; the layers above import it to use sim:// and vpico://.
    registrations = [
        path.relative_to(ROOT / "host").as_posix()
        for path in (ROOT / "host").rglob("*.py")
        if "protocol_handler_packages" in path.read_text(encoding="utf-8")
    ]
    assert registrations == ["hanoibot/link/urlhandler/__init__.py"]
    assert upward_imports(IMPORT_ROOTS) == []
