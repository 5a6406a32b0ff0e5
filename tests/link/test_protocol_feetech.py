"""``feetech://``: the firmware's own board run on the host, driving Feetech bus servos through a USB adapter.

The adapter here is simulated (:class:`hanoibot.sim.adapter.SimAdapter`): a real pseudo-terminal whose other end
is the simulated servo bus (hanoibot.sim.bus, byte for byte, answers after their return delay) moving the
simulated arm and disks on the wall clock. The world's log of picks and places, which the host never sees, is the
judge: every move of the plan made once, in order, nothing dropped or hit.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
import serial
from cli_runner import HANOIBOT, hanoibot
from hanoibot.config import load_config
from hanoibot.errors import PortError
from hanoibot.link.port import open_port
from hanoibot.link.urlhandler import busboard
from hanoibot.link.urlhandler.busboard import MAX_TICK_STEP_MS, PacedTicks, SerialUart
from hanoibot.link.urlhandler.protocol_feetech import parse_feetech_url
from hanoibot.planner import make_plan
from hanoibot.run.robot import Robot
from hanoibot.run.runner import Run
from hanoibot.run.sequencer import Phase
from hanoibot.sim.adapter import SimAdapter
from hanoibot.sim.world import SimWorld, make_world
from hanoifw import protocol
from world_events import moves_made

#: Wall-clock bound of one hanoibot command on the simulated adapter (a 3-disk run takes about 11 s of motion).
COMMAND_S = 180.0


def world_and_adapter() -> tuple[SimWorld, SimAdapter]:
    world = make_world(None, "AAA")
    return world, SimAdapter(world)


# --- the URL ---------------------------------------------------------------------------------------------------
def test_the_url_names_the_adapter_and_the_bus() -> None:
    device, settings = parse_feetech_url("feetech:///dev/ttyACM0?ids=1,2,3,4,5,6&baud=500000&steps=1024")
    assert device == "/dev/ttyACM0"
    assert settings == {"ids": (1, 2, 3, 4, 5, 6), "baud": 500_000, "steps_per_turn": 1024, "echo": False}
    assert parse_feetech_url("feetech:///dev/ttyUSB1")[1]["ids"] == (1, 2, 3, 4, 5)


@pytest.mark.parametrize(
    ("url", "word"),
    [
        ("feetech://", "feetech://DEVICE"),
        ("feetech:///dev/x?ids=1,1", "ids='1,1'"),
        ("feetech:///dev/x?ids=300", "ids='300'"),
        ("feetech:///dev/x?baud=9600", "baud='9600'"),
        ("feetech:///dev/x?steps=2048", "steps='2048'"),
        ("feetech:///dev/x?speed=2", "'speed'"),
    ],
)
def test_a_bad_url_is_refused_naming_the_value(url: str, word: str) -> None:
    with pytest.raises(ValueError, match=word):
        parse_feetech_url(url)
    with pytest.raises(PortError, match=word):
        open_port(url)


def test_an_adapter_that_is_not_there_is_a_port_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(PortError, match=r"feetech://.*nothing-here"):
        open_port(f"feetech://{tmp_path}/nothing-here")


# --- the driver's UART on a pyserial port ---------------------------------------------------------------------
def test_the_uart_adaptor_gives_the_bus_driver_what_a_machine_uart_does() -> None:
    port = serial.serial_for_url("loop://", timeout=0)
    uart = SerialUart(port)
    assert uart.any() == 0 and uart.readinto(bytearray(4)) is None, "nothing arrived: None, as machine.UART"
    assert uart.write(bytearray(b"\xff\xff\x01")) == 3
    buf = bytearray(8)
    assert uart.any() == 3 and uart.readinto(buf, 2) == 2 and buf[:2] == b"\xff\xff"
    assert uart.readinto(buf) == 1 and buf[0] == 1


def test_the_boards_time_stands_still_while_its_thread_is_not_run(monkeypatch: pytest.MonkeyPatch) -> None:
    wall_s = [100.0]
    monkeypatch.setattr(busboard.time, "monotonic", lambda: wall_s[0])
    ticks = PacedTicks()
    readings = []
    for step_s in (0.004, 0.004, 0.250, 0.004):  # the thread missed a quarter of a second
        wall_s[0] += step_s
        readings.append(ticks.ticks_ms())
    assert readings == [4, 8, 8 + MAX_TICK_STEP_MS, 12 + MAX_TICK_STEP_MS]
    assert ticks.ticks_diff(ticks.ticks_add(readings[-1], 5), readings[-1]) == 5


# --- runs on the simulated adapter -----------------------------------------------------------------------------
def test_a_run_in_process_is_every_move_once_with_the_servos_measured() -> None:
    world, adapter = world_and_adapter()
    with adapter:
        robot = Robot(f"feetech://{adapter.device}", load_config())
        robot.open()
        with robot:
            job = Run(robot, make_plan(3))
            assert job.start() is Phase.DONE, job.sequencer.reason
            status = robot.session.status()
        events = list(world.events)
    assert moves_made(events) == list(make_plan(3))
    assert len(status.measured_us) == 5, "the bus servos' positions, read through the adapter"
    assert job.sequencer.pose_check is not None and job.sequencer.pose_check.board_measures


def test_a_servo_that_does_not_answer_is_named() -> None:
    world, adapter = world_and_adapter()
    with adapter:
        with adapter.lock:
            adapter.bus.servos[3].silent = True
        robot = Robot(f"feetech://{adapter.device}", load_config())
        robot.open()
        with robot:
            job = Run(robot, make_plan(3))
            assert job.start() is Phase.FAULT
    assert protocol.FAULT_SERVO_SILENT in job.sequencer.reason and "servo 3 (bus id 4)" in job.sequencer.reason
    assert "3 reads in a row" in job.sequencer.reason
    assert moves_made(list(world.events)) == []


def test_hanoibot_run_on_feetech_makes_every_move_once(tmp_path: Path) -> None:
    world, adapter = world_and_adapter()
    with adapter:
        result = hanoibot(
            "run", "-n", "3", "--port", f"feetech://{adapter.device}", "--plain",
            "--journal", str(tmp_path / "run.journal"), timeout_s=COMMAND_S,
        )  # fmt: skip
        events = list(world.events)
    assert result.returncode == 0, result.stderr
    assert moves_made(events) == list(make_plan(3))


def between_moves(adapter: SimAdapter, places: int) -> bool:
    """True once ``places`` disks were put down and the next one not yet picked, the fingers above every peg's tip by
    half the config's clearance (the arm on its way to the next pick)."""
    world = adapter.world
    with adapter.lock:
        done = [e["event"] for e in world.events if e["event"] in ("pick", "place")]
        if done.count("place") != places or done.count("pick") != places or world.held_disk is not None:
            return False
        pose = world.arm.pose(adapter.bus.positions_us())
    top_mm = max(peg.height_mm for peg in world.config.board.pegs)
    return pose is not None and pose.z_mm > top_mm + world.config.motion.clearance_mm / 2


