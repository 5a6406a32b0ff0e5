"""Interactive commands at a person's pace, against ``hanoibot emulate`` (the firmware core in wall-clock time
behind a real pty, where silence is noticed as on a real board) and ``hanoibot emulate --pico`` (the stock
MicroPython image on an emulated RP2040, whose time runs whether the host talks or not): keys and answers arrive 5 to
60 s apart — far past the board's host watchdog (0.3 s) and the link's silence bound (1 s) — and each command
carries on.

``jog``, ``calibrate`` (by pegs; also cut short and gone on with), ``calibrate --grip``, ``home``'s "which disk?"
question (with a typo first) and the run's pause prompt (one key, after a wrong one). The emulator's world is the
judge: the board executed what came after each pause, nothing collided, nothing dropped.
"""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import tomlkit
from cli_runner import HANOIBOT, ArmedCommand
from hanoibot.commands.run import PAUSE_QUESTION
from hanoibot.config import default_config_path
from hanoibot.sim.spawn import EmulatorProcess
from human_pace import PacedCommand
from vpico_checks import CHIP_SLOW, require_machine_sustains_the_cap
from world_events import bad_events

#: A person thinking, in s: the common pause, and the long one (one test).
THINK_S = 6.0
LONG_THINK_S = 60.0
#: Longest the board may take to boot to its HELLO, in s of wall time (the virtual Pico boots MicroPython first).
BOOT_S = 120.0


#: The two boards: the firmware core in this machine's Python, and the virtual Pico (chip capped at 1/CHIP_SLOW).
BOARDS = [
    pytest.param((), id="emulate"),
    pytest.param(
        ("--pico", "--slow", str(CHIP_SLOW)), id="pico", marks=[pytest.mark.vpico, pytest.mark.vpico_realtime]
    ),
]


@pytest.fixture(params=BOARDS)
def board_options(request: pytest.FixtureRequest) -> tuple[str, ...]:
    """``hanoibot emulate`` options of the board under test (the virtual Pico skips on a machine too busy for it)."""
    options: tuple[str, ...] = request.param
    if options:
        require_machine_sustains_the_cap()
    return options


@pytest.fixture
def emulator(board_options: tuple[str, ...]) -> Iterator[EmulatorProcess]:
    """The board with servos at 5x speed and all three disks on A."""
    with EmulatorProcess(*board_options, "--speed", "5", "--board", "AAA", "--seed", "1", startup_s=BOOT_S) as process:
        yield process


def executed(emulator: EmulatorProcess) -> int:
    """Commands the emulated board has executed so far."""
    return len(emulator.executed_cmd_ids())


@pytest.mark.slow
def test_jog_keys_a_minute_apart(emulator: EmulatorProcess) -> None:
    jog = PacedCommand("jog", "--port", emulator.port_path)
    try:
        jog.read_until("keys:")
        jog.type_after(THINK_S, "1+")
        jog.read_until("base=")
        before = executed(emulator)
        jog.type_after(LONG_THINK_S, "+q")
        code, out, err = jog.finish()
    finally:
        jog.close()
    assert code == 0 and err == "", err
    assert executed(emulator) == before + 1, "the step typed after a minute was made"
    assert out.count("base=") == 3 and bad_events(emulator.events()) == []


@pytest.mark.slow
def test_calibrate_by_pegs_at_a_persons_pace(emulator: EmulatorProcess, tmp_path: Path) -> None:
    output = tmp_path / "mine.toml"
    calibrate = PacedCommand("calibrate", "--port", emulator.port_path, "--output", str(output))
    try:
        for letter in "ABC":
            calibrate.read_until(f"around the foot of peg {letter}")
            calibrate.type_after(THINK_S, "x+-s" if letter == "A" else "s")
        calibrate.read_until("grip sensor:")
        calibrate.type_after(THINK_S, "skip\n")
        code, out, err = calibrate.finish()
    finally:
        calibrate.close()
    assert code == 0, out + err
    saved = tomlkit.parse(output.read_text())["board"]["pegs"]
    truth = tomlkit.parse(default_config_path().read_text())["board"]["pegs"]
    for peg, true in zip(saved, truth, strict=True):
        assert abs(float(peg["x_mm"]) - float(true["x_mm"])) <= 0.5, (peg, true)
        assert abs(float(peg["y_mm"]) - float(true["y_mm"])) <= 0.5, (peg, true)
    assert bad_events(emulator.events()) == []


