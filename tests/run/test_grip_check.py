"""The grip verdict the host acts on (run/grip_check.py): several reads a PWM frame apart, "held" wins, "empty" only
when every read says so, "unknown" asked again a bounded number of times; waits on the session's clock, link
served."""

from __future__ import annotations

import itertools

from hanoibot.clock import VirtualClock
from hanoibot.link.status import Grip, Mode, Rail, Status
from hanoibot.run.grip_check import EMPTY_READS, MAX_READS, READ_GAP_S, SERVE_EVERY_S, read_grip


def status(grip: str, *, gripper_us: int = 1300, grip_raw: int = 30000) -> Status:
    """A STATUS of an idle board whose gripper output gives ``gripper_us`` (0: off)."""
    return Status("b", Mode.IDLE, 4, 4, 8, (), Grip(grip), grip_raw, Rail.ON, (1500, 1500, 1500, 1500, gripper_us))


class Board:
    """A link double answering STATUS from ``answers`` (the last one repeats), on a virtual clock; records the time
    of every read and every poll."""

    def __init__(self, *answers: Status) -> None:
        self.answers = list(answers)
        self.clock = VirtualClock()
        self.read_at_s: list[float] = []
        self.polled_at_s: list[float] = []

    def status(self) -> Status:
        self.read_at_s.append(self.clock.now_s())
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]

    def poll(self) -> None:
        self.polled_at_s.append(self.clock.now_s())


def test_one_held_read_wins_at_once() -> None:
    board = Board(status("held"))
    assert read_grip(board).grip is Grip.HELD
    assert board.read_at_s == [0.0], "no waiting for a held disk"
    board = Board(status("empty"), status("unknown"), status("held"), status("empty"))
    assert read_grip(board).grip is Grip.HELD and len(board.read_at_s) == 3


def test_empty_is_believed_after_every_read_a_frame_apart_says_so() -> None:
    board = Board(status("empty"))
    got = read_grip(board)
    assert got.grip is Grip.EMPTY and len(board.read_at_s) == EMPTY_READS
    gaps_s = [later - earlier for earlier, later in itertools.pairwise(board.read_at_s)]
    assert min(gaps_s) >= READ_GAP_S - 1e-9, "each read is the mean of a frame the one before did not see"
    waits = [later - earlier for earlier, later in itertools.pairwise(board.polled_at_s)]
    assert max(waits) <= SERVE_EVERY_S + 1e-9, "the link is served while waiting"


def test_the_first_status_counts_as_the_first_read() -> None:
    board = Board(status("held"))
    assert read_grip(board, status("empty")).grip is Grip.HELD and len(board.read_at_s) == 1


def test_unknown_is_asked_again_a_bounded_number_of_times() -> None:
    board = Board(status("unknown", grip_raw=-1), status("unknown", grip_raw=-1), status("empty"))
    assert read_grip(board).grip is Grip.EMPTY and len(board.read_at_s) == 2 + EMPTY_READS
    board = Board(status("unknown", grip_raw=-1))
    assert read_grip(board).grip is Grip.UNKNOWN and len(board.read_at_s) == MAX_READS
    assert board.clock.now_s() < MAX_READS * READ_GAP_S + 1e-9, "bounded: a few frames"


def test_reads_without_a_verdict_do_not_count_for_empty() -> None:
    words = ["empty", "unknown", "empty", "unknown", "empty"]
    board = Board(*(status(word) for word in words))
    assert read_grip(board).grip is Grip.EMPTY and len(board.read_at_s) == len(words)
    words = ["empty", "unknown", "unknown", "empty"] + ["unknown"] * MAX_READS
    board = Board(*(status(word) for word in words))
    got = read_grip(board)
    assert (got.grip, got.grip_raw, len(board.read_at_s)) == (Grip.UNKNOWN, -1, MAX_READS), "two empties of eight"


def test_a_limp_gripper_and_a_board_without_a_sensor_are_not_asked_again() -> None:
    board = Board(status("unknown", gripper_us=0, grip_raw=-1))
    assert read_grip(board).grip is Grip.UNKNOWN and len(board.read_at_s) == 1, "no current: no verdict to wait for"
    board = Board(status("none", grip_raw=-1))
    assert read_grip(board).grip is Grip.NONE and len(board.read_at_s) == 1
