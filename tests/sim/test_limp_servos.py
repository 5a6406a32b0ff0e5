"""An undriven servo holds nothing: with its outputs off the simulated gripper lets go of the disk it carries.

The arm carries a disk through a move on a SimBoard; the e-stop switch cuts the servo rail (the firmware latches
POWER_LOST and switches every output off). Away from every peg the disk falls onto the table (the world logs a
drop); threaded on its peg during the lift it slides back down onto its stack (a place).
"""

from __future__ import annotations

import pytest
from board_bench import SegmentBoard
from hanoibot.config import load_config
from hanoibot.motion.phases import MotionPhase
from hanoibot.motion.segments import segments_for_moves
from hanoibot.planner import make_plan

CONFIG = load_config()


def cut_power_during(phase: MotionPhase, share: float) -> list[dict[str, object]]:
    """Play the first move of a 3-disk tower, cut the servo rail ``share`` of the way into ``phase``; the world's
    events after the cut."""
    plan = make_plan(3)
    _move, segments = next(iter(segments_for_moves(CONFIG, plan.start, list(plan))))
    index = next(i for i, s in enumerate(segments) if s.phase is phase)
    bench = SegmentBoard(plan.start, CONFIG.start_pulses_us())
    bench.play(segments, until_done=index, then_ms=round(segments[index].duration_ms * share))
    assert bench.world.held_disk == 1, "the disk is carried when the power goes"
    seen = len(bench.world.events)
    bench.world.cut_servo_power()
    bench.board.run_until(bench.board.clock.now_s() + 0.5)
    assert bench.board.controller.faults == ["POWER_LOST"]
    assert bench.board.servos.pulses_us() == [None] * 5
    return bench.world.events[seen:]


def test_a_disk_carried_away_from_the_pegs_falls_when_the_servos_go_limp() -> None:
    events = cut_power_during(MotionPhase.TRAVEL, 0.5)
    assert [e["event"] for e in events] == ["limp", "drop"]
    assert events[1]["disk"] == 1


@pytest.mark.parametrize("share", [0.3])
def test_a_disk_threaded_on_its_peg_slides_back_down_when_the_servos_go_limp(share: float) -> None:
    events = cut_power_during(MotionPhase.LIFT, share)
    assert [(e["event"], e.get("peg")) for e in events] == [("limp", None), ("place", "A")]
