"""The simulated Feetech bus (hanoibot.sim.bus) and a simulated board on it (``sim://?servo=sts``).

Oracles: the worked examples of Feetech's "Communication Protocol User Manual" (SCS/STS/SMS series, section 1.3:
each instruction with its command and the servo's answer, byte for byte), written out here as bytes, not made by
hanoifw.feetech; the register addresses are lerobot's STS/SMS control table (``src/lerobot/motors/feetech/
tables.py``: Torque_Enable 40, Goal_Position 42, Present_Position 56, Present_Load 60); the simulated world's own
log of picks and places, which is what the arm really did.
"""

from __future__ import annotations

import binascii
from typing import Any

import pytest
from fwfakes import config_fields
from hanoibot.clock import VirtualClock
from hanoibot.config import load_config
from hanoibot.errors import ConfigError
from hanoibot.link.session import Session
from hanoibot.link.status import Grip, Status
from hanoibot.motion.servo_model import ServoTraits
from hanoibot.planner import make_plan
from hanoibot.run.robot import Robot
from hanoibot.run.runner import Run
from hanoibot.run.sequencer import Phase
from hanoibot.sim.board import TICK_S
from hanoibot.sim.bus import BITS_PER_BYTE, SimServoBus, steps_to_us
from hanoibot.sim.factory import make_wire
from hanoibot.sim.world import GRIP_COMPLIANCE_MM, make_world
from hanoibot.sim_url import SimSpec
from hanoifw import protocol
from hanoifw.busservos import READ_TRIES, BusServos
from hanoifw.rxframe import FrameReader
from world_events import moves_made

BYTE_S = BITS_PER_BYTE / 1_000_000  # one byte at the factory's 1 Mbaud
FACTORY_DELAY_S = 500e-6  # Return_Delay_Time 250, in 2 µs units


def hexbytes(text: str) -> bytes:
    return binascii.unhexlify(text.replace(" ", ""))


def sealed(body: str) -> bytes:
    """A frame of ours (not a manual example): ``body`` (id .. last parameter) between the header and the checksum
    ~(id + len + instruction + parameters) & 0xFF (manual 1.2)."""
    data = hexbytes(body)
    return b"\xff\xff" + data + bytes([~sum(data) & 0xFF])


def make_bus(ids: tuple[int, ...] = (1,), **kwargs: Any) -> tuple[SimServoBus, VirtualClock]:
    clock = VirtualClock()
    return SimServoBus(ids, now_s=clock.now_s, **kwargs), clock


def line_after(bus: SimServoBus, sent: bytes, t_s: float) -> bytes:
    """Everything that came back by ``t_s`` after ``sent`` was written at time 0."""
    bus.write(sent, 0.0)
    return bus.read(256, t_s)


# --- the servos on the line, byte for byte ----------------------------------------------------------------------
def test_a_ping_is_echoed_then_answered_as_the_manuals_example_after_the_return_delay() -> None:
    ping = hexbytes("FF FF 01 02 01 FB")  # manual 1.3.1: query ID 1
    answer = hexbytes("FF FF 01 02 00 FC")  # its answer: no error
    bus, _clock = make_bus()
    sent_s = len(ping) * BYTE_S
    assert line_after(bus, ping, sent_s) == ping, "the echo of the frame, as it goes out, and nothing yet"
    assert bus.read(256, sent_s + FACTORY_DELAY_S) == b"", "the servo waits its Return Delay Time"
    assert bus.read(256, sent_s + FACTORY_DELAY_S + len(answer) * BYTE_S) == answer


def test_a_read_of_the_position_is_the_manuals_example() -> None:
    bus, _clock = make_bus(echo=False)
    bus.servos[0].horn_us = steps_to_us(0x0518)  # the manual's servo stands at step 1304
    got = line_after(bus, hexbytes("FF FF 01 04 02 38 02 BE"), 1e-2)  # manual 1.3.2: 2 bytes at 0x38 of ID 1
    assert got == hexbytes("FF FF 01 04 00 18 05 DD")


