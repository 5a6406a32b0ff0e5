"""FaultyWire: faults on the way, logged as events, and a reboot right after the K-th frame."""

from __future__ import annotations

from hanoibot.sim.board import SimBoard
from hanoibot.sim.faults import FaultSpec
from hanoibot.sim.wire import FaultyWire
from hanoifw import protocol
from hanoifw.rxframe import FrameReader


def test_a_clean_wire_passes_frames_both_ways() -> None:
    wire = FaultyWire(SimBoard())
    wire.board.run_until(0.0)
    ping = protocol.encode("PING", 0, 0, ["x"])
    wire.write(ping)
    wire.board.step()
    kinds = [(kind, fields) for kind, _s, _a, fields in FrameReader().feed(wire.read())]
    assert kinds == [("HELLO", kinds[0][1]), ("PONG", ["x", str(len(ping)), "0"])]  # every byte came
    assert wire.fault_counts() == {"to_board": dict.fromkeys(("flip", "drop", "insert", "dup"), 0)} | {
        "to_host": dict.fromkeys(("flip", "drop", "insert", "dup"), 0)
    }


def test_reset_after_k_frames_happens_once_right_after_the_kth() -> None:
    wire = FaultyWire(SimBoard(), FaultSpec(reset_after=3))
    boot_id = wire.board.boot_id
    ping = protocol.encode("PING", 0, 0, ["p"])
    wire.write(ping + ping[:5])  # two frames and the start of a third
    assert wire.board.boot_id == boot_id
    wire.write(ping[5:] + ping)  # the third ends here: reboot before the fourth arrives
    assert wire.board.boot_id != boot_id
    rebooted = wire.board.boot_id
    wire.write(ping * 5)
    assert wire.board.boot_id == rebooted
    assert [event["event"] for event in wire.board.events] == ["reset"]


def test_injected_faults_are_board_events_with_their_direction() -> None:
    wire = FaultyWire(SimBoard(), FaultSpec(flip=0.2, seed=1))
    wire.write(protocol.encode("PING", 0, 0, ["x"]) * 10)
    events = [event for event in wire.board.events if event["event"] == "injected"]
    assert events
    assert {event["direction"] for event in events} == {"to_board"}
    assert sum(event["count"] for event in events) == wire.fault_counts()["to_board"]["flip"]
