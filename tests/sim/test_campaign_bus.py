"""The campaign (benchmarks/campaign.py) on Feetech bus servos (``--outputs sts``, ``sim://?servo=sts``): the grip
verdict comes from the gripper's load and position, and every verdict the host acts on is judged by the world
(:class:`GripJudge`). The full size (hundreds of runs) is run by hand, with its figures in benchmarks/README.md.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from benchmark_scripts import load_benchmark
from hanoibot.link.status import Grip, Mode, Rail, Status


@pytest.fixture(scope="module")
def campaign() -> ModuleType:
    return load_benchmark("campaign")


class World:
    """What the judge reads of a world: the disk between the fingers."""

    def __init__(self, held_disk: int | None) -> None:
        self.held_disk = held_disk


def status(grip: Grip, raw: int) -> Status:
    return Status("b0071d00", Mode.IDLE, 0, 0, 8, (), grip, raw, Rail.NONE, (1500,) * 5)


def test_the_judge_keeps_each_verdict_the_world_contradicts(campaign: ModuleType) -> None:
    judge = campaign.GripJudge()
    judge.watch(World(None))
    judge.judge(status(Grip.EMPTY, 0))
    judge.judge(status(Grip.UNKNOWN, -1))  # no verdict: not counted
    judge.judge(status(Grip.HELD, 41287))
    judge.watch(World(2))
    judge.judge(status(Grip.HELD, 48000))
    judge.judge(status(Grip.EMPTY, 0))
    assert judge.verdicts == 2 and judge.false == ["empty (grip_raw 0) with disk 2 in the fingers"]
    judge.world = World(None)
    judge.judge(status(Grip.HELD, 41287))
    assert judge.false[-1] == "held (grip_raw 41287) with nothing in the fingers"


#: Each arm on its bus: the SO-101's jaw capped at 50 % torque, as lerobot's set-up leaves it.
BUSES = [("default", [], "Feetech STS bus servos"), ("so101", ["--grip-torque", "500"], "gripper torque limit 50 %")]


@pytest.mark.parametrize(("arm", "bus", "said"), BUSES, ids=[arm for arm, _, _ in BUSES])
def test_a_small_campaign_on_bus_servos_has_no_false_grip_verdict(
    arm: str, bus: list[str], said: str, campaign: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--arm", arm, "--outputs", "sts", *bus, "--worlds", "2", "--disks", "2", "--first-seed", "7300"]
    argv += ["--stops", "1", "--recoveries", "3"]
    code = campaign.main(argv)
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"preset {arm}: 2 randomized worlds on sim (Feetech STS bus servos" in out and said in out
    assert "collisions 0, drops 0, other faults 0" in out and "runs not exactly once 0" in out
    verdicts = next(line for line in out.splitlines() if "grip verdicts" in line)
    counted = int(verdicts.split("grip verdicts ")[1].split()[0])
    assert counted >= 2 * 3 and verdicts.endswith("false 0"), verdicts  # one after each pick at least


#: Recoveries on the bus that once failed (seed, stop, recovery, when in s), each judged by its world: servos
#: silent while their rail was off called silent again by the CLEAR that followed power (SERVO_SILENT); a verdict
#: "held" from the gripper's last answer before its rail went down, the disk falling; a reset in the staggered
#: switch-on, some servos holding and the gripper among them, then every joint sent to the start pose at once
#: (TOO_FAST).
BUS_RECOVERIES = [
    (7100, "rail loss", "resume --clear --board", 9.26),
    (7101, "rail loss", "home --clear, resume --board", 9.443),
    (7106, "rail loss", "resume --clear --board", 1.546),
    (7102, "board reset", "home, resume --board", 0.549),
    (7109, "board reset", "resume --board", 0.744),
]


@pytest.mark.parametrize(("seed", "stop", "recovery", "at_s"), BUS_RECOVERIES)
def test_a_bus_arm_recovers_from_a_rail_loss_and_a_reset_in_its_switch_on(
    seed: int, stop: str, recovery: str, at_s: float, campaign: ModuleType
) -> None:
    result = campaign.recover(seed, 3, stop, recovery, at_s, outputs=campaign.BUS_SERVOS)
    assert result.detail == "" and result.exactly_once, result
    assert not result.collisions and not result.drops and not result.false_grips, result


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--outputs", "sts", "--target", "vpico"], "--outputs sts plays on sim:// only"),
        (["--grip-torque", "500"], "--grip-torque 500: expected 1..1000 with --outputs sts"),
        (["--outputs", "sts", "--grip-torque", "0"], "--grip-torque 0: expected 1..1000 with --outputs sts"),
    ],
)
def test_the_bus_options_are_refused_where_they_do_not_apply(
    argv: list[str], said: str, campaign: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        campaign.main([*argv, "--worlds", "1"])
    assert stopped.value.code == 2 and said in capsys.readouterr().err


def test_the_bus_worlds_url_puts_the_servos_on_the_bus(campaign: ModuleType) -> None:
    options: Any = campaign.world_options(5, "AAA", outputs="sts")
    assert options.split("&")[-1] == "servo=sts" and "outputs=" not in options
    capped: Any = campaign.world_options(5, "AAA", outputs="sts", grip_torque=500)
    assert capped.split("&")[-2:] == ["servo=sts", "grip_torque=500"]


def test_each_load_of_the_script_judges_with_its_own_judge(campaign: ModuleType) -> None:
    from hanoibot.run import grip_check, release

    other = load_benchmark("campaign")  # as another test module loads it
    other.judge_grips()
    campaign.judge_grips()
    assert grip_check.read_grip.judge is campaign.GRIP_JUDGE  # type: ignore[attr-defined]
    assert release.read_grip.judge is campaign.GRIP_JUDGE  # type: ignore[attr-defined]
    assert release.read_grip.unjudged.__module__ == grip_check.__name__  # type: ignore[attr-defined]
