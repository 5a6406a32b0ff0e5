"""The shipped firmware on the virtual Pico (stock MicroPython rp2) when the hardware refuses its board_config.py:
the host's HELLO says BOARD_ERROR and names what to check, never silence (issue 34, defect 3)."""

from __future__ import annotations

import re

import pytest
from hanoibot.sim.vpico.flash import files_on_flash
from hanoibot.sim.vpico.process import VirtualPico
from hanoifw import protocol as p
from hanoifw.rxframe import FrameReader

pytestmark = [pytest.mark.slow, pytest.mark.vpico]


def test_a_pca9685_that_does_not_answer_is_named_in_the_boards_hello() -> None:
    # The virtual Pico's PCA9685 answers at 0x40 only; this board_config.py names 0x41, as a board whose PCA9685
    # is unpowered, unwired or strapped to another address does. MicroPython's I2C read then raises OSError: it
    # went up as a traceback into the REPL, and the host heard nothing.
    files = files_on_flash(servo_driver="pca9685")
    config, found = re.subn(rb"(?m)^PCA9685_ADDRESS = .*$", b"PCA9685_ADDRESS = 0x41", files["board_config.py"])
    assert found == 1
    files["board_config.py"] = config
    with VirtualPico(files=files, servo_driver="pca9685", driven=True, seed=34) as pico:
        pico.wait_connected()
        pico.write(p.encode(p.SYNC, 0, 0, ("t",)))
        pico.wait_for_output(b"BOARD_CONFIG")
        pico.run_until(pico.time_s + 0.1)  # the rest of the line
        frames = FrameReader().feed(pico.output_since_boot())
        assert not pico.tracebacks, pico.tracebacks
    hellos = [p.unpack(p.HELLO, fields) for kind, _s, _a, fields in frames if kind == p.HELLO]
    errors = [",".join(fields[2:]) for kind, _s, _a, fields in frames if kind == p.ERROR]
    assert hellos and all(hello is not None and hello["mode"] == p.MODE_BOARD_ERROR for hello in hellos)
    assert errors and errors[0].startswith("board_config.py PCA9685_ADDRESS: no PCA9685 at 0x41 on I2C bus 0"), errors
    assert "OSError" in errors[0] and errors[0].endswith("check its VCC GND SDA SCL wires and A0-A5 jumpers")