def test_kill_9_between_moves_then_resume_makes_every_move_once(tmp_path: Path) -> None:
    journal = tmp_path / "run.journal"
    world, adapter = world_and_adapter()
    with adapter:
        port = f"feetech://{adapter.device}"
        run = subprocess.Popen(
            [*HANOIBOT, "run", "-n", "3", "--port", port, "--plain", "--journal", str(journal)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            deadline_s = time.monotonic() + COMMAND_S
            while not between_moves(adapter, 2) and time.monotonic() < deadline_s and run.poll() is None:
                time.sleep(0.002)
            assert between_moves(adapter, 2), run.stderr.read() if run.poll() is not None else "too slow"
            run.kill()  # kill -9: the host and the board it ran are gone; the servos hold where they were
        finally:
            run.kill()
            run.communicate()
        assert run.returncode == -9
        with adapter.lock:
            board, seen = world.state, len(world.events)
        assert board is not None
        refused = hanoibot("resume", "--journal", str(journal), "--port", port, "--plain", timeout_s=COMMAND_S)
        assert refused.returncode != 0 and "the board was reset" in refused.stderr, refused.stderr
        assert "--board" in refused.stderr, "the board of a killed host died with it: the user says where the disks are"
        assert len(world.events) == seen, "nothing moved"
        result = hanoibot(
            "resume", "--journal", str(journal), "--port", port, "--board", board.to_string(), "--plain",
            timeout_s=COMMAND_S,
        )  # fmt: skip
        events = list(world.events)
    assert result.returncode == 0, result.stderr
    assert moves_made(events) == list(make_plan(3)), "every move once, in order, nothing dropped or hit"
