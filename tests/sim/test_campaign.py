"""The campaign (benchmarks/campaign.py) at CI size: randomized worlds played whole on sim://, in-process.

Every world's servos, calibration, pegs and disks are off within the default robot's ``[tolerances]``; the
world's own contact tests decide what collides. The full size (1000 and more runs) is run by hand, with its figures
in benchmarks/README.md.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from benchmark_scripts import load_benchmark


def campaign_module() -> ModuleType:
    return load_benchmark("campaign")


def assert_clean(summary: Any, worlds: int) -> None:
    assert summary.worlds == worlds
    assert summary.runs_failed == [], [(r.seed, r.collisions, r.phase) for r in summary.runs_failed]
    assert summary.collisions == summary.drops == summary.faults == summary.not_exactly_once == 0
    assert summary.seconds_per_move > 0


def test_a_handful_of_randomized_worlds_run_clean_and_stop_clean() -> None:
    summary = campaign_module().campaign(6, 2, first_seed=1000, stops=2)
    assert_clean(summary, 6)
    assert len(summary.stops) == 12 and {r.stop for r in summary.stops} == {"estop", "silence"}
    assert [r for r in summary.stops if r.failed] == []


def test_the_issues_worlds_at_a_hobby_arms_tolerances_on_a_pca9685_run_and_stop_clean() -> None:
    # Issue 34 item 6: with deadband and backlash up to 5 µs, 16 of the 40 worlds from seed 52000 put a held disk
    # into its peg (52002, 52003 among them); at the cited figures on a PCA9685 (4.88 µs counts) 34 of 40 did with
    # the old 10 mm hole. With the 14 mm hole and the lowers ending over their stacks they run and stop clean.
    summary = campaign_module().campaign(4, 3, first_seed=52000, stops=2, outputs="pca9685")
    assert_clean(summary, 4)
    assert [r for r in summary.stops if r.failed] == []


@pytest.mark.parametrize(("seed", "index"), [(60124, 1), (60199, 0)])
def test_a_stopped_place_on_a_pca9685_never_presses_the_held_disk_into_the_board(seed: int, index: int) -> None:
    # Found by the campaign at the hobby figures (issue 34): the fingers closed on disk 2 1.5 mm above its
    # mid-plane and the lower onto the empty peg ended 0.6 mm high, so the disk went 1.04 mm into the board (the
    # world allows 1 mm). A lower now ends place_gap_mm (2.51 mm) over the stack, derived from the height errors.
    result = campaign_module().play_stop(seed, 3, index, outputs="pca9685")
    assert not result.failed, result.collisions


@pytest.mark.parametrize(
    ("seed", "recovery", "at_s"), [(60003, "resume --board", 4.203), (60005, "home, resume --board", 2.998)]
)
def test_a_pca9685_reset_while_the_fingers_close_finishes_the_grip_within_the_grippers_speed(
    seed: int, recovery: str, at_s: float
) -> None:
    # Found by the campaign (9 of 120 such recoveries were refused TOO_FAST): the PCA9685 kept the arm and the
    # fingers closing on the disk (touching it, not yet holding it) through the reset, and the segment that
    # finishes the grip went out without its trapezoid, so the board checked it as a minimum-jerk move, whose
    # peak is higher, and refused it.
    result = campaign_module().recover(seed, 3, "board reset", recovery, at_s=at_s, outputs="pca9685")
    assert not result.failed, (result.collisions, result.drops, result.detail)


def test_a_handful_of_runs_stopped_at_random_and_recovered_make_every_move_once() -> None:
    summary = campaign_module().campaign(6, 2, first_seed=3000, recoveries=1)
    assert_clean(summary, 6)
    assert len(summary.recoveries) == 6
    assert [r for r in summary.recoveries if r.failed] == []


@pytest.mark.parametrize(("stop", "recovery"), campaign_module().RECOVERIES)
def test_every_stop_with_a_disk_held_clear_of_the_pegs_recovers_as_the_user_is_told(stop: str, recovery: str) -> None:
    # Seed 3 at 3.44 s: disk 2 is in the gripper, carried between pegs. A reset or a dead rail switches the
    # outputs off: the limp gripper lets it fall to the table (the person puts it back), nothing else may drop.
    result = campaign_module().recover(3, 3, stop, recovery, at_s=3.44)
    assert not result.failed, (result.collisions, result.drops, result.detail)
    assert result.let_go == (1 if stop in ("board reset", "rail loss") else 0)
    if stop == "rail loss" and recovery.startswith("home"):
        assert "the arm went limp" in result.home_said and "resume --journal" in result.home_said


@pytest.mark.slow
def test_eighty_runs_stopped_at_random_and_recovered_stay_clean() -> None:
    summary = campaign_module().campaign(40, 3, first_seed=4000, recoveries=3)
    assert_clean(summary, 40)
    kinds = {(r.stop, r.recovery) for r in summary.recoveries}
    assert kinds == set(campaign_module().RECOVERIES)  # every stop and every recovery was played
    failed = [(r.seed, r.stop, r.at_s, r.recovery, r.collisions, r.detail) for r in summary.recoveries if r.failed]
    assert failed == []


def test_home_after_an_estop_while_the_fingers_close_puts_the_disk_they_shut_on_back() -> None:
    # Found by the campaign (seed 6135): the e-stop came while the fingers were closing on disk 1; they went on
    # closing (a servo trails its pulse) and shut on it 36 ms later. home read the grip sensor at once ("empty"),
    # went home with the disk in the gripper, and resume refused to start. home now reads fingers at rest.
    result = campaign_module().recover(6135, 3, "estop", "home --clear, resume", at_s=1.48)
    assert result.home_said == "put disk 1 back on peg A"
    assert not result.failed, (result.collisions, result.detail)


def test_resume_after_an_estop_mid_lift_goes_on_up_the_peg() -> None:
    # Found by the campaign (seed 6175): the e-stop came part way up a lift with disk 2 in peg B. resume --clear
    # sent the arm from there straight back to the lift's first waypoint (a straight line in pulses, not on the
    # path) and swung the disk into the peg. It now goes on to the next waypoint along the path.
    result = campaign_module().recover(6175, 3, "estop", "resume --clear", at_s=8.618)
    assert not result.failed, (result.collisions, result.detail)


@pytest.mark.parametrize(("seed", "at_s"), [(10074, 4.445), (10138, 2.203)])
def test_home_lifts_a_disk_still_on_its_peg_at_the_on_peg_speed(seed: int, at_s: float) -> None:
    # Found by the campaign: the e-stop came while disk 1 was on its peg (lifting or lowering); home --clear lifted
    # it straight up at the servos' full speed, and a servo slower than the config (within its tolerances) dragged
    # it into the peg. home's lift now runs at the on-peg share of the speeds, as a run's lifts do.
    result = campaign_module().recover(seed, 3, "estop", "home --clear, resume", at_s=at_s)
    assert result.home_said.startswith("put disk 1 back on peg")
    assert not result.failed, (result.collisions, result.detail)


def test_a_recovery_that_does_not_finish_the_run_is_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    # (The oracle of the recoveries above: a resume that does nothing leaves moves unmade, and the campaign says so.)
    module = campaign_module()
    monkeypatch.setattr(module, "open_resume", lambda request, robot: module.Finished(request.journal, 0))
    monkeypatch.setattr(module, "home", lambda robot, **options: None)
    monkeypatch.setattr(module, "RECOVERIES", (("estop", "resume --clear"),))
    module.plan_once()
    result = module.play_recovery(3000, 2, 0, run_s=2.0)
    assert result.failed and not result.exactly_once


@pytest.mark.slow
def test_two_hundred_randomized_worlds_run_clean() -> None:
    assert_clean(campaign_module().campaign(200, 2, first_seed=2000), 200)


def test_the_campaign_names_the_seed_of_every_world_that_collides() -> None:
    # Servos 40 % slower than the config says (far outside its 5 % sag): they trail into the pegs.
    # (The oracle of the runs above: the same campaign does see collisions.)
    summary = campaign_module().campaign(3, 2, first_seed=0, speed=0.6)
    assert summary.collisions > 0
    assert {r.seed for r in summary.runs_failed} <= {0, 1, 2} and summary.runs_failed
    assert all(r.collisions for r in summary.runs_failed)
