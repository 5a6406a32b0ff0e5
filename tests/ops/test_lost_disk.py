"""The disk a board reset may have let go: the question asked, and the board once the person answered."""

from __future__ import annotations

import pytest
from hanoibot.errors import HanoiError
from hanoibot.ops.lost_disk import LostDisk
from hanoibot.puzzle import Move, State

#: Disk 1 was being carried from A to C when the board was reset; the host counts it on A still.
LOST = LostDisk(Move(1, 0, 2))
BOARD = State.parse("AAB")  # disk 1 on A (on top of disk 2), disk 3 on B


def test_the_question_names_the_disk_and_both_pegs() -> None:
    asked = LOST.to_json()
    assert asked["disk"] == 1 and asked["pegs"] == ["A", "C"]
    assert "disk 1" in asked["text"] and "from peg A to peg C" in asked["text"]


@pytest.mark.parametrize(("peg", "board"), [("C", "CAB"), ("A", "AAB"), ("B", "BAB")])
def test_the_answer_puts_the_disk_on_that_peg(peg: str, board: str) -> None:
    assert LOST.placed(BOARD, peg) == State.parse(board)


def test_an_answer_that_cannot_be_is_refused_naming_it() -> None:
    with pytest.raises(HanoiError, match="peg 'Z'"):
        LOST.placed(BOARD, "Z")
    with pytest.raises(HanoiError, match="disk 1 is not on top of peg A"):
        LOST.placed(State.parse("CAB"), "B")
    with pytest.raises(HanoiError, match="cannot lie on disk"):
        LostDisk(Move(2, 0, 1)).placed(State.parse("BAC"), "B")  # disk 2 onto disk 1
