"""Tests for the pytest plugin hanoibot.testing: its option and fixtures, used the way a user would."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

USER_TESTS = """
from hanoibot.planner import make_plan
from hanoibot.run.runner import Run
from hanoibot.run.sequencer import Phase


def test_port(hil_port_url):
    assert hil_port_url == EXPECTED


def test_link(robot_link):
    status = robot_link.status()
    assert status.boot_id == robot_link.boot_id and status.mode == "UNCONFIGURED"


def test_three_disks(robot):  # the simulated board starts with 3 disks on A
    run = Run(robot, make_plan(3))
    assert run.start() is Phase.DONE
    assert robot.sim_board.world.state == make_plan(3).goal
"""


@pytest.mark.parametrize("port", [None, "sim://?seed=5"])
def test_user_hil_tests_run_on_the_port_given(pytester: pytest.Pytester, port: str | None) -> None:
    expected = port or "sim://"
    pytester.makepyfile(test_user=USER_TESTS.replace("EXPECTED", repr(expected)))
    # "no:hanoibot" keeps the installed entry-point copy of the plugin out, so it is loaded exactly once here
    args = ["-p", "no:hanoibot", "-p", "hanoibot.testing", "-p", "no:cacheprovider"]
    if port is not None:
        args += ["--hil-port", port]
    result = pytester.runpytest_inprocess(*args)
    result.assert_outcomes(passed=3)


def test_the_option_is_documented_in_help(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess("-p", "no:hanoibot", "-p", "hanoibot.testing", "--help")
    result.stdout.fnmatch_lines(["*--hil-port=URL*board under test*", "*(default sim://)*"])