def test_a_write_moves_the_servo_and_is_answered_as_the_manuals_example() -> None:
    bus, clock = make_bus(echo=False, traits=[ServoTraits(None, 0.0)])
    bus.write(sealed("01 04 03 28 01"), 0.0)  # Torque_Enable (40) = 1 of ID 1
    # manual 1.3.3, example 2: ID 1 to position 2048 at speed 1000 (0x2A: position, time, speed)
    got = line_after(bus, hexbytes("FF FF 01 09 03 2A 00 08 00 00 E8 03 D5"), 1e-2)
    assert got == hexbytes("FF FF 01 02 00 FC" * 2), "each WRITE answered: no error"
    servo = bus.servos[0]
    assert (servo.torque, servo.goal_steps, servo.speed_steps_s) == (True, 2048, 1000)
    clock.advance(1.0)
    assert bus.positions_us() == [pytest.approx(1500.0)], "step 2048 is the middle of the turn: 1500 µs"


def test_the_manuals_sync_write_moves_four_servos_and_nobody_answers() -> None:
    bus, clock = make_bus((1, 2, 3, 4), echo=False, traits=[ServoTraits(None, 0.0)] * 4, start_us=[900.0] * 4)
    bus.write(sealed("FE 0C 83 28 01 01 01 02 01 03 01 04 01"), 0.0)  # Torque_Enable (40) = 1 of IDs 1-4
    # manual 1.3.6: IDs 1-4 to position 2048, time 0, speed 1000, in one frame to the broadcast id
    sync = "FF FF FE 20 83 2A 06 01 00 08 00 00 E8 03 02 00 08 00 00 E8 03 03 00 08 00 00 E8 03 04 00 08 00 00 E8 03 58"
    got = line_after(bus, hexbytes(sync), 1e-2)
    assert got == b"", "a broadcast is answered by nobody"
    assert [s.goal_steps for s in bus.servos] == [2048] * 4
    clock.advance(0.5)
    assert bus.positions_us() == [pytest.approx(1500.0)] * 4


def test_a_silent_servo_hears_but_never_answers_and_a_corrupted_answer_fails_its_checksum() -> None:
    bus, _clock = make_bus((1, 2), echo=False)
    bus.servos[1].silent = True
    read_2 = sealed("02 04 02 38 02")
    assert line_after(bus, read_2, 1.0) == b""
    noisy, _clock = make_bus((1,), echo=False, corrupt=0.5, seed=3)
    answers = [line_after(noisy, hexbytes("FF FF 01 02 01 FB"), 1.0 + k) for k in range(40)]
    good = hexbytes("FF FF 01 02 00 FC")
    bad = [a for a in answers if a != good]
    assert len(bad) == noisy.corrupted and 5 < len(bad) < 35
    for answer in bad:  # one flipped bit after the header: the checksum no longer adds up
        assert sum(a != b for a, b in zip(answer, good, strict=True)) == 1 and answer[:2] == b"\xff\xff"


def test_a_blocked_horn_stops_at_the_obstacle_and_loads_its_servo_toward_the_goal() -> None:
    stops: dict[int, tuple[float | None, float | None]] = {0: (None, 1400.0)}
    bus, clock = make_bus(echo=False, traits=[ServoTraits(500.0)], start_us=[1000.0], stop_us=lambda ch: stops[ch])
    servo = bus.servos[0]
    servo.set_torque(True)
    servo.goal_steps = 2048  # 1500 µs: 100 µs past the obstacle
    clock.advance(2.0)
    assert bus.positions_us() == [1400.0] and servo.load == 1000, "against the obstacle: stalled, pushing up"
    regs = servo.registers()
    assert regs[56] | regs[57] << 8 == round((1400 - 500) * 4096 / 2000)  # Present_Position, low byte first
    assert regs[60] | regs[61] << 8 == 1000  # Present_Load: full effort, positive (bit 10 clear)
    stops[0] = (None, None)  # the obstacle is taken away
    clock.advance(2.0)
    assert bus.positions_us() == [pytest.approx(1500.0)] and servo.load == 0


