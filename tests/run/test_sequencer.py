"""Tests for the sequencer state machine, driven against a mocked link (pytest-mock)."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hanoibot.clock import VirtualClock
from hanoibot.errors import BoardError, LinkLost, PortError
from hanoibot.link.session import Session
from hanoibot.link.status import Status
from hanoibot.motion.phases import MotionPhase
from hanoibot.motion.segment import Segment
from hanoibot.puzzle import Move, State
from hanoibot.run.grip_check import EMPTY_READS, MAX_READS, READ_GAP_S
from hanoibot.run.journal import Journal, load_journal
from hanoibot.run.run_states import ACTIVE, MOTION, STATES, TRANSITIONS, Phase, RunState, diagram_markdown
from hanoibot.run.sequencer import Sequencer
from hypothesis import given, settings
from hypothesis import strategies as st
from transitions import MachineError
from transitions.core import Transition

PHASE_NAMES = [phase.value for phase in MOTION]
#: Segments of one fake move: approach and lift are split in two, as the motion layer does for long paths.
PIECES = ["approach", "approach", "descend", "grip", "lift", "lift", "travel", "lower", "release", "retreat"]
#: Set by the transition-coverage test for the subprocess that records the state changes.
RECORD_ENV = "HANOIBOT_RECORD_TRANSITIONS"
DOC = Path(__file__).resolve().parents[2] / "docs" / "sequencer.md"


def segments_for(
    state: State, move: Move, from_pulses_us: tuple[int, ...] | None = None, previous: Sequence[Segment] = ()
) -> list[Segment]:
    """Fake segments whose first pulse encodes the move and the piece, so tests can read what was sent."""
    return [
        Segment((move.disk * 100 + i, move.src, move.dst), 100 + i, MotionPhase(name)) for i, name in enumerate(PIECES)
    ]


def classic_moves(n: int, src: int = 0, dst: int = 2, via: int = 1) -> list[Move]:
    """The textbook recursive solution, written independently of the planner."""
    if n == 0:
        return []
    return [*classic_moves(n - 1, src, via, dst), Move(n, src, dst), *classic_moves(n - 1, via, dst, src)]


class FakeBoard:
    """Side effects for the mocked link: records what the board was asked and answers like a board would."""

    def __init__(self, grips: list[str] | None = None, faults: tuple[str, ...] = ()) -> None:
        self.sent: list[tuple[int, tuple[int, ...], int]] = []
        self.done: list[int] = []
        self.grips = list(grips or [])
        self.faults = faults
        self.max_queued = 0

    def send_move(self, cmd_id: int, pulses_us: tuple[int, ...], duration_ms: int) -> None:
        self.sent.append((cmd_id, tuple(pulses_us), duration_ms))
        self.max_queued = max(self.max_queued, len(self.sent) - len(self.done))

    def wait_done(self, cmd_id: int, timeout_s: float | None = None) -> None:
        assert cmd_id in [c for c, _, _ in self.sent], f"waited for cmd {cmd_id} before sending it"
        self.done.append(cmd_id)

    def status(self) -> Status:
        grip = self.grips.pop(0) if self.grips else "held"
        mode = "FAULT" if self.faults else "MOVING"
        last_done = self.done[-1] if self.done else 0
        last_queued = self.sent[-1][0] if self.sent else 0
        return Status("b00t", mode, last_done, last_queued, 8, self.faults, grip, 40000, "on", (1500, 1500, 1500))


def fake_link() -> Any:
    """A link double with exactly the Session's interface (autospec): a call the Session lacks fails the test."""
    link = mock.create_autospec(Session, instance=True, name="link")
    link.boot_id = "b00t"
    link.last_sent_cmd = 0
    link.clock = VirtualClock()  # waits between grip reads sleep on it
    return link


