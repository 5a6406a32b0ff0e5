"""Where the disks are after a stop (journal + board), and which peg a held disk may be put down on.

The puzzle is the classic 3-disk tower from A to C, whose published solution starts 1 A->C, 2 A->B, 1 C->B: after
its first move the board is ``CAA`` and after the second ``CBA``. The stop comes in move 2 (disk 2, A to B).
"""

from __future__ import annotations

import pytest
from hanoibot.cli import main
from hanoibot.errors import RunFault
from hanoibot.motion.phases import PHASES, MotionPhase
from hanoibot.planner import make_plan
from hanoibot.puzzle import Rules, State
from hanoibot.run.going_home import DisksAtStop, _ask_peg, disks_at_stop, peg_for
from hanoibot.run.journal import JournalLog

PLAN = make_plan(3, pegs=3, start=State.tower(3), goal=State.tower(3, peg=2))
AFTER_1, AFTER_2 = State.parse("CAA"), State.parse("CBA")
#: Move 2's segments: one per phase, command ids 10 (approach) to 17 (retreat).
FIRST_CMD = 10


def journal_log(*, board: str | None = None) -> JournalLog:
    """A journal with move 1 done and move 2 sent (one segment per phase), and ``board`` if home recorded one."""
    log = JournalLog()
    log.fold({"type": "plan", "spec": {"pegs": 3}, "config_hash": "x", "boot_id": "b"})
    log.fold({"type": "send", "k": 0, "move": [1, 0, 2], "first_cmd": 2, "last_cmd": 9, "phases": list(PHASES)})
    log.fold({"type": "done", "k": 0})
    log.fold(
        {"type": "send", "k": 1, "move": [2, 0, 1], "first_cmd": FIRST_CMD, "last_cmd": 17, "phases": list(PHASES)}
    )
    if board is not None:
        log.fold({"type": "board", "state": board})
    return log


def stopped_in(phase: MotionPhase | None) -> int:
    """The board's last finished command id when the e-stop caught move 2 in ``phase`` (None: all finished)."""
    return FIRST_CMD + (len(PHASES) if phase is None else PHASES.index(phase)) - 1


@pytest.mark.parametrize("phase", PHASES[:7])
def test_a_disk_the_sensor_feels_is_the_moving_one_on_its_way_from_its_source(phase: MotionPhase) -> None:
    assert disks_at_stop(journal_log(), PLAN, stopped_in(phase), "held") == DisksAtStop(AFTER_1, 2, 0)


@pytest.mark.parametrize(
    ("phase", "grip", "board"),
    [
        (MotionPhase.APPROACH, "empty", AFTER_1),
        (MotionPhase.DESCEND, "empty", AFTER_1),
        (MotionPhase.GRIP, "empty", AFTER_1),  # the fingers had not shut on it yet
        (MotionPhase.LIFT, "empty", AFTER_1),  # a missed pick: the disk never left its peg
        (MotionPhase.RELEASE, "empty", AFTER_2),  # the fingers opened past it: it lies on B
        (MotionPhase.RETREAT, "empty", AFTER_2),
        (MotionPhase.RETREAT, "held", AFTER_2),  # a later reading cannot undo a finished release
        (None, "empty", AFTER_2),  # every segment finished, the done record not yet written
        (MotionPhase.APPROACH, "none", AFTER_1),  # no grip sensor: the phase alone says it
        (MotionPhase.DESCEND, "none", AFTER_1),
    ],
)
def test_empty_fingers_leave_the_disk_where_the_phase_says(phase: MotionPhase | None, grip: str, board: State) -> None:
    assert disks_at_stop(journal_log(), PLAN, stopped_in(phase), grip) == DisksAtStop(board)


@pytest.mark.parametrize("phase", [MotionPhase.LIFT, MotionPhase.TRAVEL, MotionPhase.LOWER])
def test_without_a_sensor_a_disk_is_held_between_grip_and_release(phase: MotionPhase) -> None:
    assert disks_at_stop(journal_log(), PLAN, stopped_in(phase), "none") == DisksAtStop(AFTER_1, 2, 0)


@pytest.mark.parametrize(
    ("phase", "grip", "says"),
    [
        (MotionPhase.TRAVEL, "empty", "disk 2 is neither in the gripper nor where the journal expects it"),
        (MotionPhase.LOWER, "empty", "disk 2 is neither in the gripper nor where the journal expects it"),
        (MotionPhase.GRIP, "none", "unknown whether disk 2 is in the gripper"),
        (MotionPhase.RELEASE, "none", "unknown whether disk 2 is in the gripper"),
    ],
)
def test_what_nobody_can_tell_stops_with_what_to_do(phase: MotionPhase, grip: str, says: str) -> None:
    with pytest.raises(RunFault, match=says):
        disks_at_stop(journal_log(), PLAN, stopped_in(phase), grip)


def test_a_held_disk_with_no_move_under_way_is_not_guessed() -> None:
    log = journal_log(board="CAA")  # home recorded the board: no move is open any more
    assert disks_at_stop(log, PLAN, 0, "empty") == DisksAtStop(AFTER_1)
    with pytest.raises(RunFault, match="no move under way"):
        disks_at_stop(log, PLAN, 0, "held")


@pytest.mark.parametrize(
    ("board", "held", "rules", "peg"),
    [
        ("CAA", 2, Rules(3), 0),  # back where it came from, on disk 3
        ("A:1,2/B:3/C:", 2, Rules(3), 1),  # it lay on smaller disk 1: onto disk 3 on B instead
        ("A:1,2/B:/C:3", 2, Rules(3, "linear"), 1),  # linear: only B is next to A
        ("A:1,3/B:2/C:", 3, Rules(3, "linear"), None),  # back on 1 or onto 2 on B: neither may be; C is not next to A
        ("A:1,3/B:2/C:", 3, Rules(3), 2),  # classic: C may be reached from A
    ],
)
def test_the_peg_for_a_held_disk_is_its_own_when_legal_else_any_legal_one(
    board: str, held: int, rules: Rules, peg: int | None
) -> None:
    state = State.parse(board)
    assert peg_for(DisksAtStop(state, held, 0), rules) == peg


def test_home_refuses_an_empty_journal_path(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["home", "--clear", "--journal", ""]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["hanoibot: error: --journal is empty: expected the journal file of the run that stopped"]


def test_with_no_legal_peg_the_operator_chooses_one_or_nothing_moves() -> None:
    stuck = DisksAtStop(State.parse("A:1,3/B:2/C:"), 3, 0)  # linear rules: neither A nor B may take disk 3
    assert _ask_peg(stuck, lambda question: "c") == 2
    typed = iter(["D", "peg B", "c"])  # two typos are asked again (saying why), then the answer counts
    asked: list[str] = []
    assert _ask_peg(stuck, lambda question: asked.append(question) or next(typed)) == 2
    assert len(asked) == 3 and "'D' is not one of A to C: try again" in asked[1]
    for answer in (None, ""):
        with pytest.raises(RunFault, match="disk 3 may not go back on its peg nor onto any other"):
            _ask_peg(stuck, lambda question, answer=answer: answer)
    with pytest.raises(RunFault, match="take it out by hand"):
        _ask_peg(stuck, None)