def test_a_limp_servo_stays_where_a_hand_puts_it_and_still_says_where_it_is() -> None:
    bus, _clock = make_bus(echo=False)
    bus.servos[0].move_by_hand(1750.0)
    assert bus.positions_us() == [None], "limp: it holds nothing"
    answer = line_after(bus, hexbytes("FF FF 01 04 02 38 02 BE"), 1e-2)
    assert answer[5] | answer[6] << 8 == 2560  # 1750 µs is step 2560
    assert bus.servos[0].load == 0


def test_without_power_the_servos_go_limp_and_answer_nothing() -> None:
    powered = [True]
    bus, clock = make_bus(echo=False, powered=lambda: powered[0])
    bus.write(sealed("01 04 03 28 01"), 0.0)  # torque on
    assert bus.read(256, 1e-2) == hexbytes("FF FF 01 02 00 FC")
    powered[0] = False
    clock.advance(0.1)
    assert line_after(bus, hexbytes("FF FF 01 02 01 FB"), 1.0) == b""
    assert bus.pulses_us() == [None] and not bus.servos[0].torque


# --- the firmware's own driver on it ------------------------------------------------------------------------------
def test_the_firmwares_driver_reads_every_servo_in_turn_and_drops_the_echo() -> None:
    from hanoibot.sim.bus import SimUart

    bus, clock = make_bus((1, 2, 3), traits=[ServoTraits(None, 0.0)] * 3, start_us=[1000.0, 1500.0, 2000.0])
    driver = BusServos(SimUart(bus, clock.now_s), (1, 2, 3))
    for step in range(7):
        driver.poll(10 * step)
        clock.advance(TICK_S)
    assert [driver.measured_us(ch) for ch in range(3)] == [1000, 1500, 2000]
    assert (driver.answers, driver.unanswered, driver.stray, driver.echo_missing) == (6, 0, 0, 0)


class TurnAroundPin:
    """The direction pin of a bus buffer: records its levels (the simulated line models its turn-around time)."""

    def __init__(self) -> None:
        self.levels: list[int] = []

    def value(self, level: int | None = None) -> int:
        if level is not None:
            self.levels.append(level)
        return self.levels[-1] if self.levels else 0


def test_return_delay_0_behind_a_direction_pin_loses_every_answer_until_the_boot_writes_it_back() -> None:
    """The bus as lerobot leaves it (Return_Delay_Time, register 7, at 0: 2 µs) behind a buffer whose direction pin
    the board turns in 30 µs: the servos' answers start while the board still drives the line. The firmware's boot
    reads each return delay (none answers), writes 250 (500 µs) back, and from then on every servo answers."""
    from hanoibot.sim.bus import SimUart
    from hanoifw import feetech

    ids = (1, 2, 3)
    bus, clock = make_bus(ids, turnaround_us=30.0, start_us=[1000.0, 1500.0, 2000.0])
    for servo in bus.servos:
        servo.return_delay = 0
    blind = BusServos(SimUart(bus, clock.now_s), ids, direction=TurnAroundPin(), min_return_delay=0)
    uart = SimUart(bus, clock.now_s)
    for step in range(6):
        blind.poll(10 * step)
        clock.advance(TICK_S)
    assert blind.answers == 0 and bus.lost_bytes > 0, "without the check no answer is ever heard"
    driver = BusServos(uart, ids, direction=TurnAroundPin())
    driver.read_held_us(uart.sleep_ms)
    uart.end_boot()
    assert driver.delays_written == [True] * 3
    assert [servo.registers()[feetech.RETURN_DELAY_TIME] for servo in bus.servos] == [250] * 3
    for step in range(7):
        driver.poll(100 + 10 * step)
        clock.advance(TICK_S)
    assert [driver.measured_us(ch) for ch in range(3)] == [1000, 1500, 2000]


# --- a simulated board on bus servos --------------------------------------------------------------------------------
def run_three_disks(url: str) -> tuple[Phase, str, Any]:
    """``hanoibot run -n 3`` on ``url``, in-process: the phase it ends in, its reason, the simulated board."""
    robot = Robot(url, load_config())
    robot.open()
    with robot:
        job = Run(robot, make_plan(3))
        phase = job.start()
        return phase, job.sequencer.reason, robot.sim_board


