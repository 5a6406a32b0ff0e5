"""Move: a named tuple of disk and pegs, spelled with peg letters."""

from hanoibot.puzzle import Move


def test_spellings() -> None:
    move = Move(12, 0, 25)
    assert move.plain() == "12 A Z"
    assert str(move) == "disk 12 A -> Z"
    assert (move.disk, move.src, move.dst) == (12, 0, 25) == tuple(move)
