"""The e-stop from a second terminal (``hanoibot estop --port P``) in every situation a command can be in, against
``hanoibot emulate`` (the firmware core in wall-clock time behind a real pty): before a run's first move, while a
run moves, while ``home`` moves, while ``jog`` and ``calibrate`` wait for keys (they end at once, saying why).
At the run's pause prompt: tests/hil/test_pause_prompt_link.py.

The emulator's world is the judge: from the moment ``hanoibot estop`` says the board confirmed the latch, the
board executes nothing and the world sees no pick or place until a Clear (``home --clear``); the command that was
running ends saying the e-stop stopped it, and the board reports mode ESTOP.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_runner import HANOIBOT, hanoibot
from hanoibot.sim.spawn import EmulatorProcess
from human_pace import PacedCommand
from world_events import bad_events

#: Longest any one command may take, in s.
BOUND_S = 60.0
#: What the emulator's log says when the arm finishes a command or the world sees a disk move.
MOTION_EVENTS = ("executed", "pick", "place")
#: A person's pause before a key, in s.
THINK_S = 1.5


def motion(events: list[dict[str, object]]) -> list[dict[str, object]]:
    """The events among ``events`` that say the arm moved."""
    return [event for event in events if event.get("event") in MOTION_EVENTS]


def wait_for(condition: object, what: str, bound_s: float = BOUND_S) -> None:
    """Poll ``condition()`` every 20 ms until it is true; fails the test past ``bound_s`` s."""
    deadline_s = time.monotonic() + bound_s
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline_s, f"no {what} within {bound_s:g} s"
        time.sleep(0.02)


class SecondTerminal:
    """The emulated board and the person's second terminal: ``estop`` latches the e-stop, then :meth:`check`
    says nothing moved since."""

    def __init__(self, emulator: EmulatorProcess) -> None:
        self.emulator = emulator
        self.port = emulator.port_path
        self.latched_at = -1

    def estop(self) -> subprocess.CompletedProcess[str]:
        """``hanoibot estop --port P``; the world's log position once it returned (the latch confirmed)."""
        stopped = hanoibot("estop", "--port", self.port, timeout_s=BOUND_S)
        assert stopped.returncode == 0, stopped.stdout + stopped.stderr
        self.latched_at = len(self.emulator.events())
        return stopped

    def check_nothing_moved(self) -> None:
        """Since the latch: no command executed, no disk picked or placed; the board still e-stopped."""
        time.sleep(0.5)  # anything the board would do after the command ended has happened by now
        assert motion(self.emulator.events()[self.latched_at :]) == []
        assert board_mode(self.port) == "ESTOP"

    def clear_and_check(self, *journal: str) -> None:
        """``home --clear`` releases the latch (and moves again); no collision or drop, before or after."""
        home = hanoibot("home", "--clear", *journal, "--port", self.port, timeout_s=BOUND_S)
        assert home.returncode == 0, home.stdout + home.stderr
        assert board_mode(self.port) != "ESTOP"
        assert bad_events(self.emulator.events()) == []


@pytest.fixture
def emulator(request: pytest.FixtureRequest) -> Iterator[EmulatorProcess]:
    """``hanoibot emulate`` with all three disks on A; servos at the speed a test asks for (indirect parameter),
    else 5x."""
    speed = str(getattr(request, "param", 5))
    with EmulatorProcess("--speed", speed, "--board", "AAA", "--seed", "1") as process:
        yield process


def board_mode(port: str) -> str:
    """The mode the board on ``port`` reports (``hanoibot status --json``)."""
    return str(json.loads(hanoibot("status", "--json", "--port", port, timeout_s=BOUND_S).stdout)["mode"])


