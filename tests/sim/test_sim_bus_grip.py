"""Grip by load on the simulated Feetech bus (``sim://?servo=sts``): the bus gripper's verdict comes from where its
fingers stopped and how hard they push (hanoifw.busservos.BusServos.grip_u16), and a missed pick is caught and
tried again.

Oracles: the simulated world's own log (its picks, its ``missed_pick`` when the fingers close on nothing, its
places: what the arm really did) and what the world's fingers hold at the moment the host acts on each grip
verdict, judged by the campaign's :class:`GripJudge` (benchmarks/campaign.py); never the board's or the host's
own account.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from benchmark_scripts import load_benchmark
from hanoibot.arm import preset_text
from hanoibot.config import RobotConfig, load_config
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
    return load_benchmark("campaign")


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
        if missed and pose is not None and pose.z_mm > top_mm:
            world.on_tick = on_tick
            world.put_back(t_s, 1, PEG_A)

    world.on_tick = tick


def play(
    url: str, campaign: ModuleType, arrange: Callable[[Any], None], config: RobotConfig | None = None
) -> dict[str, Any]:
    """``run -n 3`` on ``url`` after ``arrange(world)``; what the world, the host and the judge saw."""
    campaign.judge_grips()  # again: another load of the script may have put its own judge there since
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


def arm_config(arm: str, folder: Path, threshold: int | None = None) -> tuple[Path, RobotConfig]:
    """The arm preset ``arm`` written into ``folder`` (its grip threshold replaced by ``threshold`` if given)."""
    text = preset_text(arm)
    if threshold is not None:
        text = re.sub(r"(?m)^grip_threshold_u16 = \d+$", f"grip_threshold_u16 = {threshold}", text)
    path = folder / f"{arm}.toml"
    path.write_text(text, encoding="utf-8")
    return path, load_config(path)


#: The arms, and their bus as set up: the SO-101's jaw capped at 50 % torque as lerobot's set-up leaves it.
ARMS = [("default", 21, ""), ("so101", 22, "&grip_torque=500")]


@pytest.mark.parametrize(("arm", "seed", "bus"), ARMS, ids=[arm for arm, _, _ in ARMS])
def test_a_missed_pick_on_the_bus_gripper_is_caught_and_tried_again(
    arm: str, seed: int, bus: str, campaign: ModuleType, tmp_path: Path
) -> None:
    path, config = arm_config(arm, tmp_path)
    seen = play(f"sim://?servo=sts&seed={seed}{bus}&config={path}", campaign, miss_the_first_pick, config)
    kinds = [e["event"] for e in seen["events"]]
    assert kinds[:3] == ["take_off", "missed_pick", "put_back"], (
        "the fingers closed on nothing, then the disk came back"
    )
    assert seen["misses"] == [0], "the host saw the miss once, from its gripper's load and position"
    assert seen["phase"] is Phase.DONE, seen["reason"]
    assert moves_made(seen["events"]) == list(make_plan(3)), "every move once, in order"
    assert seen["state"] == make_plan(3).goal
    assert seen["false"] == [] and seen["verdicts"] >= 8, "every verdict the host acted on is what the world held"


def test_the_so101_preset_grips_under_lerobots_torque_cap_and_half_its_stall_load_would_not(
    campaign: ModuleType, tmp_path: Path
) -> None:
    # With the jaw capped at 50 % torque a held disk loads it 500 of 1000 at most: 32767 on the grip scale. A
    # threshold at half the stall load (32768, robot.toml's for its shunt) reads every held disk as empty.
    path, config = arm_config("so101", tmp_path)
    seen = play(f"sim://?servo=sts&seed=23&grip_torque=500&config={path}", campaign, lambda world: None, config)
    assert seen["phase"] is Phase.DONE, seen["reason"]
    assert seen["misses"] == [] and seen["false"] == [] and seen["verdicts"] >= 7
    assert moves_made(seen["events"]) == list(make_plan(3))
    path, config = arm_config("so101", tmp_path, threshold=32768)
    seen = play(f"sim://?servo=sts&seed=23&grip_torque=500&config={path}", campaign, lambda world: None, config)
    assert seen["phase"] is Phase.FAULT and "missed pick" in seen["reason"], seen["reason"]
    assert seen["false"] and all(v.startswith("empty (grip_raw 32767) with disk") for v in seen["false"])


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


def test_the_grip_torque_option_caps_the_grippers_load_and_nothing_else() -> None:
    from hanoibot.errors import ConfigError
    from hanoibot.sim.factory import make_wire

    board = make_wire({"servo": "sts", "grip_torque": "500"}).board
    assert [servo.torque_limit for servo in board.servo_bus.servos] == [1000, 1000, 1000, 1000, 500]
    gripper = board.servo_bus.servos[4]
    gripper.set_torque(True)
    gripper.goal_steps += 400  # far off its goal and held where it is: it pushes as hard as it may
    gripper.settle(1.0, (gripper.horn_us, gripper.horn_us))
    assert gripper.load == 500
    for bad in ("0", "1001", "half"):
        with pytest.raises(ConfigError, match=f"grip_torque={bad!r} is invalid"):
            make_wire({"servo": "sts", "grip_torque": bad})
