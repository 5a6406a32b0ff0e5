"""`home --release` and `run --release` on sim://: judged from the simulated board (every servo output off)."""

from __future__ import annotations

from typing import Any

import hanoibot.link.core
import pytest
from hanoibot.cli import main


@pytest.fixture
def opened_ports(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The port the commands open (a sim:// port has ``.board``): made by the first command, and reopened by the
    next ones, so that they all talk to one board as they would on a real port."""
    ports: list[Any] = []
    real_open_port = hanoibot.link.core.open_port

    def recording_open_port(url: str, **kwargs: Any) -> Any:
        if ports:
            ports[0].open()
            return ports[0]
        ports.append(real_open_port(url, **kwargs))
        return ports[0]

    monkeypatch.setattr(hanoibot.link.core, "open_port", recording_open_port)
    return ports


def board_pulses_us(ports: list[Any]) -> list[int | None]:
    """The pulses the one simulated board outputs now (None = output off)."""
    assert len(ports) == 1
    pulses: list[int | None] = ports[0].board.servos.pulses_us()
    return pulses


def test_run_release_switches_every_output_off_after_the_run(
    capsys: pytest.CaptureFixture[str], opened_ports: list[Any]
) -> None:
    code = main(["run", "-n", "2", "--plain", "--release"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "released" in out
    board = opened_ports[0].board
    assert board.executed_cmd_ids(), "the run moved the arm"
    assert board_pulses_us(opened_ports) == [None] * board.channels


def test_run_without_release_keeps_the_arm_powered(capsys: pytest.CaptureFixture[str], opened_ports: list[Any]) -> None:
    assert main(["run", "-n", "2", "--plain"]) == 0
    assert "released" not in capsys.readouterr().out
    assert None not in board_pulses_us(opened_ports)


def test_run_release_is_not_done_after_a_fault(capsys: pytest.CaptureFixture[str], opened_ports: list[Any]) -> None:
    # The board reboots mid-run: the run stops in fault and the outputs are left as the fault left them (a
    # released arm could drop a disk it holds), so nothing is released on purpose and "released" is not claimed.
    code = main(["run", "-n", "2", "--plain", "--release", "--port", "sim://?reset_after=30"])
    out, _ = capsys.readouterr()
    assert code == 1
    assert "released" not in out


def test_home_release_switches_every_output_off(capsys: pytest.CaptureFixture[str], opened_ports: list[Any]) -> None:
    assert main(["home"]) == 0
    assert None not in board_pulses_us(opened_ports), "homed: every servo holds its pose"
    code = main(["home", "--release"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "output is off" in out
    assert board_pulses_us(opened_ports) == [None] * opened_ports[0].board.channels
    assert main(["home"]) == 0, "a released board can be homed again"
    assert None not in board_pulses_us(opened_ports)
