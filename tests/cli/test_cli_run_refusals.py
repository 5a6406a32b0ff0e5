"""A ``run`` the board refuses prints its one line and nothing else: no progress header, no journal."""

from __future__ import annotations

from typing import Any

import hanoibot.link.core
import pytest
from hanoibot.cli import main
from hanoibot.ops.journals import list_runs


@pytest.fixture
def one_board(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every command of the test talks to the one simulated board the first made (as on a real port)."""
    ports: list[Any] = []
    real_open_port = hanoibot.link.core.open_port

    def shared_open_port(url: str, **kwargs: Any) -> Any:
        if ports:
            ports[0].open()
            return ports[0]
        ports.append(real_open_port(url, **kwargs))
        return ports[0]

    monkeypatch.setattr(hanoibot.link.core, "open_port", shared_open_port)
    return ports


def test_a_run_on_an_estopped_board_prints_one_line_and_no_header(
    capsys: pytest.CaptureFixture[str], one_board: list[Any]
) -> None:
    assert main(["home"]) == 0
    one_board[0].board.controller.estop()  # the board's e-stop button
    capsys.readouterr()
    code = main(["run", "-n", "3", "--plain"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "", out
    assert err.count("\n") == 1 and "latched ESTOP" in err, err
    assert list_runs() == []


def test_after_an_estop_mid_carry_the_hint_home_clear_puts_the_disk_down_without_a_journal_option(
    capsys: pytest.CaptureFixture[str], one_board: list[Any]
) -> None:
    """The run journals by default, so ``hanoibot home --clear`` (what ``estop`` and the run's end say) knows which
    disk the gripper holds: it is put down on a peg, the latch released only then."""
    assert main(["home"]) == 0
    board = one_board[0].board
    world = board.world
    on_tick = world.on_tick

    def estop_once_carried(t_s: float, pulses_us: Any) -> None:
        on_tick(t_s, pulses_us)
        if world.held_disk is not None and not board.controller.faults:
            board.controller.estop()  # the board's e-stop button, while a disk is in the air
            world.on_tick = on_tick

    world.on_tick = estop_once_carried
    assert main(["run", "-n", "3", "--plain"]) == 1
    assert world.held_disk is not None
    capsys.readouterr()
    assert main(["home", "--clear"]) == 0
    out = capsys.readouterr().out
    assert "home: put disk 1 back on peg A (recorded in " in out and "the arm is at its start pose" in out, out
    assert world.held_disk is None and world.state is not None
    assert [e for e in board.events if e.get("event") in ("fault", "drop")] == []
