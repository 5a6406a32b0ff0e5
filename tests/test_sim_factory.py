"""Building the simulated board and wire from sim:// / emulate options."""

from __future__ import annotations

import pytest
from hanoibot.errors import ConfigError
from hanoibot.sim.factory import make_wire, make_world


def test_bare_board_has_no_world_and_gets_the_faults() -> None:
    wire = make_wire({"world": "0", "flip": "0.01", "seed": "5"})
    assert wire.board.world is None
    assert wire.spec.flip == 0.01
    assert wire.spec.seed == 5


def test_the_default_board_has_the_arm_and_disks() -> None:
    world = make_world({"board": "AAA"})
    assert world is not None
    assert callable(world.on_tick)
    assert world.grip_sensor.read() == 0


def test_servo_limits_come_from_the_world_when_asked() -> None:
    assert make_wire({"board": "AAA"}).board.servos._max_speed_us_per_s == [None] * 5
    limited = make_wire({"board": "AAA", "servo_limits": "1"}).board.servos._max_speed_us_per_s
    assert all(speed is not None and speed > 0 for speed in limited)


@pytest.mark.parametrize(
    ("options", "word"),
    [
        ({"world": "2"}, "world='2'"),
        ({"speed": "0"}, "speed='0'"),
        ({"speed": "x"}, "speed='x'"),
        ({"servo_limits": "yes"}, "servo_limits='yes'"),
    ],
)
def test_bad_options_name_the_value(options: dict[str, str], word: str) -> None:
    with pytest.raises(ConfigError, match=word):
        make_wire(options)
