"""Imports point down the layer order of :mod:`layers` (puzzle, planner, motion, ..., run, commands): none points
up, in the host package or in the firmware package."""

from __future__ import annotations

from pathlib import Path

from layers import LAYERS, front_end_reaches, layer_of, package_reaches, private_reaches, upward_imports

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
STILL_PAST_OPS: set[str] = set()


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
    # One place hands packages to pyserial: the link's table of schemes, which each package that has handlers fills
    # itself when imported (the sim its sim:// and vpico://); no layer registers another one's package by name.
    registrations = [
        path.relative_to(ROOT / "host").as_posix()
        for path in (ROOT / "host").rglob("*.py")
        if "protocol_handler_packages" in path.read_text(encoding="utf-8")
    ]
    assert registrations == ["hanoibot/link/port_schemes.py"]
    assert upward_imports(IMPORT_ROOTS) == []


def test_the_link_imports_nothing_of_the_simulator() -> None:
    # The link knows a simulated board only through the port's typed face (link/board_port.py); the simulator's
    # URL handlers live in the sim and fill the link's table of schemes. No chain of imports leads from the link to
    # the sim either, so no circle between the two can exist.
    assert package_reaches([ROOT / "host"], "hanoibot.link", "hanoibot.sim") == []


def test_a_link_module_reaching_the_simulator_is_found(tmp_path: Path) -> None:
    # A synthetic link: the sim named absolutely, relatively, from its parent, lazily, for types, dynamically and to
    # pyserial; a docstring naming it and an import of the base are fine. Then a chain through another package.
    package = tmp_path / "hanoibot"
    for folder in ("link", "sim", "render"):
        (package / folder).mkdir(parents=True)
        (package / folder / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "clock.py").write_text("")
    (package / "sim" / "board.py").write_text("from ..link import port\n")  # the sim may use the link
    (package / "link" / "port.py").write_text(
        '"""Opens hanoibot.sim.board\'s URL."""\n'
        "import importlib\nfrom typing import TYPE_CHECKING\n\nimport serial\n\nfrom ..clock import Clock\n"
        "from ..sim.board import SimBoard\nimport hanoibot.sim.board\nfrom .. import sim\n\n"
        "if TYPE_CHECKING:\n    from hanoibot.sim import board\n\n"
        "def open_it():\n    from ..sim import board\n"
        "    importlib.import_module('hanoibot.sim.urlhandler')\n"
        "    serial.protocol_handler_packages.append('hanoibot.sim.urlhandler')\n"
    )
    where, module = "hanoibot/link/port.py", "hanoibot.link.port"
    assert package_reaches([tmp_path], "hanoibot.link", "hanoibot.sim") == [
        f"{where}:8: {module} imports hanoibot.sim.board",
        f"{where}:9: {module} imports hanoibot.sim.board",
        f"{where}:10: {module} imports hanoibot.sim",
        f"{where}:13: {module} imports hanoibot.sim",
        f"{where}:16: {module} imports hanoibot.sim",
        f"{where}:17: {module} imports hanoibot.sim.urlhandler",
        f"{where}:18: {module} imports hanoibot.sim.urlhandler",
    ]
    # The link clean again, but reaching the sim round a longer way: through the render package.
    (package / "link" / "port.py").write_text("from ..render import svg\n")
    (package / "render" / "svg.py").write_text("def draw():\n    from hanoibot.sim.board import SimBoard\n")
    assert package_reaches([tmp_path], "hanoibot.link", "hanoibot.sim") == [
        "hanoibot.link.port -> hanoibot.render.svg -> hanoibot.sim.board"
    ]
