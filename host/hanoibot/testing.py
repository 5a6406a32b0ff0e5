"""A pytest plugin for hardware-in-the-loop tests of a hanoibot arm, shipped with the package.

Fixtures: ``hil_port_url`` (the port under test: ``--hil-port``, default ``sim://``), ``robot_link`` (an open
:class:`~hanoibot.link.session.Session` on it) and ``robot`` (a :class:`~hanoibot.run.robot.Robot` whose link is
open, with the robot config of ``--hil-config``). The same test bodies then run on the simulated arm, on
``hanoibot emulate``'s pty and on a real board::

    def test_three_disks(robot):
        plan = make_plan(3)
        run = Run(robot, plan)
        assert run.start() is Phase.DONE

    pytest                                   # on sim://
    pytest --hil-port /dev/ttyACM0           # on the real arm

Registered through the ``pytest11`` entry point ``hanoibot``, so installing hanoibot is enough. This module
is the one place that defines ``--hil-port``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .ops.ports import offer_port_schemes

offer_port_schemes()  # the tests' ports include sim://, vpico:// and feetech://: the plugin composes the program

DEFAULT_PORT_URL = "sim://"


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add ``--hil-port`` and ``--hil-config``."""
    group = parser.getgroup("hanoibot", "hanoibot hardware-in-the-loop tests")
    group.addoption(
        "--hil-port",
        action="store",
        default=DEFAULT_PORT_URL,
        metavar="URL",
        help="serial port or pyserial URL of the board under test (default sim://)",
    )
    group.addoption(
        "--hil-config",
        action="store",
        default=None,
        metavar="FILE",
        help="robot config TOML of the arm under test (default hardware/robot.toml)",
    )


@pytest.fixture(scope="session")
def hil_port_url(request: pytest.FixtureRequest) -> str:
    """The port URL under test (``--hil-port``; ``sim://`` when the option is not registered)."""
    return str(request.config.getoption("--hil-port", default=DEFAULT_PORT_URL))


@pytest.fixture
def robot_link(hil_port_url: str) -> Iterator[Any]:
    """An open link session to the board under test, closed after the test."""
    from .link.session import Session

    session = Session(hil_port_url)
    session.open()
    try:
        yield session
    finally:
        session.close()


@pytest.fixture
def robot(hil_port_url: str, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A :class:`~hanoibot.run.robot.Robot` on the port under test with its link open, closed after the test."""
    from .ops.board import open_robot

    arm = open_robot(hil_port_url, request.config.getoption("--hil-config", default=None))
    try:
        yield arm
    finally:
        arm.close()
