"""``hanoibot emulate`` over a real pseudo-terminal, and link bodies that run on every transport.

Tests taking ``link_transport`` run on sim://, on a pty to an emulator in another process, on the virtual Pico
(vpico://) and on a real board with ``--hil-port``. Unplug/replug: the host closes and reopens the port; the
emulator pulls its virtual cable (SIGUSR1: a new pty behind the same symlink) and the session reconnects by itself.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hanoibot.config import load_config
from hanoibot.errors import BoardReset
from hanoibot.link.session import Session
from hanoibot.planner import make_plan
from hanoibot.run.robot import Robot
from hanoibot.run.runner import Run
from hanoibot.run.sequencer import Phase
from hanoibot.sim.spawn import EmulatorProcess
from link_checks import MOVE_MS, Transport, configure_snake, snake_pose_us, stream_snake
from vpico_checks import CHIP_SLOW

COUNT = 60
#: Bound in s on the streams of the bodies every transport runs: sized for the slowest, the virtual Pico capped at
#: 1/CHIP_SLOW of real time: 8 s of its chip time (CONFIG's staggered enable alone takes 1 s). Not a speed claim.
STREAM_TIMEOUT_S = 8.0 * CHIP_SLOW


def assert_executed_once_in_order(transport: Transport, session: Session, last_cmd_id: int) -> None:
    """Where the board's own record is readable, every id ran exactly once and in order."""
    deadline_s = time.monotonic() + 2.0
    executed = transport.executed_cmd_ids(session)
    while executed is not None and executed[-1:] != [last_cmd_id] and time.monotonic() < deadline_s:
        time.sleep(0.02)  # the emulator's log may trail the DONE the host already read
        executed = transport.executed_cmd_ids(session)
    if executed is not None:
        assert executed == list(range(1, last_cmd_id + 1))


def test_moves_stream_in_order(link_transport: Transport) -> None:
    with Session(link_transport.url) as session:
        configure_snake(session)
        stream_snake(session, COUNT, timeout_s=STREAM_TIMEOUT_S)
        assert session.status().pulses_us == snake_pose_us(COUNT)
        assert_executed_once_in_order(link_transport, session, COUNT)


