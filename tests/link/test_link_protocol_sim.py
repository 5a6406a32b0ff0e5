"""The sim:// URL handler: option parsing, virtual-time reads, realtime pacing, a board kept across reopens."""

from __future__ import annotations

import time

import hanoibot.sim.urlhandler  # noqa: F401 - registers sim://
import pytest
import serial
from hanoibot.errors import ConfigError
from hanoibot.sim.urlhandler.protocol_sim import parse_sim_url
from hanoifw import protocol
from hanoifw.rxframe import FrameReader


def drain(port: serial.SerialBase) -> list[tuple[str, int, int, list[str]]]:
    """Every frame the board has sent so far."""
    return FrameReader().feed(port.read(port.in_waiting))


def test_options_are_parsed() -> None:
    options = parse_sim_url("sim://?flip=1e-3&seed=4&board=ACAB&realtime=1")
    assert options == {"flip": "1e-3", "seed": "4", "board": "ACAB", "realtime": "1"}


@pytest.mark.parametrize(
    ("url", "word"),
    [
        ("sim://?flop=1", "'flop' is unknown"),
        ("sim://?seed=1&seed=2", "'seed' is given twice"),
        ("sim://?realtime=yes", "realtime='yes'"),
        ("sim://host/path", "not a sim:// URL"),
    ],
)
def test_bad_urls_name_the_problem(url: str, word: str) -> None:
    with pytest.raises(ConfigError, match=word):
        parse_sim_url(url)


def test_a_blocking_read_on_a_silent_board_advances_virtual_time_only() -> None:
    port = serial.serial_for_url("sim://?world=0", timeout=2.5)
    assert [frame[0] for frame in drain(port)] == ["HELLO"]
    began_virtual_s = port.clock.now_s()
    began_wall_s = time.monotonic()
    assert port.read(1) == b""
    assert port.clock.now_s() - began_virtual_s == pytest.approx(2.5)
    assert time.monotonic() - began_wall_s < 1.0
    port.close()


def test_realtime_paces_virtual_time_with_the_wall_clock() -> None:
    port = serial.serial_for_url("sim://?world=0&realtime=1", timeout=0.2)
    drain(port)
    began_wall_s = time.monotonic()
    assert port.read(1) == b""
    assert time.monotonic() - began_wall_s >= 0.19
    port.close()


def test_realtime_does_not_replay_idle_time_at_full_speed() -> None:
    # Opened, then left idle for a while (a console waiting for a person): the next second of board time still
    # takes a second of wall time, not the idle time replayed at once.
    port = serial.serial_for_url("sim://?world=0&realtime=1", timeout=1.0)
    drain(port)
    time.sleep(1.5)
    start_s, virtual_s = time.monotonic(), port.clock.now_s()
    assert port.read(1) == b""  # nothing comes: the virtual clock runs 1 s
    assert port.clock.now_s() - virtual_s == pytest.approx(1.0, abs=0.05)
    assert time.monotonic() - start_s >= 0.9
    port.close()


def test_the_board_answers_at_once_and_survives_a_reopen() -> None:
    port = serial.serial_for_url("sim://?world=0", timeout=0.1)
    drain(port)
    boot_id = port.board.boot_id
    port.write(protocol.encode("STATUS", 0, 0))
    ((kind, _seq, _ack, fields),) = drain(port)
    assert (kind, fields[0]) == ("STATUS", boot_id)
    port.close()
    port.open()
    assert port.board.boot_id == boot_id
    port.close()


def test_the_board_is_unreachable_before_the_first_open() -> None:
    port = serial.serial_for_url("sim://", do_not_open=True)
    with pytest.raises(serial.PortNotOpenError):
        _ = port.board
