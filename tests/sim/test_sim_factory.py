"""Building the simulated board and wire from sim:// / emulate options."""

from __future__ import annotations

import pytest
from hanoibot.config import load_config
from hanoibot.errors import ConfigError
from hanoibot.sim.factory import make_wire, world_from_options


def test_bare_board_has_no_world_and_gets_the_faults() -> None:
    wire = make_wire({"world": "0", "flip": "0.01", "seed": "5"})
    assert wire.board.world is None
    assert wire.spec.flip == 0.01
    assert wire.spec.seed == 5


def test_the_default_board_has_the_arm_and_disks() -> None:
    world = world_from_options({"board": "AAA"})
    assert world is not None
    assert callable(world.on_tick)
    assert not world.grip_sensor.is_stalled()


def test_servos_turn_at_the_worlds_speeds_and_the_speed_factor_scales_them_once() -> None:
    config = load_config()

    def speeds(options: dict[str, str]) -> list[float | None]:
        return [traits.max_speed_us_s for traits in make_wire(options).board.servos.traits]

    assert speeds({"world": "0"}) == [None] * 5, "a bare board moves no arm"
    limited = speeds({"board": "AAA"})
    assert limited == pytest.approx(list(config.max_speeds_us_s()))
    doubled = speeds({"board": "AAA", "speed": "2"})
    assert doubled == pytest.approx([2 * rate for rate in config.max_speeds_us_s()])


@pytest.mark.parametrize(
    ("options", "word"),
    [
        ({"world": "2"}, "world='2'"),
        ({"speed": "0"}, "speed='0'"),
        ({"speed": "x"}, "speed='x'"),
    ],
)
def test_bad_options_name_the_value(options: dict[str, str], word: str) -> None:
    with pytest.raises(ConfigError, match=word):
        make_wire(options)