def test_host_closes_and_reopens_the_port(link_transport: Transport) -> None:
    with Session(link_transport.url) as session:
        configure_snake(session)
        stream_snake(session, COUNT // 2, timeout_s=STREAM_TIMEOUT_S)
        boot_id = session.boot_id
        session.close()
        session.open()
        assert session.boot_id == boot_id
        stream_snake(session, COUNT // 2, first_cmd_id=COUNT // 2 + 1, timeout_s=STREAM_TIMEOUT_S)
        assert_executed_once_in_order(link_transport, session, COUNT)


def test_cable_pulled_while_streaming_reconnects(link_transport: Transport) -> None:
    if not link_transport.can_replug:  # before the session: a virtual Pico would boot for nothing
        pytest.skip(f"{link_transport.kind}: no cable that software can pull")
    with Session(link_transport.url) as session:
        configure_snake(session)
        for k in range(1, COUNT + 1):
            session.send_move(k, snake_pose_us(k), MOVE_MS)
            if k == COUNT // 2:
                assert link_transport.replug()
        session.wait_done(COUNT, timeout_s=10.0)
        assert session.reconnects >= 1
        assert_executed_once_in_order(link_transport, session, COUNT)


def test_power_cycle_is_a_reset_and_nothing_is_replayed(link_transport: Transport) -> None:
    if not link_transport.can_power_cycle:  # before the session: a virtual Pico would boot for nothing
        pytest.skip(f"{link_transport.kind}: cannot power-cycle the board from software")
    with Session(link_transport.url) as session:
        configure_snake(session)
        session.hold()
        for k in range(1, 4):
            session.send_move(k, snake_pose_us(k), MOVE_MS)
        assert link_transport.power_cycle(session)
        start_s = session.clock.now_s()
        with pytest.raises(BoardReset) as info:
            session.wait_done(3, timeout_s=5.0)
        assert session.clock.now_s() - start_s <= 1.0
        assert info.value.unknown_cmd_ids == (1, 2, 3)
        session.resync()
        configure_snake(session)
        stream_snake(session, 2, first_cmd_id=10, timeout_s=5.0)
        executed = link_transport.executed_cmd_ids(session)
        if executed is not None:
            assert executed == [10, 11]


def test_estop_and_clear(link_transport: Transport) -> None:
    with Session(link_transport.url) as session:
        configure_snake(session)
        session.estop()
        assert session.status().mode == "ESTOP"
        session.clear()
        stream_snake(session, 3, timeout_s=STREAM_TIMEOUT_S)


# --- the command itself (pty only) ---------------------------------------------------------------------
def test_first_line_is_the_port_and_the_log_has_one_json_object_per_event() -> None:
    with EmulatorProcess("--no-world") as emulator:
        assert Path(emulator.port_path).resolve().as_posix().startswith("/dev/")
        with Session(emulator.port_path) as session:
            configure_snake(session)
            stream_snake(session, 5, timeout_s=5.0)
        time.sleep(0.1)
        lines = Path(emulator.log_path).read_text(encoding="utf-8").splitlines()
        events = [json.loads(line) for line in lines]
        assert [e["cmd_id"] for e in events if e["event"] == "executed"] == [1, 2, 3, 4, 5]
        assert all(isinstance(e["t_s"], float | int) for e in events)


def test_injected_faults_are_logged_and_survived() -> None:
    with EmulatorProcess("--no-world", "--flip", "1e-2", "--seed", "4") as emulator:
        with Session(emulator.port_path) as session:
            configure_snake(session)
            stream_snake(session, 30, timeout_s=10.0)
        time.sleep(0.1)
        assert any(event["event"] == "injected" for event in emulator.events())


def test_the_board_drives_a_bus_of_sts_servos_with_servo_sts() -> None:
    """``--servo sts`` without ``--pico``: the simulated board's servos are on a Feetech bus (what benchmarks/link.py
    --bus measures the link beside); STATUS then carries each servo's measured position."""
    with EmulatorProcess("--no-world", "--seed", "7", "--servo", "sts") as emulator, Session(emulator.port_path) as s:
        s.configure([900] * 5, [2100] * 5, [1500] * 5)
        deadline_s = time.monotonic() + 5.0
        while min(s.status().measured_us or (-1,)) < 0 and time.monotonic() < deadline_s:
            time.sleep(0.05)
        measured = s.status().measured_us
    assert len(measured) == 5 and all(abs(us - 1500) <= 2 for us in measured), measured


def test_an_esp32_port_model_on_a_uart_checks_every_grip_and_runs_every_move_once() -> None:
    # Issue 34: on an ESP32 the grip sensor never gave a verdict (defect 1), and no simulated board could show it.
    # The emulator behaving like an ESP32 on a 115200-baud UART (its loop woken at 10 ms FreeRTOS ticks and by its
    # grip timer, input seen at the next wake) runs a 2-disk plan with the grip sensor: a grip without a verdict
    # would stop the run in fault.
    with EmulatorProcess("--port-model", "esp32", "--baud", "115200", "--board", "AA", "--seed", "3") as emulator:
        robot = Robot(emulator.port_path, load_config())
        robot.open()
        try:
            run = Run(robot, make_plan(2))
            assert run.start() is Phase.DONE, run.report()
        finally:
            robot.close()
        time.sleep(0.2)
        # Each command at most once and in order. On a loaded machine the host may miss the board's 300 ms watchdog
        # (HOST_LOST: the arm held, the refused segments sent again under new ids), so the ids may have gaps.
        executed = emulator.executed_cmd_ids()
        assert executed == sorted(set(executed)) and len(executed) > 20, executed
        if executed != list(range(1, len(executed) + 1)):
            assert any("HOST_LOST recovered" in fault for fault in run.report().faults), run.report()
        world = [e for e in emulator.events() if e.get("source") == "world" and e["event"] in ("pick", "place")]
        assert [(e["event"], e["disk"], e["peg"]) for e in world] == [
            ("pick", 1, "A"),
            ("place", 1, "B"),
            ("pick", 2, "A"),
            ("place", 2, "C"),
            ("pick", 1, "B"),
            ("place", 1, "C"),
        ], world


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signals_stop_it_cleanly(signum: int) -> None:
    emulator = EmulatorProcess("--no-world")
    emulator.start()
    process = emulator._process
    assert process is not None
    os.kill(process.pid, signum)
    assert process.wait(timeout=5) == 0
    assert not os.path.lexists(emulator.link_path)
    emulator.close()


@pytest.mark.parametrize(
    ("args", "word"),
    [
        (["--flip", "2"], "flip='2'"),
        (["--speed", "-1"], "speed='-1'"),
        (["--log", "/nonexistent/dir/x"], "--log"),
        (["--link", "/nonexistent/dir/port"], "--link"),
        (["--port-model", "esp8266"], "port='esp8266' is unknown"),
        (["--port-model", "rp2", "--pico"], "--port-model rp2 cannot go with --pico"),
    ],
)
def test_bad_options_exit_2_with_one_line(args: list[str], word: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "hanoibot", "emulate", *args], capture_output=True, text=True, timeout=20
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    assert word in result.stderr


def test_link_never_replaces_an_existing_file(tmp_path: Path) -> None:
    precious = tmp_path / "notes.txt"
    precious.write_text("keep me")
    result = subprocess.run(
        [sys.executable, "-m", "hanoibot", "emulate", "--no-world", "--link", str(precious)],
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1
    assert str(precious) in result.stderr
    assert precious.read_text() == "keep me"


def test_link_left_alone_when_someone_else_repointed_it(tmp_path: Path) -> None:
    emulator = EmulatorProcess("--no-world")
    emulator.start()
    link = Path(emulator.link_path)
    other = tmp_path / "other-port"
    other.write_text("")
    link.unlink()
    link.symlink_to(other)
    process = emulator._process
    assert process is not None
    os.kill(process.pid, signal.SIGTERM)
    assert process.wait(timeout=5) == 0
    assert link.is_symlink() and link.resolve() == other.resolve()
    emulator.close()


def test_one_board_takes_one_command_after_another() -> None:
    # Every `hanoibot` command is a new host session on the same boot of the board, which executes a command id at
    # most once: a second `home`, or `home --clear` after `estop`, must number its commands above the first's.
    with EmulatorProcess() as emulator:
        for argv in (["home"], ["home"], ["estop"], ["home", "--clear"]):
            result = subprocess.run(
                [sys.executable, "-m", "hanoibot", *argv, "--port", emulator.port_path],
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            assert result.returncode == 0, f"hanoibot {' '.join(argv)}: {result.stderr.strip()}"


def test_baud_option_paces_the_pty_like_a_uart() -> None:
    from hanoifw import protocol

    baud = 9600
    frame_bytes = len(protocol.encode(protocol.PING, 0, 0, ["1"])) + len(protocol.encode(protocol.PONG, 0, 0, ["1"]))
    with (
        EmulatorProcess("--no-world", "--seed", "3", "--baud", str(baud)) as emulator,
        Session(emulator.port_path) as session,
    ):
        rtt_s = min(session.ping() for _ in range(3))
    # A PING and its PONG each cross the line byte by byte: 10 bits a byte at 9600 baud.
    assert rtt_s >= frame_bytes * 10 / baud
