"""A board slowed to a quarter of a Pico's speed (``sim://?slow=4``: every frame and control step costs four times
a real Pico's chip time): the link backs off instead of keeping it saturated, and a whole run stays healthy. At a
ninth, a round trip outlasts the heartbeat period and the resend back-off cap, and a run still finishes."""

from __future__ import annotations

import itertools
import threading
from typing import Any

import pytest
from hanoibot.config import load_config
from hanoibot.link.core import LinkCore
from hanoibot.planner import make_plan
from hanoibot.run.robot import Robot
from hanoibot.run.runner import Run
from hanoibot.run.sequencer import Phase
from hanoifw import protocol

#: The esp32 REPL's serial input ring, in bytes: what a board may have to hold unread (link/flight.py; the host
#: keeps its own budget of 192 bytes, which frames whose answer a line fault spoiled may briefly exceed).
BOARD_INPUT_BYTES = 260


def record_writes(core: LinkCore) -> list[tuple[float, bytes]]:
    """Every frame the host writes from now on, with the session time it was written at (s)."""
    port: Any = core.port
    written: list[tuple[float, bytes]] = []
    original_write = port.write

    def write(data: bytes) -> int:
        written.append((core.clock.now_s(), bytes(data)))
        return int(original_write(data))

    port.write = write
    return written


def test_an_idle_link_to_a_quarter_speed_board_sends_heartbeats_75_to_100_ms_apart() -> None:
    core = LinkCore("sim://?world=0&slow=4&seed=3")
    core.open()
    written = record_writes(core)
    start_s = core.clock.now_s()
    while core.clock.now_s() - start_s < 3.0:
        core.service(wait=True)
    core.close()
    kinds = {frame.split(b",")[0] for _, frame in written}
    assert kinds <= {protocol.PING.encode(), protocol.STATUS.encode()}, kinds
    gaps_s = [b - a for (a, _), (b, _) in itertools.pairwise(written)]
    assert len(gaps_s) >= 25
    assert min(gaps_s) >= 0.075 - 1e-9
    assert max(gaps_s) <= 0.1
    assert core.retransmits == 0


@pytest.mark.parametrize("faults", ["", "&flip=1e-3"])
def test_a_run_on_a_quarter_speed_board_stays_healthy(faults: str) -> None:
    robot = Robot(f"sim://?board=AAAA&slow=4&seed=1{faults}", load_config())
    robot.open()
    with robot:
        job = Run(robot, make_plan(4))
        assert job.start() is Phase.DONE, job.sequencer.reason
        board = robot.sim_board
        assert board is not None and board.chip is not None
        assert board.executed_cmd_ids(), "the arm moved"
        # The board never had more unread input than a small serial ring holds.
        assert board.chip.max_backlog_bytes < BOARD_INPUT_BYTES
        # Go-back-N resends at most a window per frame a fault spoiled: nothing is resent only for being late.
        wire = robot.session.port.wire  # type: ignore[union-attr]
        spoiled = sum(sum(counts.values()) for counts in wire.fault_counts().values())
        assert robot.session.retransmits <= robot.session.core.sender.window.size * spoiled
        # The next command's handshake is answered at once, not stuck behind a backlog ("no HELLO within 5 s").
        robot.session.close()
        start_s = robot.session.clock.now_s()
        robot.session.open()
        assert robot.session.clock.now_s() - start_s < 0.2


def test_a_run_on_a_board_whose_round_trip_outlasts_the_back_off_cap_finishes() -> None:
    """At a ninth of a Pico's speed an answer takes longer than the resend back-off cap (0.2 s) and the heartbeat
    period: the host waits as long as the measured round trips say instead of piling questions into the board's
    input (which starved CONFIG and then timed out the host's writes). Run in a thread: that failure never ended."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            robot = Robot("sim://?board=AAA&slow=9&seed=1", load_config())
            robot.open()
            with robot:
                job = Run(robot, make_plan(3))
                phase = job.start()
                board = robot.sim_board
                assert board is not None and board.chip is not None
                outcome.append((phase, job.sequencer.reason, board.chip.max_backlog_bytes, robot.session.core.rtt))
        except BaseException as err:  # reported below, in the test's own thread
            outcome.append(err)

    worker = threading.Thread(target=run, name="slow-board-run", daemon=True)
    worker.start()
    worker.join(timeout=120)
    assert outcome, "the run on a board at a ninth of a Pico's speed did not end within 120 s of wall time"
    assert not isinstance(outcome[0], BaseException), repr(outcome[0])
    phase, reason, backlog_bytes, rtt = outcome[0]
    assert phase is Phase.DONE, reason
    assert rtt.srtt_s > rtt.max_rto_s  # the case at hand: answers slower than the back-off cap
    assert backlog_bytes < BOARD_INPUT_BYTES