def run_process(port: str, journal: Path) -> subprocess.Popen[str]:
    """A 3-disk journaled ``hanoibot run`` with no terminal."""
    argv = [*HANOIBOT, "run", "-n", "3", "--plain", "--port", port, "--journal", str(journal)]
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
def test_an_estop_before_a_runs_first_move_keeps_the_arm_still(emulator: EmulatorProcess, tmp_path: Path) -> None:
    # The run is still starting (importing, planning, opening the port): whether the e-stop reaches the board
    # through the free port or through the run's control socket, the run must not move the arm.
    person = SecondTerminal(emulator)
    run = run_process(person.port, tmp_path / "run.journal")
    try:
        person.estop()
        out, err = run.communicate(timeout=BOUND_S)
    finally:
        if run.poll() is None:
            run.kill()
    # Refused before it began (the latch came first: exit 2), or e-stopped as it came up (exit 1)
    assert (run.returncode, "latched ESTOP" in err) == (2, True) or (run.returncode, "e-stopped" in err) == (1, True), (
        out + err
    )
    assert motion(emulator.events()) == []
    person.check_nothing_moved()
    person.clear_and_check()


@pytest.mark.slow
def test_an_estop_while_a_run_moves_stops_it_until_a_clear(emulator: EmulatorProcess, tmp_path: Path) -> None:
    person = SecondTerminal(emulator)
    journal = tmp_path / "run.journal"
    run = run_process(person.port, journal)
    try:
        wait_for(lambda: motion(emulator.events()), "motion from the run")
        person.estop()
        out, err = run.communicate(timeout=BOUND_S)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 1 and "e-stopped" in err, out + err
    person.check_nothing_moved()
    person.clear_and_check("--journal", str(journal))


@pytest.mark.slow
@pytest.mark.parametrize("emulator", [1], indirect=True, ids=["servos-at-1x"])
def test_an_estop_while_home_moves_stops_it_until_a_clear(emulator: EmulatorProcess, tmp_path: Path) -> None:
    # A run killed with a disk in the fingers; `home` puts it down and travels home (seconds at the servos' speed).
    person = SecondTerminal(emulator)
    journal = tmp_path / "run.journal"
    run = run_process(person.port, journal)
    try:
        wait_for(lambda: any(e.get("event") == "pick" for e in emulator.events()), "a pick")
    finally:
        run.kill()
        run.communicate(timeout=BOUND_S)
    # The board plays out what the killed run had queued (its watchdog holds the pose if the silence comes first).
    wait_for(lambda: board_mode(person.port) != "MOVING", "the board at rest")
    before = len(emulator.events())
    argv = [*HANOIBOT, "home", "--journal", str(journal), "--port", person.port]
    home = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: motion(emulator.events()[before:]), "motion from home")
        person.estop()
        out, err = home.communicate(timeout=BOUND_S)
    finally:
        if home.poll() is None:
            home.kill()
    assert home.returncode == 1 and "`hanoibot estop` from another process stopped the arm" in err, out + err
    person.check_nothing_moved()
    person.clear_and_check("--journal", str(journal))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("argv", "prompt", "keys"),
    [
        (("jog",), "keys:", "1+"),
        (("calibrate", "--output", "{tmp}/mine.toml"), "around the foot of peg A", "x+"),
    ],
    ids=["jog", "calibrate"],
)
def test_an_estop_while_a_person_jogs_ends_the_command_and_nothing_moves(
    argv: tuple[str, ...], prompt: str, keys: str, emulator: EmulatorProcess, tmp_path: Path
) -> None:
    person = SecondTerminal(emulator)
    command = PacedCommand(*(part.format(tmp=tmp_path) for part in argv), "--port", person.port)
    try:
        command.read_until(prompt)
        moved = len(emulator.executed_cmd_ids())
        command.type_after(THINK_S, keys)
        wait_for(lambda: len(emulator.executed_cmd_ids()) > moved, "the step the key asked for")
        person.estop()
        code, out, err = command.finish()  # it hears of the e-stop while it waits for the next key, and stops
    finally:
        command.close()
    assert code == 1 and "`hanoibot estop` from another process e-stopped the board" in out + err, out + err
    person.check_nothing_moved()
    person.clear_and_check()