@pytest.mark.parametrize(
    "options",
    ["servo=sts&seed=1", "servo=sts&seed=2&corrupt=0.02&flip=1e-3", "servo=sts&seed=3&port=rp2"],
    ids=["clean", "corrupt-answers-and-line-noise", "rp2-loop"],
)
def test_run_n_3_on_bus_servos_reaches_the_goal_with_every_move_once(options: str) -> None:
    phase, reason, board = run_three_disks(f"sim://?{options}")
    assert phase is Phase.DONE, reason
    assert board.world.state == make_plan(3).goal
    assert moves_made(board.world.events) == list(make_plan(3)), "every move once, in order"
    driver = board.bus_driver
    assert board.servo_bus is board.servos and driver is not None, "the servos are on the bus"
    assert driver.answers > 500 and driver.silent == -1 and driver.stray == 0
    assert driver.unanswered == board.servo_bus.corrupted, "only a corrupted answer is ever missed"


def test_status_carries_the_measured_pose_and_the_grip_verdict_from_the_gripper_load(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    statuses: list[Status] = []
    original = Session.status

    def status(session: Session) -> Status:
        statuses.append(original(session))
        return statuses[-1]

    monkeypatch.setattr(Session, "status", status)
    robot = Robot("sim://?servo=sts&seed=4", load_config())
    robot.open()
    with robot:
        assert Run(robot, make_plan(3)).start() is Phase.DONE
        board = robot.sim_board
        board.run_until(board.clock.now_s() + 0.5)  # the last DONE ends the profile: the horns trail it a little
        at_rest = robot.session.status()
    held = [s for s in statuses if s.grip is Grip.HELD]
    assert len(held) >= 7, "the host saw every pick held"
    assert all(s.grip_raw > robot.config.gripper.grip_threshold_u16 for s in held), "judged by the gripper's load"
    assert len(at_rest.measured_us) == 5
    for measured, pulse in zip(at_rest.measured_us, at_rest.pulses_us, strict=True):
        assert abs(measured - pulse) <= 1, f"at rest each servo stands where it was sent: {at_rest}"


def test_a_servo_that_stops_answering_mid_run_is_a_named_fault_within_its_timeout() -> None:
    robot = Robot("sim://?servo=sts&seed=5", load_config())
    robot.open()
    with robot:
        board = robot.sim_board
        silenced_s: list[float] = []
        world_log = board.world.on_event

        def on_world_event(event: dict[str, Any]) -> None:
            world_log(event)
            if event["event"] == "place" and not silenced_s:  # after the first move, the elbow stops answering
                board.servo_bus.servo(3).silent = True
                silenced_s.append(board.clock.now_s())

        board.world.on_event = on_world_event
        job = Run(robot, make_plan(3))
        assert job.start() is Phase.FAULT
        reason = job.sequencer.reason
    assert protocol.FAULT_SERVO_SILENT in reason and "servo 2 (bus id 3)" in reason, reason
    assert 1 <= len(moves_made(board.world.events)) < 7
    errors = [e for e in board.events if e["event"] == "error" and e["code"] == protocol.E_SERVO_SILENT]
    assert len(errors) == 1
    # its timeout: the servo's next turn to be read (every channel in turn), then READ_TRIES unanswered READs
    timeout_s = (board.channels + READ_TRIES + 1) * TICK_S
    assert 0 < errors[0]["t_s"] - silenced_s[0] <= timeout_s


def test_a_servo_silent_from_power_up_is_refused_before_anything_moves() -> None:
    phase, reason, board = run_three_disks("sim://?servo=sts&seed=6&silent=5")
    assert phase is Phase.FAULT and "servo 4 (bus id 5)" in reason, reason
    assert moves_made(board.world.events) == []


def test_a_blocked_joint_stops_at_the_obstacle_and_status_says_where_it_is() -> None:
    board = make_wire({"servo": "sts", "world": "0", "seed": "7"}).board
    reader = FrameReader()

    def exchange(kind: str, seq: int, fields: list[Any], run_s: float) -> list[Any]:
        board.feed(protocol.encode(kind, seq, 0, fields))
        end_s = board.clock.now_s() + run_s
        while board.clock.now_s() < end_s - 1e-9:  # heartbeats: a quiet host is a lost one
            board.run_until(min(end_s, board.clock.now_s() + 0.1))
            board.feed(protocol.encode(protocol.PING, 0, 0, []))
        board.run_until(board.clock.now_s() + 0.02)
        return list(reader.feed(board.take_output()))

    exchange(protocol.SYNC, 0, ["t0"], 0.05)
    exchange(protocol.CONFIG, 1, config_fields(5, (1000, 2000, 1500, 3000)), 1.5)
    board.servo_bus.stop_us = lambda channel: (None, 1600.0) if channel == 1 else (None, None)  # a box on the table
    exchange(protocol.MOVE, 2, [1, 500, 1500, 1800, 1500, 1500, 1500], 1.5)
    statuses = [f for f in exchange(protocol.STATUS, 0, [], 0.0) if f[0] == protocol.STATUS]
    status = protocol.unpack(protocol.STATUS, statuses[-1][3])
    assert status["measured"] == 5
    commanded, measured = status["pulses_us"][:5], status["pulses_us"][5:]
    assert commanded == [1500, 1800, 1500, 1500, 1500]
    assert measured == [1500, 1600, 1500, 1500, 1500], "the shoulder stands at the obstacle, not where it was sent"
    assert board.servo_bus.servos[1].load == 1000 and board.bus_driver.load[1] == 1000, "stalled, and read so"


def test_the_world_stops_a_blocked_joint_and_a_gripper_closing_on_a_disk() -> None:
    world = make_world(None, "AAA")
    world.block_joint(1, high_us=1600.0)
    assert world.servo_stop_us(1) == (None, 1600.0)
    world.unblock_joint(1)
    assert world.servo_stop_us(1) == (None, None)
    gripper = world.config.gripper
    assert world.servo_stop_us(4) == (None, None), "no disk between the fingers: they close all the way"
    world.disks.held_disk = 1
    low, high = world.servo_stop_us(4)
    stop_us = low if gripper.closed_us < gripper.open_us else high
    assert stop_us is not None
    width_mm = world.disks.geometry.disk_diameters_mm[0] - GRIP_COMPLIANCE_MM
    assert stop_us == pytest.approx(gripper.pulse_for_width_us(width_mm))
    assert min(gripper.open_us, gripper.closed_us) < stop_us < max(gripper.open_us, gripper.closed_us)


# --- the options --------------------------------------------------------------------------------------------
def test_the_servo_option_puts_the_board_on_a_bus_with_its_faults() -> None:
    board = make_wire({"servo": "sts", "silent": "2,4", "corrupt": "0.1", "delay_us": "800"}).board
    assert isinstance(board.servos, SimServoBus) and board.servo_bus is board.servos
    assert [s.servo_id for s in board.servo_bus.servos if s.silent] == [2, 4]
    assert (board.servo_bus.corrupt, board.servo_bus.delay_us) == (0.1, 800.0)
    assert not isinstance(make_wire({"servo": "pwm"}).board.servos, SimServoBus)
    spec = SimSpec.from_url("sim://?servo=sts&silent=2,4&corrupt=0.1")
    assert spec is not None and SimSpec.from_url(spec.to_url()) == spec


@pytest.mark.parametrize(
    ("options", "word"),
    [
        ({"servo": "dynamixel"}, "servo='dynamixel'"),
        ({"silent": "3"}, "silent is for bus servos"),
        ({"servo": "sts", "silent": "x"}, "silent='x'"),
        ({"servo": "sts", "silent": "300"}, "silent='300'"),
        ({"servo": "sts", "corrupt": "1"}, "corrupt='1'"),
        ({"servo": "sts", "delay_us": "-1"}, "delay_us='-1'"),
        ({"servo": "sts", "outputs": "pca9685"}, "outputs is for PWM servos"),
    ],
)
def test_bad_bus_options_name_the_value(options: dict[str, str], word: str) -> None:
    with pytest.raises(ConfigError, match=word):
        make_wire(options)
