"""The port's typed face (hanoibot.link.board_port): a simulator port shows its clock, seed and world; any other
port gets the plain face (wall time, no simulator, a UART's byte time)."""

from __future__ import annotations

import hanoibot.sim.urlhandler  # noqa: F401 - registers sim://
import serial
from hanoibot.clock import VirtualClock
from hanoibot.link.board_port import BoardPort, PlainPort, board_port_of


def test_a_sim_port_shows_its_clock_seed_and_world() -> None:
    port = serial.serial_for_url("sim://?seed=12&board=AAA")
    face = board_port_of(port)
    assert face is port and isinstance(face, BoardPort)
    assert isinstance(face.clock, VirtualClock) and face.line_byte_s == 0.0
    assert face.simulator is not None and face.simulator.seed == 12 and face.simulator.dies_with_host
    world = face.simulator.world
    assert world is not None and world.stacks == ((3, 2, 1), (), ())
    port.close()


def test_a_bare_sim_board_has_no_world_and_an_unseeded_one_no_seed() -> None:
    port = serial.serial_for_url("sim://?world=0")
    face = board_port_of(port)
    assert face.simulator is not None and face.simulator.world is None and face.simulator.seed is None


def test_any_other_port_gets_the_plain_face() -> None:
    port = serial.serial_for_url("loop://", baudrate=115200)
    face = board_port_of(port)
    assert isinstance(face, PlainPort) and face.clock is None and face.simulator is None
    assert face.line_byte_s == 10 / 115200
