"""The recovery matrix from the page: every way a run ends x every recovery the page offers, driven through the
console's WebSocket protocol on ``sim://`` and judged by the simulated world's log (no COLLISION, no DROP, a held
disk put down on a peg, the goal reached where the recovery finishes the run), as the CLI's matrix is
(tests/recovery_matrix.py).

Rows: done, fault (the arm is told AAA but disk 1 is on C: its first pick misses), stopped (Stop after two moves,
the board left HELD), e-stopped (E-STOP from a watching page while a disk is carried), board reset mid-run.
Columns: Resume, Home, Clear (then Home). An e-stop is released only by a Clear sent after it: Resume and Home are
refused until then, and nothing moves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from console_bench import Bench, Page, bench_on, reset_once_mid_carry
from hanoibot.puzzle import peg_index, peg_letter
from world_events import bad_events

pytestmark = pytest.mark.slow

ROWS = ("done", "fault", "stopped", "estopped", "reset")
COLUMNS = ("resume", "home", "clear")
PORTS = {"fault": "sim://?speed=8&board=CAA", "reset": "sim://?speed=8&reset_after=150"}
RUN = {"rules": "classic", "goal": "CCC", "pegs": 3}
#: How the page's message starts when a run ended.
ENDS = ("done:", "stopped")


def picks(bench: Bench) -> int:
    """Disks the world saw picked so far."""
    return sum(1 for e in bench.events if e.get("event") == "pick")


def end_run(bench: Bench, controller: Page, watcher: Page, row: str) -> dict[str, Any]:
    """Connect, run AAA to CCC and end the run as ``row`` says; returns the state the page shows then."""
    controller.send("connect", state="AAA", pegs=3)
    controller.wait_for(lambda s: s["connected"] and s["busy"] == "", "connected")
    controller.send("run", **RUN)
    if row == "stopped":
        controller.wait_for(lambda s: s["moves_done"] >= 2, "two moves done")
        controller.send("stop")
    elif row == "estopped":
        controller.wait_for(lambda s: picks(bench) >= 2 and s["held"] is not None, "a disk carried", 30.0)
        watcher.send("estop")
        return controller.wait_for(lambda s: s["mode"] == "ESTOP" and s["busy"] == "", "e-stopped")
    ended = controller.idle("the run ended")
    expected = {"done": "done:", "fault": "stopped by a fault", "stopped": "stopped after", "reset": ""}[row]
    assert expected in ended["message"], ended
    return ended


def home_and_check(controller: Page, bench: Bench) -> None:
    """Home from the page; the arm gets home with empty fingers."""
    controller.send("home")
    home = controller.wait_for(lambda s: s["busy"] == "" and s["phase"] == "idle", "Home done")
    assert home["message"].startswith("the arm is home") and not home["error"], home
    world = bench.board.world
    assert world.held_disk is None and world.state is not None, "a disk was left in the gripper or off the pegs"


def resume_and_check(controller: Page, bench: Bench, row: str, *, dropped: bool = False) -> None:
    """Resume from the page: it finishes the run (a fault row may fault again, as may a reset that dropped the
    carried disk: the page was not told where it fell), or says there is nothing to."""
    controller.send("resume")
    ended = controller.wait_for(
        lambda s: s["busy"] == "" and s["phase"] == "idle" and (bool(s["error"]) or s["message"].startswith(ENDS)),
        "Resume over",
    )
    if row == "done":
        assert "no stopped run" in ended["error"], ended
    elif row == "fault" or dropped:
        assert ended["message"].startswith(("done:", "stopped by a fault")), ended
    else:
        assert ended["message"].startswith("done:") and ended["board_text"] == "CCC", (ended["message"], ended["error"])
        assert bench.board.world.state is not None and bench.board.world.state.to_string() == "CCC"


def answer_where_the_disk_lies(controller: Page, bench: Bench, question: dict[str, Any]) -> None:
    """As a person at the arm: a fallen disk goes back on the peg it came from, then the page is told its peg."""
    world, disk = bench.board.world, question["disk"]
    if disk in world.disks.loose_disks:
        world.put_back(bench.board.clock.now_s(), disk, peg_index(question["pegs"][0]))
    state = world.state
    assert state is not None, f"disk {disk} was left in the gripper or another is off the pegs"
    peg = next(peg_letter(i) for i, stack in enumerate(state.stacks) if disk in stack)
    assert peg in question["pegs"], (peg, question)
    controller.send("resume")  # refused until the page knows where the disk lies
    refused = controller.wait_for(lambda s: bool(s["error"]) and s["busy"] == "", "a refusal")
    assert f"where disk {disk} lies" in refused["error"], refused
    controller.send("answer", peg=peg)
    answered = controller.wait_for(lambda s: s["question"] is None and s["busy"] == "", "the answer taken")
    assert answered["board_text"] == state.to_string(), (answered, state)


@pytest.mark.parametrize(("row", "column"), [(row, column) for row in ROWS for column in COLUMNS])
def test_every_way_a_run_ends_recovers_from_the_page(
    row: str, column: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with bench_on(PORTS.get(row, "sim://?speed=8"), str(tmp_path), monkeypatch) as bench:
        controller, watcher = bench.page(), bench.page()
        ended = end_run(bench, controller, watcher, row)
        judged_from = len(bench.events) if row == "reset" else 0  # a reset board lets go of what it held
        if row == "estopped":  # released only by a Clear sent after it: until then nothing moves
            done_before = bench.board.executed_cmd_ids()
            controller.send("resume" if column == "resume" else "home")
            refused = controller.wait_for(lambda s: bool(s["error"]) and s["busy"] == "", "a refusal")
            assert "latched ESTOP" in refused["error"] and refused["mode"] == "ESTOP", refused
            assert bench.board.executed_cmd_ids() == done_before
        if row == "reset":
            assert "was reset" in ended["error"], ended
            if bench.board.world.held_disk is not None:
                # The reset caught a disk in the gripper: nothing may move until a person takes it out by hand.
                done_before = bench.board.executed_cmd_ids()
                controller.send(column if column != "clear" else "home")
                refused = controller.wait_for(lambda s: bool(s["error"]) and s["busy"] == "", "a refusal")
                assert "by hand" in refused["error"], refused
                assert bench.board.executed_cmd_ids() == done_before and bench.board.world.held_disk is not None
                assert bad_events(bench.events[judged_from:]) == []
                return
            question = ended["question"]
            if question is not None:  # the reset let a carried disk go: the person looks and answers
                assert controller.state["question"] == question
                answer_where_the_disk_lies(controller, bench, question)
        if column == "clear" or row == "estopped":
            controller.send("clear")
            cleared = controller.wait_for(lambda s: s["busy"] == "" and "Home or Resume" in s["message"], "Clear")
            assert cleared["mode"] in ("IDLE", "UNCONFIGURED") and not cleared["faults"], cleared
        if column == "resume":
            fell = any(e.get("event") in ("drop", "fault") for e in bench.events[:judged_from])
            resume_and_check(controller, bench, row, dropped=fell)
        else:
            home_and_check(controller, bench)
        assert bad_events(bench.events[judged_from:]) == []


def test_the_page_changes_the_arms_disks_and_disconnects_and_reconnects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with bench_on("sim://?speed=8", str(tmp_path), monkeypatch) as bench:
        page = bench.page()
        page.send("connect", state="CAA", pegs=3)
        page.wait_for(lambda s: s["connected"] and s["busy"] == "", "connected")
        page.send("run", rules="classic", goal="AAAA", pegs=3)  # the page now plays 4 disks: refused, one line
        refused = page.wait_for(lambda s: bool(s["error"]), "a refusal")
        assert "3 disks but the page plays 4: press Connect" in refused["error"]
        page.send("connect", state="AAAA", pegs=3)  # Connect again gives the arm the page's board
        page.wait_for(lambda s: s["board_text"] == "AAAA" and s["busy"] == "", "the new board")
        page.send("run", rules="classic", goal="CCCC", pegs=3)
        done = page.wait_for(lambda s: s["message"].startswith("done:"), "the 4-disk run done")
        assert done["moves_done"] == 15 and bench.board.world.state.to_string() == "CCCC"
        page.send("disconnect")
        page.wait_for(lambda s: not s["connected"] and s["message"] == "disconnected", "disconnected", 10.0)
        page.send("connect", state="AB", pegs=3)
        page.wait_for(lambda s: s["connected"] and s["board_text"] == "AB", "connected again")
        assert bench.board.world.state.to_string() == "AB"
        assert bad_events(bench.events) == []


def test_a_reset_that_lets_a_carried_disk_go_asks_where_it_lies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The board resets while the arm carries the third disk it picked (its lift under way): the limp
    gripper lets it go between its pegs, so the page asks where it lies, refuses Resume until told, then finishes
    the run from the answer."""
    with bench_on("sim://?speed=8", str(tmp_path), monkeypatch) as bench:
        reset_once_mid_carry(monkeypatch)  # over the bench's recording feed
        controller = bench.page()
        end_run(bench, controller, bench.page(), "reset")
        ended = controller.wait_for(lambda s: s["question"] is not None and s["busy"] == "", "the question")
        assert "was reset" in ended["error"], ended
        judged_from = len(bench.events)
        answer_where_the_disk_lies(controller, bench, ended["question"])
        resume_and_check(controller, bench, "reset")
        assert bad_events(bench.events[judged_from:]) == []
