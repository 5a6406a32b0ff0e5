"""Grip by load on the simulated Feetech bus (``sim://?servo=sts``): the bus gripper's verdict comes from where its
fingers stopped and how hard they push (hanoifw.busservos.BusServos.grip_u16), and a missed pick is caught and
tried again.

Oracles: the simulated world's own log (its picks, its ``missed_pick`` when the fingers close on nothing, its
places: what the arm really did) and what the world's fingers hold at the moment the host acts on each grip
verdict, judged by the campaign's :class:`GripJudge` (benchmarks/campaign.py); never the board's or the host's
own account.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

import pytest
from benchmark_scripts import load_benchmark
from hanoibot.config import load_config
from hanoibot.planner import make_plan
from hanoibot.run.pick_recovery import PickAndRecovery
from hanoibot.run.robot import Robot
from hanoibot.run.runner import Run
from hanoibot.run.sequencer import Phase
from hanoifw.busservos import BusServos
from world_events import moves_made

PEG_A = 0


@pytest.fixture(scope="module")
def campaign() -> ModuleType:
    module = load_benchmark("campaign")
    module.judge_grips()
    return module


@contextmanager
def counted_misses() -> Iterator[list[int]]:
    """The host's missed picks (:meth:`PickAndRecovery.pick_missed` calls), counted while the block runs."""
    misses: list[int] = []
    original = PickAndRecovery.pick_missed

    def pick_missed(self: PickAndRecovery) -> None:
        misses.append(self.pick_tries)
        original(self)

    PickAndRecovery.pick_missed = pick_missed  # type: ignore[method-assign]
    try:
        yield misses
    finally:
        PickAndRecovery.pick_missed = original  # type: ignore[method-assign]


def miss_the_first_pick(world: Any) -> None:
    """Before the run, a hand takes disk 1 off peg A: the first pick closes the fingers on nothing. Once the world
    saw that miss and the arm has lifted its fingers clear of every peg again, the hand puts the disk back, so the
    host's second try finds it."""
    world.take_off(0.0, PEG_A)
    geometry = world.disks.geometry
    top_mm = geometry.board_z_mm + max(geometry.peg_heights_mm)
    on_tick = world.on_tick

    def tick(t_s: float, pulses_us: Any) -> None:
        on_tick(t_s, pulses_us)
        missed = any(e["event"] == "missed_pick" for e in world.events)
        pose = world.arm.pose(pulses_us)
        if missed and pose is not None and pose.z_mm > top_mm + world.config.motion.clearance_mm:
            world.on_tick = on_tick
            world.put_back(t_s, 1, PEG_A)

    world.on_tick = tick


def play(url: str, campaign: ModuleType, arrange: Callable[[Any], None], config: Any = None) -> dict[str, Any]:
    """``run -n 3`` on ``url`` after ``arrange(world)``; what the world, the host and the judge saw."""
    robot = Robot(url, config or load_config())
    robot.open()
    with robot, counted_misses() as misses:
        world = robot.sim_board.world
        campaign.GRIP_JUDGE.watch(world)
        arrange(world)
        job = Run(robot, make_plan(3))
        phase = job.start()
        judged = (campaign.GRIP_JUDGE.verdicts, list(campaign.GRIP_JUDGE.false))
        campaign.GRIP_JUDGE.watch(None)
        return {
            "phase": phase,
            "reason": job.sequencer.reason,
            "events": list(world.events),
            "state": world.state,
            "misses": misses,
            "verdicts": judged[0],
            "false": judged[1],
        }


@pytest.mark.parametrize("seed", [21, 22])
def test_a_missed_pick_on_the_bus_gripper_is_caught_and_tried_again(seed: int, campaign: ModuleType) -> None:
    seen = play(f"sim://?servo=sts&seed={seed}", campaign, miss_the_first_pick)
    kinds = [e["event"] for e in seen["events"]]
    assert kinds[:3] == ["take_off", "missed_pick", "put_back"], (
        "the fingers closed on nothing, then the disk came back"
    )
    assert seen["misses"] == [0], "the host saw the miss once, from its gripper's load and position"
    assert seen["phase"] is Phase.DONE, seen["reason"]
    assert moves_made(seen["events"]) == list(make_plan(3)), "every move once, in order"
    assert seen["state"] == make_plan(3).goal
    assert seen["false"] == [] and seen["verdicts"] >= 8, "every verdict the host acted on is what the world held"


def test_a_verdict_from_a_gripper_still_closing_misses_the_miss(
    campaign: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The verdict of the previous firmware: the load of a gripper short of its goal, moving or not, and whenever
    # its answer was asked. The same missed pick is then read as held, and the world says otherwise.
    def load_whenever_short(self: BusServos) -> int:
        ch = self.grip_channel
        if not self.torque[ch] or self.age[ch] > self.max_age:
            return -1
        if abs(self.goal_steps[ch] - self.position_steps[ch]) < self.grip_gap_steps:
            return 0
        return min(abs(self.load[ch]), 1000) * 65535 // 1000

    monkeypatch.setattr(BusServos, "grip_u16", load_whenever_short)
    seen = play("sim://?servo=sts&seed=21", campaign, miss_the_first_pick)
    assert seen["misses"] == [] or seen["false"], seen
    assert any("held" in verdict and "nothing" in verdict for verdict in seen["false"]), seen["false"]
