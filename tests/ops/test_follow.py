"""Following a run on ``sim://``: the events a front end renders, pause/continue/stop/e-stop, the journal's end, the
ETA without the time paused; judged by the simulated board, the journal and the puzzle's own arithmetic."""

from __future__ import annotations

from pathlib import Path

import pytest
from hanoibot.config import load_config
from hanoibot.errors import HanoiError
from hanoibot.ops.follow import Follow, Kind, Outcome, RunEvent
from hanoibot.ops.start import RunRequest, Started, open_run
from hanoibot.planner import make_plan
from hanoibot.puzzle import State
from hanoibot.run.journal import load_journal

N_DISKS = 3
MOVES = 2**N_DISKS - 1  # the classic puzzle's length


def started(tmp_path: Path) -> Started:
    """A 3-disk run A -> C on a simulated board, journaled in ``tmp_path``, not started."""
    plan = make_plan(N_DISKS, pegs=3, start=State.tower(N_DISKS), goal=State.tower(N_DISKS, peg=2))
    return open_run(RunRequest(plan, load_config(), journal_path=str(tmp_path / "run.journal")))


class Clock:
    """A wall clock the test moves by hand, in s."""

    def __init__(self) -> None:
        self.now_s = 0.0

    def __call__(self) -> float:
        return self.now_s


def test_a_run_followed_to_its_end_reports_every_move_then_finished(tmp_path: Path) -> None:
    run = started(tmp_path)
    events: list[RunEvent] = []
    follow = Follow(run.job, events.append)
    try:
        assert follow.start() is Outcome.DONE
    finally:
        follow.end()
        run.close()
    moves = [e for e in events if e.kind is Kind.MOVE_DONE]
    assert [e.index for e in moves] == list(range(MOVES))
    assert moves[0].move is not None and moves[0].move.disk == 1  # the smallest disk moves first
    assert [e.kind for e in events[MOVES:]] == [Kind.FINISHED]
    assert events[-1].words == f"done: {MOVES} of {MOVES} moves, board CCC" and events[-1] is follow.last
    assert load_journal(tmp_path / "run.journal").end_status == Outcome.DONE.value


def paused_run(tmp_path: Path, clock: Clock | None = None) -> tuple[Started, Follow, list[RunEvent]]:
    """A run that paused after its second move."""
    run = started(tmp_path)
    events: list[RunEvent] = []
    box: list[Follow] = []

    def listen(event: RunEvent) -> None:
        events.append(event)
        if clock is not None and event.kind is Kind.MOVE_DONE:
            clock.now_s += 1.0  # each move takes one wall second
        if event.kind is Kind.MOVE_DONE and event.moves_done == 2:
            box[0].request_pause()

    follow = Follow(run.job, listen, now_s=clock or Clock())
    box.append(follow)
    assert follow.start() is Outcome.PAUSED and follow.is_paused
    return run, follow, events


def test_a_pause_then_continue_finishes_and_says_where_it_went_on(tmp_path: Path) -> None:
    run, follow, events = paused_run(tmp_path)
    try:
        paused = events[-1]
        assert paused.kind is Kind.PAUSED and paused.moves_done >= 2 and paused.words.startswith("paused after ")
        assert follow.go_on() is Outcome.DONE
    finally:
        follow.end()
        run.close()
    kinds = [e.kind for e in events if e.kind is not Kind.MOVE_DONE]
    assert kinds == [Kind.PAUSED, Kind.CONTINUED, Kind.FINISHED]
    continued = next(e for e in events if e.kind is Kind.CONTINUED)
    assert continued.words == f"continuing after {paused.moves_done} of {MOVES} moves"
    assert len([e for e in events if e.kind is Kind.MOVE_DONE]) == MOVES  # every move once


def test_stop_at_a_pause_ends_the_run_stopped_in_its_journal(tmp_path: Path) -> None:
    run, follow, events = paused_run(tmp_path)
    try:
        assert follow.stop() is Outcome.STOPPED
        assert events[-1].kind is Kind.STOPPED and events[-1].reason == ""
        assert events[-1].words == f"stopped by the operator {events[-1].where}"
        with pytest.raises(HanoiError, match="not paused"):
            follow.go_on()
    finally:
        follow.end()
        run.close()
    log = load_journal(tmp_path / "run.journal")
    assert log.end_status == Outcome.STOPPED.value and log.moves_done == events[-1].moves_done < MOVES


def test_an_estop_at_a_pause_latches_the_board_and_journals_why(tmp_path: Path) -> None:
    run, follow, events = paused_run(tmp_path)
    try:
        assert follow.estop("the test pressed it") is Outcome.ESTOPPED
        assert run.robot.session.status().mode == "ESTOP"
        assert events[-1].kind is Kind.ESTOPPED and "the test pressed it" in events[-1].reason
    finally:
        follow.end()
        run.close()
    assert load_journal(tmp_path / "run.journal").end_status == Outcome.ESTOPPED.value


def test_a_paused_run_forgotten_ends_stopped_and_its_journal_closes(tmp_path: Path) -> None:
    run, follow, _ = paused_run(tmp_path)
    follow.end()
    run.robot.close()
    assert load_journal(tmp_path / "run.journal").end_status == Outcome.STOPPED.value


def test_the_eta_leaves_the_time_paused_out(tmp_path: Path) -> None:
    clock = Clock()
    run, follow, _ = paused_run(tmp_path, clock)
    try:
        left = MOVES - follow.moves_done
        assert follow.eta_s() == pytest.approx(1.0 * left)  # one second per move, as the clock moved
        clock.now_s += 600.0  # the operator thinks for ten minutes
        assert follow.eta_s() == pytest.approx(1.0 * left)
        follow.go_on()
        assert follow.outcome is Outcome.DONE
    finally:
        follow.end()
        run.close()