@pytest.mark.slow
def test_calibrate_cut_short_at_a_persons_pace_goes_on_where_it_stopped(
    emulator: EmulatorProcess, tmp_path: Path
) -> None:
    output = tmp_path / "mine.toml"
    argv = ("calibrate", "--port", emulator.port_path, "--output", str(output))
    first = PacedCommand(*argv)
    try:
        first.read_until("around the foot of peg A")
        first.type_after(THINK_S, "x+-s")
        first.read_until("peg A: x=")
        first.read_until("around the foot of peg B")
        first.type_after(THINK_S, "")  # thinks, then walks away: the input ends
        code, out, err = first.finish()
    finally:
        first.close()
    assert code == 1 and f"peg A was saved in {output}" in out, out + err
    again = PacedCommand(*argv)
    try:
        again.read_until("around the foot of peg B")
        again.type_after(THINK_S, "k")  # a key that does nothing: said, with the keys that do something
        again.read_until("k does nothing here")
        again.type_after(THINK_S, "s")
        again.read_until("around the foot of peg C")
        again.type_after(THINK_S, "s")
        again.read_until("grip sensor: type skip")
        again.type_after(THINK_S, "skip\n")
        code, out, err = again.finish()
    finally:
        again.close()
    assert code == 0, out + err
    assert "going on with the calibration that stopped at peg B" in out and "around the foot of peg A" not in out
    saved = tomlkit.parse(output.read_text())["board"]["pegs"]
    truth = tomlkit.parse(default_config_path().read_text())["board"]["pegs"]
    for peg, true in zip(saved, truth, strict=True):
        assert abs(float(peg["x_mm"]) - float(true["x_mm"])) <= 0.5, (peg, true)
    assert bad_events(emulator.events()) == []


@pytest.mark.slow
def test_calibrate_grip_at_a_persons_pace(emulator: EmulatorProcess, tmp_path: Path) -> None:
    grip = PacedCommand("calibrate", "--grip", "--port", emulator.port_path, "--output", str(tmp_path / "g.toml"))
    try:
        grip.read_until("take everything out of the gripper")
        grip.type_after(THINK_S, "\n")
        grip.read_until("hold a disk between the open fingers")
        before = executed(emulator)
        grip.type_after(THINK_S, "\n")
        code, _out, err = grip.finish()
    finally:
        grip.close()
    # Nobody can put a disk into the emulated fingers: both closes read the same current, which the command
    # refuses by name. It got there: both closes were made, each after a pause, over a link that stayed up.
    assert code == 2 and "is not clearly above the empty close" in err, err
    assert executed(emulator) >= before + 2


@pytest.mark.slow
def test_homes_question_answered_late_after_a_typo(board_options: tuple[str, ...], tmp_path: Path) -> None:
    from robot_configs import speed_scaled_config
    from test_home_puts_a_held_disk_down import BOUND_S, SLOWER, wait_for_pick

    config = str(speed_scaled_config(tmp_path, 1 / SLOWER, gripper=False))
    with EmulatorProcess(
        *board_options, "--config", config, "--board", "AA", "--seed", "3", startup_s=BOOT_S
    ) as emulator:
        port = emulator.port_path
        with ArmedCommand("estop", "--port", port, timeout_s=BOUND_S) as estop:
            # journaled where `home` does not look (a user who lost the journal): home must ask which disk
            journal = ["--journal", str(tmp_path / "elsewhere.journal")]
            argv = [*HANOIBOT, "run", "-n", "2", "--plain", "--port", port, "--config", config, *journal]
            run = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            try:
                picked = wait_for_pick(emulator, 2)  # the second move's disk is in the gripper
                assert estop.fire().returncode == 0
                run.communicate(timeout=BOUND_S)
            finally:
                run.kill()
                run.wait(timeout=BOUND_S)
        home = PacedCommand("home", "--clear", "--port", port, "--config", config, terminal=True)
        try:
            home.read_until("The gripper holds a disk.")
            home.type_after(THINK_S, "BA two\n")  # a typo: asked again, not the end
            home.read_until("try again")
            seen = len(emulator.events())
            home.type_after(THINK_S, f"BA {picked['disk']}\n")
            code, out, err = home.finish()
        finally:
            home.close()
        assert code == 0, out + err
        assert f"home: put disk {picked['disk']} back on peg {picked['peg']}" in out
        placed = [e for e in emulator.events()[seen:] if e.get("event") in ("place", "drop")]
        assert placed[:1] == [{**placed[0], "event": "place", "disk": picked["disk"], "peg": picked["peg"]}], placed
        assert bad_events(emulator.events()) == []


@pytest.mark.slow
def test_the_pause_prompt_answered_late_after_a_typo(emulator: EmulatorProcess, tmp_path: Path) -> None:
    journal = tmp_path / "run.journal"
    argv = ("run", "-n", "3", "--plain", "--port", emulator.port_path, "--journal", str(journal))
    run = PacedCommand(*argv, terminal=True)
    try:
        run.read_until("move 1 of 7")
        run.process.send_signal(signal.SIGINT)
        run.read_until(PAUSE_QUESTION)
        run.type_after(THINK_S, "m")  # not an answer: asked again
        run.read_until(PAUSE_QUESTION, count=2)
        run.type_after(THINK_S, "c")  # one key: no Enter at a terminal
        code, out, err = run.finish()
    finally:
        run.close()
    assert code == 0, out + err
    assert "done: 7 of 7 moves, board CCC" in out
    assert bad_events(emulator.events()) == []
