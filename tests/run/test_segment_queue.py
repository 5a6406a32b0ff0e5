"""Tests for SegmentSource: lazy expansion, planning ahead, command ids, journal records, poses, resuming mid-move,
retries."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from hanoibot.motion.phases import MotionPhase
from hanoibot.motion.segment import Segment
from hanoibot.puzzle import Move, State
from hanoibot.run.journal import Journal, load_journal
from hanoibot.run.segment_queue import AHEAD_MOVES, SegmentSource, nearest_segment
from hypothesis import given
from hypothesis import strategies as st

PIECES = ["approach", "approach", "descend", "grip", "lift", "travel", "lower", "release", "retreat"]


class Recorder:
    """A fake motion layer that records the pose each move was planned from and the move it was to follow; a
    move planned to follow another starts with a 5 ms blend into it."""

    def __init__(self) -> None:
        self.calls: list[tuple[State, Move, tuple[int, ...] | None]] = []
        self.previous: list[Sequence[Segment]] = []
        self.previous_of: dict[Move, Sequence[Segment]] = {}  # the last planning of each move
        self.threads: list[str] = []

    def __call__(
        self, state: State, move: Move, from_us: tuple[int, ...] | None, previous: Sequence[Segment] = ()
    ) -> list[Segment]:
        self.calls.append((state, move, from_us))
        self.previous.append(previous)
        self.previous_of[move] = previous
        self.threads.append(threading.current_thread().name)
        segments = [Segment((move.disk, move.dst, i), 10, MotionPhase(name), 4, 4) for i, name in enumerate(PIECES)]
        segments[0] = segments[0]._replace(blend_ms=5 if previous else 0)
        return segments


def drain(source: SegmentSource) -> list[tuple[int, str]]:
    items = []
    while source.peek() is not None:
        items.append(source.pop())
    return [(i.cmd_id, i.phase) for i in items]


def _hanoi(n: int, src: int, dst: int, via: int) -> list[Move]:
    """The textbook recursive solution (independent of the planner)."""
    return [] if n == 0 else [*_hanoi(n - 1, src, via, dst), Move(n, src, dst), *_hanoi(n - 1, via, dst, src)]


@given(st.integers(min_value=1, max_value=5), st.integers(min_value=1, max_value=1000))
def test_ids_are_consecutive_and_each_move_starts_where_the_last_ended(n: int, first_id: int) -> None:
    fake = Recorder()
    source = SegmentSource(fake, first_cmd_id=first_id)
    moves = _hanoi(n, 0, 2, 1)
    source.load(State.tower(n), iter(moves))
    source.pose_us = (7, 7, 7)
    got = drain(source)
    assert [cmd for cmd, _ in got] == list(range(first_id, first_id + len(PIECES) * len(moves)))
    assert fake.calls[0][2] == (7, 7, 7)
    for (_, before, _), (_, _, from_us) in zip(fake.calls, fake.calls[1:], strict=False):
        assert from_us == (before.disk, before.dst, len(PIECES) - 1), "planned from the previous move's last pose"
    states = [state for state, _, _ in fake.calls]
    assert states[0] == State.tower(n)
    assert all(s.apply(m) == nxt for (s, m, _), nxt in zip(fake.calls, states[1:], strict=False))


def wait_for_calls(fake: Recorder, count: int) -> None:
    """Wait (5 s at most) until the fake motion layer has been asked ``count`` times."""
    deadline = time.monotonic() + 5
    while len(fake.calls) < count and time.monotonic() < deadline:
        time.sleep(0.001)


def test_moves_are_numbered_only_when_needed_and_planned_a_few_moves_ahead(tmp_path: Path) -> None:
    fake = Recorder()
    path = tmp_path / "j"
    with Journal.create(path) as journal:
        journal.record_plan({"n_disks": 3}, config_hash="h", boot_id="b")
        source = SegmentSource(fake, journal=journal)
        source.load(State.tower(3), iter(_hanoi(3, 0, 2, 1)))
        assert source.peek() is not None
        wait_for_calls(fake, 2)
        wait_for_calls(fake, 1 + AHEAD_MOVES)
        time.sleep(0.05)  # one more planning would have started by now
        assert len(fake.calls) == 1 + AHEAD_MOVES, "the move expanded and the few after it, no further"
        assert len(load_journal(path).moves) == 1, "only the expanded move is numbered and journaled"


def test_the_next_move_is_planned_in_the_background_while_this_one_runs() -> None:
    fake = Recorder()
    source = SegmentSource(fake)
    moves = _hanoi(3, 0, 2, 1)
    source.load(State.tower(3), iter(moves))
    source.peek()  # expands the first move; not one of its segments is taken yet
    wait_for_calls(fake, 1 + AHEAD_MOVES)
    assert AHEAD_MOVES >= 2 and [move for _, move, _ in fake.calls] == moves[: 1 + AHEAD_MOVES]
    assert fake.threads == [threading.current_thread().name] + ["plan-ahead"] * AHEAD_MOVES
    for k in range(1, 1 + AHEAD_MOVES):
        before = moves[k - 1]
        assert fake.calls[k][2] == (before.disk, before.dst, len(PIECES) - 1), "from where the move before ends"
    for _ in PIECES:
        source.pop()
    second = source.peek()
    assert second is not None and second.move == moves[1]
    wait_for_calls(fake, 2 + AHEAD_MOVES)
    assert [move for _, move, _ in fake.calls] == moves[: 2 + AHEAD_MOVES], "the second move was not planned again"


def test_planning_ahead_sends_exactly_what_planning_each_move_when_needed_sends() -> None:
    def run(lookahead: bool) -> list[tuple[object, ...]]:
        source = SegmentSource(Recorder())
        if not lookahead:
            source.lookahead = None
        source.load(State.tower(4), iter(_hanoi(4, 0, 2, 1)))
        items = []
        while source.peek() is not None:
            items.append(tuple(source.pop()))
        return items

    assert run(lookahead=True) == run(lookahead=False)


def test_a_failure_while_planning_ahead_is_raised_when_that_move_is_needed() -> None:
    moves = _hanoi(2, 0, 2, 1)

    def failing(
        state: State, move: Move, from_us: tuple[int, ...] | None, previous: Sequence[Segment]
    ) -> list[Segment]:
        if move == moves[1]:
            raise ValueError("no way to reach it")
        return Recorder()(state, move, from_us, previous)

    source = SegmentSource(failing)
    source.load(State.tower(2), iter(moves))
    for _ in PIECES:
        assert source.peek() is not None
        source.pop()
    with pytest.raises(ValueError, match="no way to reach it"):
        source.peek()


def test_each_move_is_journaled_before_its_first_segment_can_be_taken(tmp_path: Path) -> None:
    path = tmp_path / "j"
    with Journal.create(path) as journal:
        journal.record_plan({"n_disks": 1}, config_hash="h", boot_id="b")
        source = SegmentSource(Recorder(), journal=journal, first_cmd_id=5)
        source.load(State.tower(1), iter([Move(1, 0, 2)]))
        first = source.peek()
        entry = load_journal(path).moves[0]
    assert first is not None and (entry.first_cmd, entry.last_cmd) == (5, 5 + len(PIECES) - 1)
    assert list(entry.phases) == PIECES


def test_resuming_mid_move_skips_the_phases_before_and_retimes_the_first_segment() -> None:
    asked: list[MotionPhase] = []

    def duration_between(a: tuple[int, ...], b: tuple[int, ...], phase: MotionPhase) -> int:
        asked.append(phase)
        return 999

    source = SegmentSource(Recorder(), duration_between=duration_between)
    moves = _hanoi(2, 0, 2, 1)
    source.load(State.tower(2).apply(moves[0]), iter(moves[1:]), first_k=1, first_phase=MotionPhase.TRAVEL)
    source.pose_us = (1, 2, 3)
    first = source.pop() if source.peek() else None
    assert first is not None and (first.k, first.phase, first.duration_ms) == (1, "travel", 999)
    assert asked == [MotionPhase.TRAVEL], "timed for the phase it resumes in (a lift or lower goes slower)"
    rest = drain(source)
    assert [phase for _, phase in rest[:3]] == ["lower", "release", "retreat"]
    assert [phase for _, phase in rest[3:]] == PIECES, "the next move is whole"


def test_resuming_part_way_along_a_phase_goes_on_to_the_next_waypoint_not_back_to_the_phase_start() -> None:
    # A lift in four straight pieces up a peg (pulses: x along the peg's axis, y sideways; the joints' lines are
    # the path). Stopped between the 2nd and 3rd waypoints, the arm must go on to the 3rd: a straight line back to
    # the lift's first waypoint is not on the path (a held disk would swing into its peg).
    lift = [(0, 10), (0, 20), (0, 30), (0, 40)]
    pieces = [((0, 0), "grip"), *((p, "lift") for p in lift), ((50, 40), "travel")]

    def segments_for(state: State, move: Move, from_us: object, previous: object = ()) -> list[Segment]:
        return [Segment(p, 10, MotionPhase(name), 4, 4) for p, name in pieces]

    source = SegmentSource(segments_for, duration_between=lambda a, b, phase: 50)
    moves = _hanoi(1, 0, 2, 1)
    source.load(State.tower(1), iter(moves), first_phase=MotionPhase.LIFT)
    source.pose_us = (1, 24)  # just past the 2nd waypoint, 1 µs off the line
    sent = []
    while (item := source.peek()) is not None:
        sent.append((source.pop().pulses_us, item.duration_ms))
    assert sent[0] == ((0, 30), 50), "on to the next waypoint, timed from where the arm stands"
    assert [p for p, _ in sent[1:]] == [(0, 40), (50, 40)]


def test_nearest_segment_prefers_the_later_one_at_a_waypoint() -> None:
    segments = [Segment(p, 10, MotionPhase.LIFT) for p in [(0, 10), (0, 20), (0, 30)]]
    assert [nearest_segment((0, 0), segments, pose) for pose in [(0, 0), (0, 5), (0, 10), (3, 29), (0, 99)]] == [
        0,
        0,
        1,
        2,
        2,
    ]


def test_redo_pick_replans_the_move_from_the_given_pose_with_fresh_ids() -> None:
    fake = Recorder()
    source = SegmentSource(fake)
    source.load(State.tower(1), iter([Move(1, 0, 1)]))
    taken = [source.pop() for _ in range(5) if source.peek()]
    source.redo_pick((4, 4, 4))
    again = drain(source)
    assert fake.calls[-1] == (State.tower(1), Move(1, 0, 1), (4, 4, 4))
    assert [phase for _, phase in again] == PIECES
    assert again[0][0] == len(PIECES) + 1, "fresh ids follow every id handed out before"
    assert taken[-1].phase == "lift"


def test_a_move_blends_into_the_one_before_only_when_the_arm_runs_straight_on_from_it() -> None:
    fake = Recorder()
    source = SegmentSource(fake)
    moves = _hanoi(3, 0, 2, 1)
    source.load(State.tower(3), iter(moves))
    first = [source.pop() for _ in PIECES if source.peek()]
    second = [source.pop() for _ in PIECES if source.peek()]
    assert fake.previous_of[moves[0]] == ()
    assert fake.previous_of[moves[1]] == Recorder()(State.tower(3), moves[0], None, ())
    assert (first[0].blend_ms, second[0].blend_ms) == (0, 5), "planned to follow the first move, sent so"
    source.redo_pick((4, 4, 4))  # a missed pick, planned again from where the arm is
    assert fake.previous_of[moves[1]] == ()
    again = [source.pop() for _ in PIECES if source.peek()]
    assert again[0].blend_ms == 0
    source.requeue(again[-2:])  # the board dropped the end of the move: it runs from wherever the arm stopped
    assert [source.pop().blend_ms for _ in range(2)] == [0, 0]
    third = source.pop() if source.peek() else None
    assert third is not None and third.move == moves[2]
    assert fake.previous_of[moves[2]] == () and third.blend_ms == 0, "after a requeue the next move starts from rest"


def test_a_late_plan_is_waited_for_while_the_link_is_served() -> None:
    # A slow host: the plan made ahead is not ready when its move is needed. The board must keep hearing from the
    # host meanwhile (its watchdog latches HOST_LOST after 300 ms of silence while it moves).
    moves = _hanoi(2, 0, 2, 1)
    recorder = Recorder()
    served = threading.Event()

    def slow(state: State, move: Move, from_us: tuple[int, ...] | None, previous: Sequence[Segment]) -> list[Segment]:
        if threading.current_thread().name == "plan-ahead" and move == moves[1]:
            served.wait(5.0)  # planning ends only once the link was served while it ran
        return recorder(state, move, from_us, previous)

    source = SegmentSource(slow)
    calls: list[float] = []

    def serve() -> None:
        calls.append(time.monotonic())
        if len(calls) >= 3:
            served.set()

    source.serve = serve
    source.load(State.tower(2), iter(moves))
    first = [source.pop() for _ in PIECES if source.peek() is not None]
    assert {item.move for item in first} == {moves[0]}
    began = time.monotonic()
    second = source.peek()
    assert second is not None and second.move == moves[1]
    assert len(calls) >= 3 and time.monotonic() - began < 4.0, "served while the late plan was made"
    assert max(b - a for a, b in zip([began, *calls], calls, strict=False)) < 0.5, "at least every half second"
