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
