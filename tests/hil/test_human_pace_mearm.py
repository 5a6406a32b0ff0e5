"""``hanoibot calibrate`` by pegs for the MeArm preset (issue 32) at a person's pace, against ``hanoibot emulate``
with the preset as the robot config of the board and of the command: keys arrive seconds apart (far past the
board's host watchdog, 0.3 s, and the link's silence bound, 1 s) and the command carries on. The level claw goes
to each peg's foot with the peg between its open fingertips; the emulator's world judges (nothing collided,
nothing dropped), and the pegs saved are where the preset puts them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import tomlkit
from hanoibot.arm import preset_text
from hanoibot.sim.spawn import EmulatorProcess
from human_pace import PacedCommand
from world_events import bad_events

#: A person thinking, in s, between keys.
THINK_S = 5.0


@pytest.fixture
def mearm_config(tmp_path: Path) -> Path:
    """The MeArm preset written out as a robot config file."""
    path = tmp_path / "mearm.toml"
    path.write_text(preset_text("mearm"), encoding="utf-8")
    return path


@pytest.fixture
def emulator(mearm_config: Path) -> Iterator[EmulatorProcess]:
    """The MeArm's board with servos at 5x speed and all three disks on A."""
    with EmulatorProcess("--speed", "5", "--config", str(mearm_config), "--board", "AAA", "--seed", "1") as process:
        yield process


@pytest.mark.slow
def test_calibrate_the_mearm_by_pegs_at_a_persons_pace(
    emulator: EmulatorProcess, mearm_config: Path, tmp_path: Path
) -> None:
    output = tmp_path / "mine.toml"
    argv = ("calibrate", "--port", emulator.port_path, "--config", str(mearm_config), "--output", str(output))
    calibrate = PacedCommand(*argv)
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
    truth = tomlkit.parse(preset_text("mearm"))["board"]["pegs"]
    assert len(saved) == len(truth) == 3
    for peg, true in zip(saved, truth, strict=True):
        assert abs(float(peg["x_mm"]) - float(true["x_mm"])) <= 0.5, (peg, true)
        assert abs(float(peg["y_mm"]) - float(true["y_mm"])) <= 0.5, (peg, true)
    assert bad_events(emulator.events()) == []
