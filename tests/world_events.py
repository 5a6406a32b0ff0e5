"""The simulated world's event log read back (picks, places, put-backs, drops, faults), shared by the end-to-end
tests: the world, not what the board or the host says, is the judge of what the arm really did."""

from __future__ import annotations

from typing import Any

from hanoibot.puzzle import Move, peg_index

Event = dict[str, Any]


def moves_made(events: list[Event]) -> list[Move]:
    """The moves the arm really made: the world's pick and place events paired up; a drop, a fault (collision,
    bad stack) or a place of a disk that was not picked fails the test."""
    moves: list[Move] = []
    picked: Event | None = None
    for event in events:
        assert event["event"] not in ("drop", "fault"), f"the arm failed: {event}"
        if event["event"] == "pick":
            assert picked is None, f"picked {event} while holding {picked}"
            picked = event
        elif event["event"] == "place":
            assert picked is not None and picked["disk"] == event["disk"], f"placed {event} unpicked"
            moves.append(Move(event["disk"], peg_index(picked["peg"]), peg_index(event["peg"])))
            picked = None
    return moves


def world_moves(events: list[Event]) -> list[Move]:
    """:func:`moves_made` from an emulator's log (``hanoibot emulate --log``): only the world's own events."""
    return moves_made([event for event in events if event.get("source") == "world"])


def bad_events(events: list[Event]) -> list[Event]:
    """COLLISION and DROP faults among ``events``."""
    return [e for e in events if e.get("event") == "fault" and e.get("fault") in ("COLLISION", "DROP")]


def disks_after(start: str, events: list[Event]) -> str | None:
    """Where the disks are after the world's ``events`` (pick, place, put_back, drop), starting from ``start``;
    None while one is in the gripper or has fallen."""
    pegs: list[str | None] = list(start)
    for event in events:
        if event.get("event") in ("pick", "drop"):
            pegs[int(event["disk"]) - 1] = None
        elif event.get("event") in ("place", "put_back"):
            pegs[int(event["disk"]) - 1] = str(event["peg"])
    return None if None in pegs else "".join(str(peg) for peg in pegs)
