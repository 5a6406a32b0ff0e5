"""Chip time of the simulated board (``sim://?slow=K``): frames wait until the chip has handled the ones before."""

from __future__ import annotations

import math

import pytest
import serial
from hanoibot.clock import VirtualClock
from hanoibot.errors import ConfigError
from hanoibot.sim.board import TICK_S, SimBoard
from hanoibot.sim.chip import PICO_FRAME_S, PICO_TICK_S, ChipTime
from hanoifw import protocol
from hanoifw.rxframe import FrameReader


def ping(n: int) -> bytes:
    return protocol.encode(protocol.PING, n, 0, [str(n)])


def test_frames_are_handled_one_after_another_each_costing_frame_time() -> None:
    chip = ChipTime(slow=4)
    chip.arrive(ping(1) + ping(2), 1.0)
    assert chip.next_frame_done_s() == pytest.approx(1.0 + 4 * PICO_FRAME_S)
    assert chip.take_frame() == ping(1)
    assert chip.next_frame_done_s() == pytest.approx(1.0 + 8 * PICO_FRAME_S)
    assert chip.backlog_bytes == len(ping(2))
    assert chip.max_backlog_bytes == len(ping(1) + ping(2))


def test_a_control_tick_delays_the_frame_being_handled_by_the_tick_cost_only() -> None:
    chip = ChipTime(slow=2)
    chip.arrive(ping(1), 0.0)
    chip.control_tick(PICO_FRAME_S)  # half-way through the frame's 2 * PICO_FRAME_S
    assert chip.next_frame_done_s() == pytest.approx(2 * PICO_FRAME_S + 2 * PICO_TICK_S)


def test_a_partial_line_waits_for_its_end_and_is_not_a_frame_yet() -> None:
    chip = ChipTime(slow=1)
    frame = ping(7)
    chip.arrive(frame[:5], 0.0)
    assert chip.next_frame_done_s() == math.inf
    chip.arrive(frame[5:], 0.5)
    assert chip.next_frame_done_s() == pytest.approx(0.5 + PICO_FRAME_S)
    assert chip.take_frame() == frame


@pytest.mark.parametrize("slow", [0.5, 0.0, math.inf, math.nan])
def test_a_chip_faster_than_a_pico_or_not_a_number_is_refused(slow: float) -> None:
    with pytest.raises(ValueError, match="slowdown"):
        ChipTime(slow=slow)


def test_the_last_pong_of_a_burst_comes_after_every_frame_and_tick_before_it() -> None:
    clock = VirtualClock()
    board = SimBoard(clock=clock, slow=4)
    board.step()  # the control tick at 0 s (it says HELLO)
    board.take_output()
    board.feed(b"".join(ping(n) for n in range(1, 11)))
    board.step()
    assert board.take_output() == b"", "a chip with work to do answered at once"
    reader, tokens, done_s = FrameReader(), [], None
    while done_s is None:
        board.run_until(clock.now_s() + 0.001)
        tokens += [f[3][0] for f in reader.feed(board.take_output()) if f[0] == protocol.PONG]
        if "10" in tokens:
            done_s = clock.now_s()
    assert tokens == [str(n) for n in range(1, 11)]
    assert board.chip is not None and board.chip.max_backlog_bytes == sum(len(ping(n)) for n in range(1, 11))
    # Oracle: after the tick at 0 s, ten frames of 8 ms each, plus 4 ms for every tick due before a frame was done.
    expected_s, free_s, tick = 0.0, 4 * PICO_TICK_S, 1
    for _ in range(10):
        expected_s = free_s + 4 * PICO_FRAME_S
        while tick * TICK_S < expected_s:
            expected_s += 4 * PICO_TICK_S
            tick += 1
        free_s = expected_s
    assert done_s == pytest.approx(expected_s, abs=0.0011)


def test_a_board_without_chip_time_answers_at_once() -> None:
    board = SimBoard(clock=VirtualClock())
    board.feed(ping(1))
    board.step()
    assert b"PONG" in board.take_output()


def test_sim_url_slow_option_gives_the_board_chip_time() -> None:
    port = serial.serial_for_url("sim://?world=0&slow=4", timeout=0.5)
    assert port.board.chip is not None and port.board.chip.frame_s == pytest.approx(4 * PICO_FRAME_S)
    port.write(ping(3))
    start_s = port.clock.now_s()
    answer = b""
    while b"PONG" not in answer and port.clock.now_s() - start_s < 0.5:
        answer += port.read_until(b"\n")
    assert b"PONG" in answer and port.clock.now_s() - start_s >= 4 * PICO_FRAME_S
    port.close()


@pytest.mark.parametrize("text", ["0.5", "fast", "inf"])
def test_a_bad_slow_option_names_itself(text: str) -> None:
    with pytest.raises(ConfigError, match=f"slow={text!r}"):
        serial.serial_for_url(f"sim://?world=0&slow={text}")
