"""The page's question after a reset let a carried disk go, in Chromium: the console runs in this process (so the
simulated board can be reset while the arm carries a disk), the page shows one button per peg the disk may lie on,
Resume is refused until a button is pressed, and the run then finishes from the answer."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from console_bench import record_boards, reset_once_mid_carry
from hanoibot.console.app import ConsoleSettings, make_app
from hanoibot.puzzle import peg_letter
from hanoibot.sim.board import SimBoard

pytestmark = pytest.mark.slow

#: Longest wait for the simulated arm, in ms of wall time.
ARM_WAIT_MS = 90_000


class InProcessConsole:
    """The console app under uvicorn on a thread of this process, on a free loopback port (``url``)."""

    def __init__(self, port_url: str, journal_dir: str) -> None:
        import uvicorn

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/"
        config = uvicorn.Config(make_app(ConsoleSettings(port_url, journal_dir=journal_dir)), log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()
        deadline_s = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline_s, "the console did not start within 20 s"
            time.sleep(0.05)

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)
        self.sock.close()


@pytest.fixture
def boards(monkeypatch: pytest.MonkeyPatch) -> list[SimBoard]:
    """The simulated boards the console makes; each resets once while the arm carries its third disk."""
    made = record_boards(monkeypatch)
    reset_once_mid_carry(monkeypatch)
    return made


@pytest.fixture
def console(boards: list[SimBoard], tmp_path: Path) -> Iterator[InProcessConsole]:
    """The console in this process on the simulated arm, servos 8x faster than real."""
    served = InProcessConsole("sim://?speed=8", str(tmp_path / "journals"))
    yield served
    served.close()


def test_the_page_asks_where_a_disk_lies_and_resumes_from_the_answer(page: Any, boards: list[SimBoard]) -> None:
    page.select_option("#disks", "3")
    page.click("#new")
    page.wait_for_function("() => document.getElementById('position').textContent === 'AAA'")
    page.click("#r-connect")
    page.wait_for_selector("body[data-robot-phase=idle]", timeout=ARM_WAIT_MS)
    assert page.is_hidden("#robot-question")
    page.click("#r-run")
    page.wait_for_selector("#robot-question:not([hidden])", timeout=ARM_WAIT_MS)
    legend = page.inner_text("#robot-question-text")
    assert legend.startswith("Where does disk "), legend
    buttons = page.locator("#robot-question-pegs button")
    assert buttons.count() == 2
    page.wait_for_function("() => !document.getElementById('r-resume').disabled")
    page.click("#r-resume")
    page.wait_for_function(
        "() => document.getElementById('robot-message').textContent.startsWith('first answer where disk')"
    )
    board = boards[-1]
    world, asked = board.world, int(legend.split()[3])
    source = page.inner_text("#robot-question-pegs button >> nth=0")[-1]
    if asked in world.disks.loose_disks:  # as a person would: the fallen disk goes back on the peg it came from
        world.put_back(board.clock.now_s(), asked, ord(source) - ord("A"))
    state = world.state
    assert state is not None
    peg = next(peg_letter(i) for i, stack in enumerate(state.stacks) if asked in stack)
    page.click(f"#robot-question-pegs button:has-text('is on peg {peg}')")
    page.wait_for_selector("#robot-question", state="hidden")
    page.wait_for_function(f"() => document.getElementById('robot-board-text').textContent === '{state.to_string()}'")
    page.click("#r-resume")
    page.wait_for_function(
        "() => document.getElementById('robot-message').textContent.startsWith('done')", timeout=ARM_WAIT_MS
    )
    assert page.inner_text("#robot-board-text") == "CCC" and world.state is not None
    assert world.state.to_string() == "CCC"
