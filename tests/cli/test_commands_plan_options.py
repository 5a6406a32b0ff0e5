"""Shared solve/count options: number checking, state shorthands and the disk count taken from states."""

from __future__ import annotations

import argparse

import pytest
from hanoibot.cli_support.plan_options import MAX_DISKS, add_plan_arguments, plan_request, whole_number
from hanoibot.errors import PlanError, StateError
from hanoibot.planner import PlanRequest, count_for
from hanoibot.puzzle import Rules, State


def request(*argv: str) -> PlanRequest:
    parser = argparse.ArgumentParser()
    add_plan_arguments(parser)
    return plan_request(parser.parse_args(list(argv)))


def test_whole_numbers() -> None:
    assert whole_number("1_000", "-n", minimum=1) == 1000
    assert whole_number(None, "-n", minimum=1) is None
    with pytest.raises(PlanError, match=r"-n '1\.5' is not a whole number: expected a number of at least 1"):
        whole_number("1.5", "-n", minimum=1)


def test_defaults() -> None:
    req = request("-n", "5")
    assert (req.n_disks, req.pegs, req.rules, req.start, req.goal, req.goal_any) == (5, 3, Rules(3), None, None, False)
    assert req.max_states == 2_000_000


def test_one_letter_is_a_tower_and_states_give_the_disk_count() -> None:
    req = request("-n", "4", "--from", "c", "--to", "A", "--pegs", "5", "--rules", "linear")
    assert req.start == State.tower(4, 2, pegs=5) and req.goal == State.tower(4, 0, pegs=5)
    assert req.rules == Rules.named("linear", 5)
    assert request("--from", "ACAB").n_disks == 4
    assert request("--to", "any", "--from", "AB").goal_any


def test_errors_name_the_option() -> None:
    with pytest.raises(StateError, match="--to: unknown peg 'D'"):
        request("-n", "2", "--to", "DD")
    with pytest.raises(PlanError, match="no disk count given"):
        request("--to", "any")


def test_a_one_letter_tower_on_a_missing_peg_names_the_option() -> None:
    with pytest.raises(StateError, match=r"^--to: unknown peg 'D'"):
        request("-n", "3", "--to", "D")
    with pytest.raises(StateError, match=r"^--from: unknown peg 'e'"):
        request("-n", "3", "--pegs", "4", "--from", "e")


@pytest.mark.parametrize("text", ["99999999999999999999", str(MAX_DISKS + 1)])
def test_a_disk_count_too_big_to_plan_is_bad_input(text: str) -> None:
    # 2**n - 1 with n = 10**20 overflowed deep in the planner (a traceback) instead of naming -n.
    with pytest.raises(PlanError, match=rf"^-n {text} is too large: expected a number from 1 to {MAX_DISKS}$"):
        request("-n", text)
    assert request("-n", str(MAX_DISKS), "--pegs", "4").n_disks == MAX_DISKS


@pytest.mark.parametrize(
    "argv",
    [
        ("-n", "3", "--to", "A"),
        ("-n", "3", "--to", "A", "--rules", "linear"),
        ("-n", "3", "--to", "A", "--rules", "cyclic"),
        ("-n", "3", "--to", "A", "--pegs", "4"),
        ("-n", "2", "--from", "D", "--pegs", "4"),
        ("--from", "ACB", "--to", "ACB"),
        ("--from", "BB", "--to", "any"),
        ("-n", "5", "--to", "any", "--pegs", "5"),
    ],
)
def test_a_start_that_already_is_the_goal_is_refused_whatever_the_rules(argv: tuple[str, ...]) -> None:
    with pytest.raises(PlanError, match="already is"):
        request(*argv)


@pytest.mark.parametrize(
    "argv", [("-n", "3"), ("-n", "3", "--to", "B", "--rules", "linear"), ("--from", "ACB", "--to", "any")]
)
def test_a_start_other_than_the_goal_is_planned(argv: tuple[str, ...]) -> None:
    req = request(*argv)
    assert count_for(req) > 0