def make(mocker: Any, board: FakeBoard, moves: list[Move], n: int = 3, **kwargs: Any) -> tuple[Sequencer, Any]:
    link = fake_link()
    link.send_move.side_effect = board.send_move
    link.wait_done.side_effect = board.wait_done
    link.status.side_effect = board.status
    home = Segment((1, 1, 1), 500, None)
    kwargs.setdefault("segments_for", segments_for)
    seq = Sequencer(link, home=lambda: home, limits=((500,) * 3, (2500,) * 3, (1500,) * 3), **kwargs)
    seq.load(State.tower(n), iter(moves), len(moves))
    return seq, link


def test_states_cover_the_issue_list() -> None:
    names = {state.value for state in STATES}
    wanted = "disconnected connecting homing ready approach descend grip lift travel lower release retreat"
    assert set(wanted.split()) | {"paused", "estopped", "fault", "done"} <= names


def test_connect_opens_configures_homes_and_is_ready(mocker: Any) -> None:
    board = FakeBoard()
    seq, link = make(mocker, board, [])
    assert seq.state is Phase.DISCONNECTED
    assert seq.connect() is Phase.READY
    link.open.assert_called_once_with()
    link.configure.assert_called_once_with((500,) * 3, (2500,) * 3, (1500,) * 3)
    assert board.sent == [(1, (1, 1, 1), 500)] and board.done == [1]


def test_the_first_move_is_planned_before_the_arm_sets_off_home(mocker: Any) -> None:
    # A slow host that plans while the arm travels home leaves it standing there until the plan is done; planned
    # first, the arm runs from home straight into the first move.
    board = FakeBoard()
    sent_before_planning: list[int] = []

    def recording(state: State, move: Move, from_us: Any = None, previous: Any = ()) -> list[Segment]:
        if not sent_before_planning:
            sent_before_planning.append(link.send_move.call_count)
        return segments_for(state, move, from_us, previous)

    seq, link = make(mocker, board, [Move(1, 0, 2)], n=1, segments_for=recording)
    assert seq.connect() is Phase.READY
    assert sent_before_planning == [0], "the first move was planned before the homing MOVE was sent"
    assert link.send_move.call_count == 1


def test_command_ids_continue_above_what_the_board_has_taken_since_it_booted(mocker: Any) -> None:
    # A second `hanoibot home` or `run` on the same board: the link's handshake learnt that the board has already
    # queued command 41 in this boot, and the board executes a command id at most once, so numbering must go on.
    board = FakeBoard()
    seq, link = make(mocker, board, classic_moves(1))
    link.last_sent_cmd = 41
    assert seq.connect() is Phase.READY
    assert seq.run() is Phase.DONE
    ids = [cmd_id for cmd_id, _, _ in board.sent]
    assert ids[0] == 42 and ids == list(range(42, 42 + len(ids)))


def test_open_link_only_enters_connecting(mocker: Any) -> None:
    seq, link = make(mocker, FakeBoard(), [])
    assert seq.open_link() and seq.state is Phase.CONNECTING
    link.open.assert_not_called()


def test_connect_failure_is_a_fault_keeping_the_error(mocker: Any) -> None:
    seq, link = make(mocker, FakeBoard(), [])
    link.open.side_effect = PortError("port '/dev/nothing' does not exist")
    assert seq.connect() is Phase.FAULT
    assert "/dev/nothing" in seq.reason and isinstance(seq.error, PortError)
    link.send_move.assert_not_called()


