"""Does the robot config fit the board that answered? Checked at connect, from the board's HELLO.

The firmware refuses pulse limits outside its own range and can only report a grip it can sense; a config that
asks for more is a :class:`~hanoibot.errors.ConfigError` naming the key, before anything moves.
"""

from __future__ import annotations

from ..config import RobotConfig
from ..errors import ConfigError
from ..link.status import Hello


def check_config_fits_board(config: RobotConfig, hello: Hello, port_url: str) -> None:
    """ConfigError (one line, naming the key) if ``config`` asks for pulses outside the board's HELLO range or
    for a grip sensor the board does not have: the first of :func:`board_mismatches`."""
    mismatches = board_mismatches(config, hello, port_url)
    if mismatches:
        raise ConfigError(mismatches[0])


def board_mismatches(config: RobotConfig, hello: Hello, port_url: str) -> list[str]:
    """Every way ``config`` does not fit the board's HELLO, one line each naming the key (empty: it fits).
    ``hanoibot status`` shows them as warnings; every command that moves the arm refuses the board."""
    found = []
    low_us, high_us = hello.min_pulse_us, hello.max_pulse_us
    names = config.channel_names()
    for name, min_us, max_us in zip(names, config.min_pulses_us(), config.max_pulses_us(), strict=True):
        if min_us < low_us:
            found.append(f"[servos.{name}] min_us = {min_us}: the board on {port_url} accepts {low_us}..{high_us} µs")
        if max_us > high_us:
            found.append(f"[servos.{name}] max_us = {max_us}: the board on {port_url} accepts {low_us}..{high_us} µs")
    if config.gripper.grip_sensor and not hello.grip_sensor:
        found.append(
            f"[gripper] grip_sensor = true: the board on {port_url} has no grip sensor "
            "(GRIP_SENSOR_PIN in board_config.py); wire one or set grip_sensor = false"
        )
    return found
