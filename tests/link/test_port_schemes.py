"""The link's table of URL schemes (hanoibot.link.port_schemes): the simulator offers ``sim://`` and ``vpico://``
to it from its own package, the link opens them without importing the simulator, and an open port answers "is it
simulated?" itself (``Robot.simulator``, from ``BoardPort.simulator``)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
import serial
from hanoibot.link.port_lock import is_in_process
from hanoibot.link.port_schemes import PortScheme, board_in_process, register_port_scheme, scheme_of
from hanoibot.run.robot import Robot


def test_a_registered_scheme_is_handed_to_pyserial_once_and_answers_before_opening() -> None:
    package = "tests_fake_handlers"  # never imported: pyserial only looks in it when such a URL is opened
    try:
        register_port_scheme(PortScheme("fakeboard", package, lambda url: url.endswith("=here")))
        register_port_scheme(PortScheme("fakeboard", package, lambda url: url.endswith("=here")))
        assert serial.protocol_handler_packages.count(package) == 1
        assert scheme_of("FAKEBOARD://x?at=here") is not None
        assert board_in_process("fakeboard://?at=here") and not board_in_process("fakeboard://?at=there")
    finally:
        serial.protocol_handler_packages.remove(package)
    assert scheme_of("/dev/ttyACM0") is None and scheme_of("nosuch://x") is None
    assert not board_in_process("/dev/ttyACM0") and not board_in_process("socket://localhost:7")


@pytest.mark.parametrize(
    ("url", "in_process"),
    [
        ("sim://", True),
        ("SIM://?seed=3", True),
        ("vpico://?servo=sts", True),
        ("vpico://?attach=/tmp/pico.sock", False),  # a board another process serves
        ("feetech:///dev/ttyACM0", False),  # a real adapter: the device is what two processes would share
        ("/dev/ttyACM0", False),
    ],
)
def test_the_simulator_says_which_of_its_boards_live_in_the_process(url: str, in_process: bool) -> None:
    # conftest composed the program as the command line does (hanoibot.ops.ports)
    assert is_in_process(url) is in_process


def test_the_link_alone_loads_no_simulator_and_cannot_open_sim_until_the_program_offers_it() -> None:
    probe = textwrap.dedent(
        """
        import sys
        import hanoibot.link.core, hanoibot.link.port, hanoibot.link.port_lock, hanoibot.link.session
        import hanoibot.link.urlhandler, hanoibot.link.urlhandler.protocol_feetech
        from hanoibot.errors import PortError
        from hanoibot.link.port import close_quietly, open_port
        print(sorted(m for m in sys.modules if m == "hanoibot.sim" or m.startswith("hanoibot.sim.")))
        try:
            open_port("sim://")
        except PortError as err:
            print("refused:", err)
        from hanoibot.ops.ports import offer_port_schemes
        offer_port_schemes()
        port = open_port("sim://?seed=5")
        print("opened:", port.simulator.seed)
        close_quietly(port)
        """
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    loaded, refused, opened = done.stdout.splitlines()
    assert loaded == "[]"
    assert refused.startswith("refused: cannot open port 'sim://'") and "protocol 'sim' not known" in refused
    assert opened == "opened: 5"


def test_the_port_answers_whether_the_robot_is_simulated() -> None:
    robot = Robot("sim://?seed=2")
    assert robot.simulator is None and not robot.is_simulated  # nothing open: nothing said yet
    with robot:
        robot.open()
        assert robot.simulator is not None and robot.is_simulated
        assert robot.simulator.seed == 2 and robot.sim_board is robot.simulator.board is not None
