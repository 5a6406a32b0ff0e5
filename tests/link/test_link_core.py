"""The link engine (hanoibot.link.core) on sim://: a reopened session survives a lost HELLO (the defect showed only
on a virtual clock, which stands still while nothing blocks), and a clean link never retransmits."""

from __future__ import annotations

import threading

from hanoibot.link.session import Session


def test_reopening_over_a_lossy_wire_finishes() -> None:
    # On reopen the session's old timers were overdue, so handshake reads did not block: virtual time stood
    # still and a lost HELLO was waited for forever. Run in a thread so the old behaviour fails instead of hanging.
    # The loss rate is low enough that each of the 20 handshakes succeeds within its 5 s bound with near certainty
    # (a lost SYNC or HELLO is still common: about one attempt in three), whatever the session's random first seq.
    boot_ids: list[str] = []

    def reopen_twenty_times() -> None:
        session = Session("sim://?world=0&drop=0.004&seed=1")
        for _ in range(20):
            session.open()
            boot_ids.append(session.boot_id)
            session.close()

    worker = threading.Thread(target=reopen_twenty_times, daemon=True)
    worker.start()
    worker.join(timeout=20)
    assert not worker.is_alive(), f"stuck in the handshake after {len(boot_ids)} reopenings"
    assert len(boot_ids) == 20 and len(set(boot_ids)) == 1  # the same board all along


def test_a_clean_link_needs_no_retransmission() -> None:
    # A PING written just before a MOVE in the same virtual instant was taken as proof that the MOVE was lost
    # (its PONG cannot ack a frame the board had not read yet), so a fault-free run reported retransmits.
    from hanoibot.config import load_config
    from hanoibot.planner import make_plan
    from hanoibot.run.robot import Robot
    from hanoibot.run.runner import Run
    from hanoibot.run.sequencer import Phase

    robot = Robot("sim://?board=AAA", load_config())
    robot.open()
    with robot:
        job = Run(robot, make_plan(3))
        assert job.start() is Phase.DONE, job.sequencer.reason
        assert robot.sim_board is not None and robot.sim_board.executed_cmd_ids()
        assert job.report().retransmits == 0


def test_a_repeated_ack_resends_a_lost_frame_at_once() -> None:
    # The board acks a frame it cannot take yet (one before it was lost) with its old ack: that says "lost" a
    # round trip sooner than a probe's PONG, so the window goes back at once, before any PING is asked.
    from typing import Any

    from hanoibot.link.core import LinkCore
    from hanoifw import protocol

    core = LinkCore("sim://?world=0&seed=3")
    core.open()
    try:
        port: Any = core.port
        kinds: list[str] = []
        original_write = port.write

        def write(data: bytes) -> int:
            frame = bytes(data)
            kinds.append(frame.split(b",")[0].decode())
            if kinds.count("HOLD") == 1 and frame.startswith(b"HOLD"):
                return len(frame)  # lost on the way
            return int(original_write(frame))

        port.write = write
        hold = core.send_reliable(protocol.HOLD)
        resume = core.send_reliable(protocol.RESUME)
        core.wait_acked(resume)
        assert hold.acked and hold.transmissions == 2 and core.retransmits == 2
        resent_at = kinds.index("HOLD", 1)
        assert kinds[resent_at : resent_at + 2] == ["HOLD", "RESUME"], kinds
        assert "PING" not in kinds[:resent_at], f"asked before resending: {kinds}"
    finally:
        core.close()