def test_a_whole_run_visits_every_phase_in_order_and_sends_every_segment_once(mocker: Any) -> None:
    board = FakeBoard()
    moves = classic_moves(3)
    seq, _ = make(mocker, board, moves)
    seen: list[str] = []
    seq.machine.after_state_change = [lambda event: seen.append(seq.state.value)]
    seq.connect()
    seen.clear()
    assert seq.run() is Phase.DONE
    assert seen == PHASE_NAMES * len(moves) + ["done"]
    ids = [cmd for cmd, _, _ in board.sent]
    assert ids == sorted(set(ids)) == list(range(1, 2 + len(PIECES) * len(moves)))
    assert [p[0] // 100 for _, p, _ in board.sent[1:]] == [m.disk for m in moves for _ in PIECES]
    assert seq.board_state == State.tower(3, 2) and seq.moves_done == 7


@settings(max_examples=20)
@given(st.integers(min_value=2, max_value=4), st.integers(min_value=1, max_value=4))
def test_while_the_arm_runs_a_segment_the_next_one_is_already_queued(queue_ahead: int, n: int) -> None:
    board = FakeBoard()
    depths: list[int] = []

    def wait_done(cmd_id: int, timeout_s: float | None = None) -> None:
        depths.append(len(board.sent) - len(board.done))
        board.wait_done(cmd_id)

    link = fake_link()
    link.send_move.side_effect = board.send_move
    link.wait_done.side_effect = wait_done
    link.status.side_effect = board.status
    moves = classic_moves(n)
    seq = Sequencer(link, segments_for=segments_for, queue_ahead=queue_ahead, has_grip_sensor=False)
    seq.load(State.tower(n), iter(moves), len(moves))
    seq.connect()
    depths.clear()
    assert seq.run() is Phase.DONE
    assert max(depths) == board.max_queued == queue_ahead
    assert min(depths[: -queue_ahead + 1]) >= 2, "the board must always have the next segment queued"
    assert depths[-1] == 1


def test_without_a_grip_sensor_status_is_never_asked(mocker: Any) -> None:
    seq, link = make(mocker, FakeBoard(), classic_moves(2), has_grip_sensor=False)
    seq.connect()
    assert seq.run() is Phase.DONE
    link.status.assert_not_called()


def test_with_a_grip_sensor_nothing_past_lift_is_sent_before_the_grip_is_confirmed(mocker: Any) -> None:
    board = FakeBoard()
    seq, link = make(mocker, board, [Move(1, 0, 2)], n=1)
    order: list[str] = []
    link.status.side_effect = lambda: (order.append(f"status after {len(board.sent)} sent"), board.status())[1]
    seq.connect()
    assert seq.run() is Phase.DONE
    # home + approach x2, descend, grip, lift x2 = 7 frames sent when the grip is checked; no travel yet
    assert order == ["status after 7 sent"]


#: What the grip sensor says of one missed pick: "empty" on every read (one read would not be believed).
MISSED = ["empty"] * EMPTY_READS


def test_a_missed_pick_is_retried_with_fresh_ids_and_then_succeeds(mocker: Any, tmp_path: Path) -> None:
    board = FakeBoard(grips=[*MISSED, *MISSED, "held"])
    journal = Journal.create(tmp_path / "j")
    journal.record_plan({"n_disks": 1}, config_hash="h", boot_id="b00t")
    seq, _ = make(mocker, board, [Move(1, 0, 2)], n=1, journal=journal, grip_retries=2)
    seen: list[str] = []
    seq.machine.after_state_change = [lambda event: seen.append(seq.state.value)]
    seq.connect()
    seen.clear()
    assert seq.run() is Phase.DONE
    pick = ["approach", "descend", "grip", "lift"]
    assert seen == [*pick, *pick, *pick, "travel", "lower", "release", "retreat", "done"]
    ids = [cmd for cmd, _, _ in board.sent]
    assert ids == sorted(set(ids)), "command ids only ever increase"
    log = load_journal(tmp_path / "j")
    entry = log.moves[0]
    assert entry.done and entry.last_cmd == ids[-1]
    assert list(entry.phases) == PIECES, "the retry re-sends the whole pick-and-place"
    assert len(ids) == 1 + 6 + 6 + len(PIECES), "two missed picks sent approach .. lift, then the whole move"


#: Segments of one fake move as the motion layer makes them: the gripper moves are each followed by a hold of the
#: settle time (a second segment of the same phase), and so is the travel.
HELD_PIECES = [
    *("approach", "descend", "grip", "grip", "lift", "lift"),
    *("travel", "travel", "lower", "release", "release", "retreat"),
]


def held_segments(
    state: State, move: Move, from_pulses_us: tuple[int, ...] | None = None, previous: Sequence[Segment] = ()
) -> list[Segment]:
    """Like :func:`segments_for`, with :data:`HELD_PIECES`."""
    return [
        Segment((move.disk * 100 + i, move.src, move.dst), 100 + i, MotionPhase(name))
        for i, name in enumerate(HELD_PIECES)
    ]


@pytest.mark.parametrize("queue_ahead", [2, 3, 4])
def test_the_grip_sensor_is_read_after_the_settle_hold_is_done_a_frame_apart(mocker: Any, queue_ahead: int) -> None:
    # DONE of the closing move means its command arrived; the servo trails it, so only after the hold is the
    # sensor's verdict final. The first pick misses (every read says so), the retry holds the disk.
    board = FakeBoard(grips=[*MISSED, "held"])
    seq, link = make(mocker, board, [Move(1, 0, 2)], n=1, queue_ahead=queue_ahead, segments_for=held_segments)
    read_after: list[str] = []
    read_at_s: list[float] = []

    def status() -> Status:
        piece = {cmd: p[0] % 100 for cmd, p, _ in board.sent}[board.done[-1]]
        read_after.append(f"{HELD_PIECES[piece]}{piece}")
        read_at_s.append(link.clock.now_s())
        return board.status()

    link.status.side_effect = status
    seq.connect()
    assert seq.run() is Phase.DONE
    assert read_after == ["grip3"] * (EMPTY_READS + 1), "read after the second grip segment (the hold), each pick"
    gaps_s = [later - earlier for earlier, later in itertools.pairwise(read_at_s[:EMPTY_READS])]
    assert min(gaps_s) >= READ_GAP_S, "the reads of one pick are a PWM frame apart: each a fresh frame mean"
    assert link.poll.called, "the link is served while the reads wait"


def test_one_empty_reading_after_the_grip_hold_does_not_retry_the_pick(mocker: Any) -> None:
    # Issue 33: a grip-hold DONE, then one frame read "empty" with the disk held (a quiet-phase reading), and the
    # retry reopened the fingers and placed the disk again. One "held" of the reads wins: no retry.
    board = FakeBoard(grips=["empty", "held"])
    seq, link = make(mocker, board, [Move(1, 0, 2)], n=1, segments_for=held_segments)
    seen: list[str] = []
    seq.machine.after_state_change = [lambda event: seen.append(seq.state.value)]
    seq.connect()
    seen.clear()
    assert seq.run() is Phase.DONE
    assert seen == [*dict.fromkeys(HELD_PIECES), "done"], "every phase once: the pick was not made again"
    assert len(board.sent) == 1 + len(HELD_PIECES), "the home segment and the move, nothing sent twice"
    assert link.status.call_count == 2


def test_a_pick_missed_too_often_is_a_fault_naming_disk_and_peg(mocker: Any) -> None:
    board = FakeBoard(grips=MISSED * 3)
    seq, link = make(mocker, board, [Move(1, 1, 2)], n=1, grip_retries=2)
    seq.load(State([(), (1,), ()]), iter([Move(1, 1, 2)]), 1)
    seq.connect()
    assert seq.run() is Phase.FAULT
    assert "disk 1" in seq.reason and "peg B" in seq.reason and "3 tries" in seq.reason
    link.hold.assert_called()
    assert not any(p[0] == 106 for _, p, _ in board.sent), "never travels without the disk"


@pytest.mark.parametrize("word", ["unknown", "none"])
def test_a_grip_without_a_verdict_stops_the_run_before_the_lift_carries_on(mocker: Any, word: str) -> None:
    """A sensor that gives no reading must not count as holding: the arm would travel without the disk ("unknown"
    is asked again, a bounded number of times)."""
    board = FakeBoard(grips=[word] * MAX_READS)
    seq, link = make(mocker, board, [Move(1, 0, 2)], n=1)
    seq.connect()
    assert seq.run() is Phase.FAULT
    assert f"grip {word}" in seq.reason and "grip_sensor = false" in seq.reason and "\n" not in seq.reason
    link.hold.assert_called()
    assert not any(p[0] == 106 for _, p, _ in board.sent), "never travels without a verdict"
    assert seq.moves_done == 0


def test_a_fault_latched_by_the_board_stops_the_run(mocker: Any) -> None:
    board = FakeBoard(faults=("DROP",))
    seq, link = make(mocker, board, classic_moves(2), n=2)
    seq.connect()
    assert seq.run() is Phase.FAULT
    assert "DROP" in seq.reason
    assert seq.moves_done == 0
    link.hold.assert_called()


def test_servo_power_lost_stops_the_run_saying_what_happened_and_what_to_do(mocker: Any) -> None:
    board = FakeBoard(faults=("POWER_LOST",))
    seq, _link = make(mocker, board, classic_moves(2), n=2)
    seq.connect()
    assert seq.run() is Phase.FAULT
    assert "servo power was lost" in seq.reason and "hanoibot home --clear" in seq.reason
    assert "\n" not in seq.reason


@pytest.mark.parametrize("error", [LinkLost("board silent for 1.0 s"), BoardError("COLLISION", code="FAULT")])
def test_a_link_error_mid_run_is_a_fault_with_the_reason(mocker: Any, error: Exception) -> None:
    board = FakeBoard()
    seq, link = make(mocker, board, classic_moves(2), n=2, has_grip_sensor=False)
    seq.connect()
    calls = {"n": 0}

    def wait_done(cmd_id: int, timeout_s: float | None = None) -> None:
        calls["n"] += 1
        if calls["n"] == 5:
            raise error
        board.wait_done(cmd_id)

    link.wait_done.side_effect = wait_done
    assert seq.run() is Phase.FAULT
    assert str(error) in seq.reason and seq.error is error
    assert seq.moves_done == 0


def test_pause_holds_and_unpause_returns_to_the_same_phase(mocker: Any) -> None:
    board = FakeBoard()
    seq, link = make(mocker, board, classic_moves(2), n=2)
    seq.connect()
    done_before = len(board.done)
    link.wait_done.side_effect = lambda cmd_id, timeout_s=None: (
        board.wait_done(cmd_id),
        seq.request_pause() if len(board.done) == done_before + 3 else None,
    )
    assert seq.run() is Phase.PAUSED
    link.hold.assert_called_once_with()
    seq.unpause()
    assert seq.state is MotionPhase.GRIP, "approach x2 and descend were done: the pause came while gripping"
    link.resume.assert_called_once_with()
    assert seq.run() is Phase.DONE


def test_pause_then_stop_disconnects_without_moving(mocker: Any) -> None:
    board = FakeBoard()
    seq, _ = make(mocker, board, classic_moves(1), n=1)
    seq.connect()
    seq.request_pause()
    assert seq.run() is Phase.PAUSED
    sent = len(board.sent)
    assert seq.stop() and seq.state is Phase.DISCONNECTED
    assert len(board.sent) == sent


@pytest.mark.parametrize("where", [Phase.READY, Phase.PAUSED, Phase.FAULT])
def test_estop_from_any_live_state_sends_estop(mocker: Any, where: Phase) -> None:
    seq, link = make(mocker, FakeBoard(), classic_moves(1), n=1)
    seq.connect()
    if where is Phase.PAUSED:
        seq.pause()
    elif where is Phase.FAULT:
        seq.fault(reason="test")
    assert seq.state is where
    assert seq.estop(reason="button") and seq.state is Phase.ESTOPPED
    link.estop.assert_called_once_with()
    assert seq.reason == "button"


def test_a_failing_callback_routes_to_fault_with_the_reason(mocker: Any) -> None:
    seq, link = make(mocker, FakeBoard(), classic_moves(1), n=1)
    seq.connect()
    link.hold.side_effect = [LinkLost("no answer to HOLD"), None]
    seq.pause()
    assert seq.state is Phase.FAULT and "no answer to HOLD" in seq.reason


def test_illegal_triggers_are_refused(mocker: Any) -> None:
    seq, _ = make(mocker, FakeBoard(), [])
    with pytest.raises(MachineError):
        seq.homed()
    assert seq.state is Phase.DISCONNECTED


@pytest.fixture(autouse=True)
def _record_transitions(monkeypatch: pytest.MonkeyPatch) -> None:
    """With RECORD_ENV set, append every state change the machine makes ("trigger source dest") to that file."""
    path = os.environ.get(RECORD_ENV)
    if path is None:
        return
    original = Transition._change_state

    def change_state(self: Transition, event_data: Any) -> None:
        with open(path, "a", encoding="utf-8") as record:
            record.write(f"{event_data.event.name} {self.source} {self.dest}\n")
        original(self, event_data)

    monkeypatch.setattr(Transition, "_change_state", change_state)


@pytest.mark.slow  # make test / CI only: too long for the make check loop
def test_every_transition_of_the_table_is_taken_by_these_tests(tmp_path: Path) -> None:
    """Run the other tests of this module in a subprocess, recording the state changes they make; every
    (trigger, source, dest) row of TRANSITIONS must have happened at least once."""
    record = tmp_path / "taken.txt"
    record.touch()
    command = [sys.executable, "-m", "pytest", __file__, "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]
    result = subprocess.run(
        [*command, "-k", "not every_transition_of_the_table"],
        cwd=Path(__file__).resolve().parents[2],
        env={**os.environ, RECORD_ENV: str(record)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout[-3000:]
    taken = {tuple(line.split()) for line in record.read_text(encoding="utf-8").splitlines()}
    table = set()
    for row in TRANSITIONS:
        for source in row["source"] if isinstance(row["source"], list) else [row["source"]]:
            table.add((row["trigger"], source.name, row["dest"].name))
    missing = sorted(table - taken)
    assert not missing, f"{len(missing)} transitions of the table are never taken: {missing}"


def test_queue_ahead_outside_2_to_4_is_refused(mocker: Any) -> None:
    with pytest.raises(ValueError, match="queue_ahead 5"):
        Sequencer(fake_link(), segments_for=segments_for, queue_ahead=5)


def test_the_committed_diagram_is_up_to_date() -> None:
    assert DOC.read_text() == diagram_markdown(), "docs/sequencer.md is stale: run python -m hanoibot.run.run_states"


def test_the_diagram_shows_every_transition_of_the_table() -> None:
    text = diagram_markdown()
    for row in TRANSITIONS:
        sources = row["source"] if isinstance(row["source"], list) else [row["source"]]
        for source in sources:
            assert f"{source.name} --> {row['dest'].name}: " in text, (source, row)


def test_finish_needs_every_move_done(mocker: Any) -> None:
    seq, _ = make(mocker, FakeBoard(), classic_moves(1), n=1)
    seq.connect()
    seq.finish()
    assert seq.state is Phase.READY, "one move is still to do"
    empty, _ = make(mocker, FakeBoard(), [], n=1)
    empty.connect()
    assert empty.finish() and empty.state is Phase.DONE


def test_a_half_done_move_resumes_at_its_phase_without_homing(mocker: Any) -> None:
    board = FakeBoard()
    moves = classic_moves(2)
    seq, link = make(mocker, board, moves, n=2)
    seq.load(State.tower(2), iter(moves), len(moves), first_phase=MotionPhase.TRAVEL)
    seen: list[str] = []
    seq.machine.after_state_change = [lambda event: seen.append(seq.state.value)]
    seq.connect(open_link=False, configure=False, home=False)
    assert seen == ["connecting", "homing", "ready"]
    seen.clear()
    assert seq.run() is Phase.DONE
    assert seen == ["travel", "lower", "release", "retreat", *PHASE_NAMES * 2, "done"]
    assert len(board.sent) == 4 + 2 * len(PIECES)
    link.open.assert_not_called()
    link.configure.assert_not_called()


@pytest.mark.parametrize("first_phase", PHASE_NAMES[1:])
def test_a_half_done_move_may_resume_at_any_later_phase(mocker: Any, first_phase: str) -> None:
    board = FakeBoard()
    moves = classic_moves(2)
    seq, _ = make(mocker, board, moves, n=2)
    seq.load(State.tower(2), iter(moves), len(moves), first_phase=MotionPhase(first_phase))
    seen: list[str] = []
    seq.machine.after_state_change = [lambda event: seen.append(seq.state.value)]
    seq.connect(open_link=False, configure=False, home=False)
    seen.clear()
    assert seq.run() is Phase.DONE
    assert seen == [*PHASE_NAMES[PHASE_NAMES.index(first_phase) :], *PHASE_NAMES * 2, "done"]
    assert len(board.sent) == len(PIECES) - PIECES.index(first_phase) + 2 * len(PIECES)


def on_entering(seq: Sequencer, phase: RunState, action: Any) -> None:
    """Call ``action()`` once, the first time the sequencer enters ``phase`` (from the machine's own callback)."""
    fired: list[bool] = []

    def check(event: Any) -> None:
        if seq.state is phase and not fired:
            fired.append(True)
            action()

    seq.machine.after_state_change = [check]


@pytest.mark.parametrize("where", MOTION, ids=lambda phase: phase.value)
def test_pause_at_each_phase_of_a_move_holds_and_unpause_goes_back_there(mocker: Any, where: Phase) -> None:
    board = FakeBoard()
    seq, link = make(mocker, board, classic_moves(2), n=2)
    seq.connect()
    on_entering(seq, where, seq.request_pause)
    assert seq.run() is Phase.PAUSED
    link.hold.assert_called_once_with()
    sent = len(board.sent)
    assert seq.unpause() and seq.state is where
    link.resume.assert_called_once_with()
    assert len(board.sent) == sent, "unpausing sends nothing by itself"
    assert seq.run() is Phase.DONE


@pytest.mark.parametrize("where", MOTION, ids=lambda phase: phase.value)
def test_a_link_lost_at_each_phase_of_a_move_is_a_fault_that_holds(mocker: Any, where: Phase) -> None:
    board = FakeBoard()
    seq, link = make(mocker, board, classic_moves(2), n=2, has_grip_sensor=False)
    seq.connect()
    error = LinkLost(f"silent during {where.value}")

    def wait_done(cmd_id: int, timeout_s: float | None = None) -> None:
        if seq.state is where:
            raise error
        board.wait_done(cmd_id)

    link.wait_done.side_effect = wait_done
    assert seq.run() is Phase.FAULT
    assert seq.error is error and f"silent during {where.value}" in seq.reason
    link.hold.assert_called_once_with()


def test_a_link_lost_while_homing_is_a_fault(mocker: Any) -> None:
    seq, link = make(mocker, FakeBoard(), classic_moves(1), n=1)
    link.wait_done.side_effect = LinkLost("silent while homing")
    assert seq.connect() is Phase.FAULT
    assert seq.reason == "silent while homing"
    link.hold.assert_called_once_with()


@pytest.mark.parametrize("where", ACTIVE, ids=lambda phase: phase.value)
def test_estop_from_every_active_phase_sends_estop_and_latches(mocker: Any, where: Phase) -> None:
    seq, link = make(mocker, FakeBoard(), classic_moves(1), n=1)
    seq.machine.set_state(where)
    assert seq.estop(reason="button") and seq.state is Phase.ESTOPPED
    link.estop.assert_called_once_with()
    assert seq.reason == "button"
    for trigger in (seq.unpause, seq.homed, seq.approach):
        with pytest.raises(MachineError):
            trigger()
    assert seq.state is Phase.ESTOPPED


@pytest.mark.parametrize("where", [Phase.HOMING, Phase.READY], ids=lambda phase: phase.value)
def test_pause_outside_a_move_holds_and_unpause_returns(mocker: Any, where: Phase) -> None:
    seq, link = make(mocker, FakeBoard(), classic_moves(1), n=1)
    seq.machine.set_state(where)
    assert seq.pause() and seq.state is Phase.PAUSED
    link.hold.assert_called_once_with()
    assert seq.unpause() and seq.state is where
    link.resume.assert_called_once_with()


def test_a_fresh_run_cannot_jump_into_the_middle_of_a_move(mocker: Any) -> None:
    seq, _ = make(mocker, FakeBoard(), classic_moves(1), n=1)
    seq.connect()
    seq.travel()
    assert seq.state is Phase.READY


def test_an_estop_latched_on_the_board_ends_in_estopped(mocker: Any) -> None:
    board = FakeBoard(faults=("ESTOP",))
    seq, link = make(mocker, board, classic_moves(2), n=2, has_grip_sensor=False)
    seq.connect()
    link.wait_done.side_effect = BoardError("board stopped with command 3 pending: mode ESTOP", code="ESTOP")
    assert seq.run() is Phase.ESTOPPED
    assert "e-stop latched on the board" in seq.reason
    link.estop.assert_called_once_with()


def test_an_estop_latched_while_the_run_comes_up_ends_it_estopped_not_faulted(mocker: Any) -> None:
    # `hanoibot estop` from a second terminal between the run's check of the board and its CONFIG: the board
    # refuses the CONFIG (FAULTED), and the person must read that the e-stop stopped the run, not a fault.
    board = FakeBoard(faults=("ESTOP",))
    seq, link = make(mocker, board, classic_moves(2), n=2, has_grip_sensor=False)
    link.configure.side_effect = BoardError("board refused: FAULTED: CONFIG refused while faulted", code="FAULTED")
    assert seq.connect() is Phase.ESTOPPED
    assert "e-stop latched on the board" in seq.reason
    assert board.sent == []


def test_a_lone_host_lost_is_recovered_by_sending_the_dropped_segments_again(mocker: Any, tmp_path: Path) -> None:
    board = FakeBoard()
    journal = Journal.create(tmp_path / "j")
    journal.record_plan({"n_disks": 1}, config_hash="h", boot_id="b00t")
    seq, link = make(mocker, board, [Move(1, 0, 2)], n=1, journal=journal, has_grip_sensor=False)
    seq.connect()
    frozen = {"done": False}

    def wait_done(cmd_id: int, timeout_s: float | None = None) -> None:
        if cmd_id == 5 and not frozen["done"]:  # the board froze after finishing cmd 4
            frozen["done"] = True
            board.faults = ("HOST_LOST",)
            raise BoardError("board stopped with command 5 pending: mode FAULT, faults HOST_LOST", code="FAULT")
        board.wait_done(cmd_id)

    link.wait_done.side_effect = wait_done
    link.clear.side_effect = lambda: setattr(board, "faults", ())
    assert seq.run() is Phase.DONE
    assert seq.recoveries == 1
    ids = [cmd for cmd, _, _ in board.sent]
    assert ids == sorted(set(ids)), "the dropped segments went out again with fresh ids"
    pieces_sent = [p[0] % 100 for _, p, _ in board.sent[1:]]
    assert sorted(set(pieces_sent)) == list(range(len(PIECES))), "every piece of the move was sent"
    entry = load_journal(tmp_path / "j").moves[0]
    assert entry.done and entry.last_cmd == ids[-1]
