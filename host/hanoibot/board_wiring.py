"""The firmware's board wiring (``board_config.py``) for an arm of N servo channels, written from the shipped one.

The shipped ``firmware_micropython/board_config.py`` wires the default robot's 5 channels (base, shoulder, elbow,
wrist, gripper). An arm with another channel count (a 6-servo preset: 5 joints and the gripper) needs the five
settings that follow the count to agree with it, or the board refuses its CONFIG: ``CHANNELS``, one GPIO per
channel in ``PWM_PINS``, ``PCA9685_CHANNELS``, ``BUS_IDS`` and ``ENABLE_ORDER``. :func:`wire_board_config` rewrites
those lines of the shipped text and nothing else (every other line, and so the user's way of editing the file,
stays as shipped). Channels beyond the shipped five get the free GPIOs of :data:`EXTRA_PWM_PINS` on each chip.

The firmware takes 1 to ``hanoifw.controller.MAX_CHANNELS`` = 9 channels (a CONFIG carries 4 values a channel and
the grip threshold, at most ``protocol.MAX_FIELDS`` = 40 fields; its frames fit with 9, tests/firmware). Pure text
in, text out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hanoifw.controller import MAX_CHANNELS

from .errors import ConfigError

__all__ = ["EXTRA_PWM_PINS", "MAX_CHANNELS", "pwm_pins", "wire_board_config"]
#: GPIOs given to channels 5, 6, 7 and 8 (after the shipped five), per chip: outputs with PWM that no other
#: setting of the shipped board_config.py uses and that are no strapping, flash, USB or input-only pins.
#: ESP32: 33 and 32 (board_config.py's own advice for a sixth pin), 18, 19; ESP32-S3: 15, 16, 38, 39; RP2040:
#: GP7 to GP10 (PWM slices 3B to 5A, none shared with GP2-GP6; I2C is on GP16/17, the bus UART on GP0/1).
EXTRA_PWM_PINS = {
    "ESP32": (33, 32, 18, 19),
    "ESP32S3": (15, 16, 38, 39),
    "RP2040": (7, 8, 9, 10),
}

_PWM_BLOCK = re.compile(r"(?ms)^PWM_PINS = \{\n(?P<body>.*?)^\}\n")
_PWM_ROW = re.compile(r'(?m)^(?P<lead>\s*"(?P<chip>\w+)": )\((?P<pins>[\d, ]*)\)(?P<tail>,.*)$')


def pwm_pins(channels: int, shipped: Sequence[int], chip: str) -> tuple[int, ...]:
    """The GPIOs of ``channels`` servo wires on ``chip``: the ``shipped`` ones first, then its extra pins."""
    pins = tuple(shipped) + EXTRA_PWM_PINS.get(chip, ())
    if channels > len(pins):
        raise ConfigError(
            f"{channels} servo channels: board_config.py names {len(pins)} PWM pins for chip {chip}: "
            f"expected at most {len(pins)} channels there (edit PWM_PINS by hand)"
        )
    return pins[:channels]


def wire_board_config(text: str, channel_names: Sequence[str]) -> str:
    """``text`` (the shipped board_config.py) with its channel settings for the channels named ``channel_names``
    (wire order, the gripper last): ConfigError if the count is out of the firmware's range or a setting's line
    is not where the shipped file has it."""
    channels = len(channel_names)
    if not 1 <= channels <= MAX_CHANNELS:
        raise ConfigError(f"{channels} servo channels: the firmware drives 1 to {MAX_CHANNELS}")
    names = ", ".join(channel_names)
    order = tuple(range(channels - 1, -1, -1))  # light joints first: the gripper, the wrist ... the base last
    text = _replace(text, r"^CHANNELS = .*$", f"CHANNELS = {channels}")
    text = _replace(text, r"^PCA9685_CHANNELS = .*$", f"PCA9685_CHANNELS = {_tuple(range(channels))}")
    text = _replace(
        text, r"^BUS_IDS = \([\d, ]*\)", f"BUS_IDS = {_tuple(range(1, channels + 1))}"
    )  # its comment (the SO-101's ids) stays
    enable = ", ".join(reversed(channel_names))
    text = _replace(text, r"^ENABLE_ORDER = .*$", f"ENABLE_ORDER = {_tuple(order)}  # light joints first: {enable}")
    text = _replace(text, r"Channel order everywhere: [^.]*\.", f"Channel order everywhere: {names}.")
    text = _replace(
        text, r"GPIO numbers of the \d+ servo signal wires", f"GPIO numbers of the {channels} servo signal wires"
    )
    text = _replace(text, r"channel 0\.\.\d+ to the PCA9685", f"channel 0..{channels - 1} to the PCA9685")
    block = _PWM_BLOCK.search(text)
    if block is None:
        raise ConfigError("board_config.py has no 'PWM_PINS = {' block: expected the shipped file")

    def row(match: re.Match[str]) -> str:
        shipped = [int(p) for p in match["pins"].replace(" ", "").split(",") if p]
        pins = pwm_pins(channels, shipped, match["chip"])
        return f"{match['lead']}{_tuple(pins)}{match['tail']}"

    body = _PWM_ROW.sub(row, block["body"])
    return text[: block.start("body")] + body + text[block.end("body") :]


def _replace(text: str, pattern: str, new: str) -> str:
    """``text`` with the one match of ``pattern`` (multi-line) replaced by ``new``; ConfigError if not once."""
    result, found = re.subn(pattern, lambda _: new, text, flags=re.MULTILINE)
    if found != 1:
        raise ConfigError(f"board_config.py has {found} places matching {pattern!r}: expected the shipped file")
    return result


def _tuple(values: Sequence[int] | range) -> str:
    """A Python tuple literal of ``values``."""
    items = list(values)
    return f"({items[0]},)" if len(items) == 1 else "(" + ", ".join(str(v) for v in items) + ")"
