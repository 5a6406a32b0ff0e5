"""The bus servo driver and the controller on a Feetech bus (also run under MicroPython).

The fake bus (busfakes.py) parses what the driver writes with its own code and answers as the manual's status
packets; the line echoes every frame, as TX through a resistor onto the data line does. Oracles: the manual's
frame layout (SYNC WRITE at 0x2A of position, time and speed; READ; Torque Enable at 40), and the controller's
own rules for PWM outputs (RELEASE switches off, ESTOP holds), which a bus must follow.
"""

from busfakes import FakeBus, FakeDirectionPin, checksum, le16
from fwfakes import CONTROL_PERIOD_MS, Host, config_fields, errors, sample_grip
from hanoifw import protocol as p
from hanoifw.busservos import BusGripLoad, BusServos
from hanoifw.controller import BUS_POLL_MIN_MS, Controller

IDS = (1, 2, 3, 4, 5)


def make(echo=True, ids=IDS, **kwargs):
    bus = FakeBus(ids, echo=echo)
    servos = BusServos(bus, ids, echo=echo, **kwargs)
    return bus, servos


def bus_host(bus, servos, **kwargs):
    kwargs.setdefault("stagger_ms", 0)
    ctl = Controller(servos, channels=servos.channels, boot_id="b0071d00", **kwargs)
    return Host(ctl=ctl)


def sync_write(address, length, rows):
    """A SYNC WRITE frame built by the manual's layout (1.3.6), independently of hanoifw.feetech."""
    params = [address, length]
    for servo_id, data in rows:
        params.append(servo_id)
        params.extend(data)
    body = [0xFE, len(params) + 2, 0x83]
    body.extend(params)
    return closed(body)


def closed(body):
    """The frame of ``body`` (id .. last parameter): header before, checksum after."""
    frame = bytearray([0xFF, 0xFF])
    frame.extend(body)
    frame.append(checksum(body))
    return bytes(frame)


def read_frame(servo_id, address, length):
    return closed([servo_id, 4, 0x02, address, length])


def test_pulses_map_onto_one_turn_of_steps():
    _, servos = make()
    assert servos.steps_for(500) == 0 and servos.steps_for(1500) == 2048 and servos.steps_for(2500) == 4096
    assert servos.us_for(2048) == 1500 and servos.us_for(0) == 500
    for pulse_us in range(500, 2501, 37):
        assert servos.us_for(servos.steps_for(pulse_us)) == pulse_us
    _, scs = make(steps_per_turn=1024)
    assert scs.steps_for(1500) == 512 and scs.us_for(512) == 1500


def test_one_step_sends_one_sync_write_of_every_goal_then_one_read():
    bus, servos = make()
    for ch in range(5):
        servos.set_speed_us_s(ch, 2000)  # 2000 us/s is 4096 steps/s
        servos.stage_pulse_us(ch, 1000 + 100 * ch)
    servos.flush()
    servos.poll(0)
    goals = [(IDS[ch], le16(servos.steps_for(1000 + 100 * ch)) + le16(0) + le16(4096)) for ch in range(5)]
    enable = [(servo_id, [1]) for servo_id in IDS]
    assert bus.written == [sync_write(0x2A, 6, goals), sync_write(40, 1, enable), read_frame(1, 56, 15)]
    bus.written.clear()
    servos.stage_pulse_us(2, 1700)
    servos.poll(10)  # the next step: goals again (torque is on already), then the next servo's READ
    goals[2] = (3, le16(servos.steps_for(1700)) + le16(0) + le16(4096))
    assert bus.written == [sync_write(0x2A, 6, goals), read_frame(2, 56, 15)]
    assert [bus.servos[i].goal for i in IDS] == [servos.steps_for(p) for p in (1000, 1100, 1700, 1300, 1400)]


def test_the_echo_is_dropped_and_each_answer_read_in_turn():
    bus, servos = make()
    for ch in range(5):
        bus.servos[IDS[ch]].position = 1000 + 300 * ch
        bus.servos[IDS[ch]].load = -(100 + ch)
    for step in range(6):
        servos.poll(10 * step)
    assert [servos.measured_us(ch) for ch in range(5)] == [servos.us_for(1000 + 300 * ch) for ch in range(5)]
    assert servos.load == [-100, -101, -102, -103, -104]
    assert servos.echo_missing == 0 and servos.stray == 0 and servos.unanswered == 0 and servos.silent == -1


def test_an_echo_is_never_taken_for_an_answer():
    """With every servo silent only the echoes come back: a READ's own echo (FF FF id 04 02 38 0F ..) is a
    well-formed packet from that id, and must not read as its answer."""
    bus, servos = make()
    for servo in bus.servos.values():
        servo.silent = True
    for step in range(8):
        servos.poll(10 * step)
    assert [servos.measured_us(ch) for ch in range(5)] == [-1] * 5
    assert servos.answers == 0 and servos.silent == 0  # the first servo asked, three times running


def test_a_line_without_echo_reads_the_same():
    bus, servos = make(echo=False)
    bus.servos[3].position = 3000
    for step in range(4):
        servos.poll(10 * step)
    assert servos.measured_us(2) == servos.us_for(3000) and servos.echo_missing == 0


def test_an_echo_that_never_comes_back_is_counted():
    bus = FakeBus(IDS, echo=False)
    servos = BusServos(bus, IDS, echo=True)  # configured for a resistor, wired to a line that gives nothing back
    for step in range(3):
        servos.poll(10 * step)
    assert servos.echo_missing == 2 and servos.answers == 2  # the answers are read all the same


def test_a_corrupted_answer_is_not_taken_and_the_servo_is_asked_again():
    bus, servos = make()
    bus.servos[1].position = 1111
    bus.servos[1].corrupt_next = 1
    servos.poll(0)  # READ servo 1: its answer comes back corrupted
    servos.poll(10)  # the corrupted answer is dropped; servo 1 is asked again
    assert servos.measured_us(0) == -1 and servos.misses[0] == 1 and servos._reader.bad_checksum == 1
    servos.poll(20)
    assert servos.measured_us(0) == servos.us_for(1111) and servos.misses[0] == 0 and servos.silent == -1


def test_a_missing_servo_faults_within_its_timeout_naming_it():
    bus, servos = make()
    bus.servos[4].silent = True  # channel 3
    host = bus_host(bus, servos)
    host.start()
    first_read = None
    fault_at = None
    for _ in range(12):
        got = host.step()
        if first_read is None and read_frame(4, 56, 15) in bus.written:
            first_read = host.now_ms
        if p.FAULT_SERVO_SILENT in host.ctl.faults:
            fault_at = host.now_ms
            assert errors(got) == [p.E_SERVO_SILENT]
            text = next(frame[3][2] for frame in got if frame[0] == p.ERROR)
            assert "servo 3 (bus id 4)" in text
            break
    assert fault_at is not None and first_read is not None
    assert fault_at - first_read <= servos.tries * CONTROL_PERIOD_MS  # its timeout: `tries` control periods
    assert host.ctl.mode == "FAULT" and host.status()["faults"] == p.FAULT_SERVO_SILENT


def test_a_servo_that_answers_again_can_be_cleared_and_one_still_silent_cannot():
    bus, servos = make()
    bus.servos[2].silent = True
    host = bus_host(bus, servos)
    host.start()
    host.run(100)
    assert p.FAULT_SERVO_SILENT in host.ctl.faults
    host.send(p.CLEAR)
    host.run(100)
    assert p.FAULT_SERVO_SILENT in host.ctl.faults  # still silent: asked again, latched again
    bus.servos[2].silent = False
    host.run(60)
    host.send(p.CLEAR)
    host.run(60)
    assert host.ctl.faults == []


def test_status_reports_each_measured_position():
    bus, servos = make()
    host = bus_host(bus, servos)
    host.start(limits=(1000, 2000, 1500))
    bus.servos[5].stuck_at = servos.steps_for(1400)  # the gripper stopped short (on a disk)
    host.run(80)
    status = host.status()
    assert status["measured"] == 5
    pulses = status["pulses_us"][:5]
    measured = status["pulses_us"][5:]
    assert pulses == [1500] * 5 and measured == [1500, 1500, 1500, 1500, 1400]


def test_release_switches_torque_off_and_an_estop_holds_the_pose():
    bus, servos = make()
    host = bus_host(bus, servos)
    host.start(limits=(1000, 2000, 1500))
    host.run(30)
    assert [s.torque for s in bus.servos.values()] == [1] * 5
    host.move(1, 200, 1800)
    host.run(60)
    host.ctl.feed(p.encode(p.ESTOP, 0, 0))
    host.step()
    held = [s.goal for s in bus.servos.values()]
    host.run(200)
    assert [s.torque for s in bus.servos.values()] == [1] * 5  # an e-stop holds: a raised arm must not fall
    assert [s.goal for s in bus.servos.values()] == held
    host.send(p.RELEASE)
    host.step()
    assert [s.torque for s in bus.servos.values()] == [0] * 5
    offs = bus.frames_of(0x83)[-5:]
    assert offs == [sync_write(40, 1, [(servo_id, [0])]) for servo_id in IDS]


def test_each_servo_is_capped_at_its_channels_config_speed():
    bus, servos = make()
    host = bus_host(bus, servos)
    host.ctl.feed(p.encode(p.SYNC, 0, 0, ("t",)))
    host.step()
    host.send(p.CONFIG, config_fields(5, (1000, 2000, 1500, 3000)))
    host.run(20)
    assert [s.goal_speed for s in bus.servos.values()] == [6144] * 5  # 3000 us/s, 2000 us a turn of 4096 steps
    assert [s.goal_time for s in bus.servos.values()] == [0] * 5


def test_a_lost_servo_rail_switches_every_torque_off():
    from fwfakes import FakeRail

    bus, servos = make()
    rail = FakeRail(True)
    host = bus_host(bus, servos, rail_sense=rail)
    host.start(limits=(1000, 2000, 1500))
    host.run(30)
    rail.powered = False
    host.run(50)
    assert p.FAULT_POWER_LOST in host.ctl.faults
    assert [s.torque for s in bus.servos.values()] == [0] * 5


def test_every_servo_silent_while_its_rail_was_off_answers_a_clear_at_once_when_power_is_back():
    from fwfakes import FakeRail

    bus, servos = make()
    rail = FakeRail(True)
    host = bus_host(bus, servos, rail_sense=rail)
    host.start(limits=(1000, 2000, 1500))
    host.run(60)
    rail.powered = False  # the rail off: every servo limp and silent
    for servo in bus.servos.values():
        servo.silent = True
    host.run(400)
    assert {p.FAULT_POWER_LOST, p.FAULT_SERVO_SILENT} <= set(host.ctl.faults)
    rail.powered = True  # back on; the person runs resume --clear at once, before the board asked anyone again
    for servo in bus.servos.values():
        servo.silent = False
    host.send(p.CLEAR)
    host.run(200)
    assert host.ctl.faults == [], "each servo asked again after the CLEAR answers: nothing is silent"
    assert all(servos.is_fresh(ch) for ch in range(servos.channels))


def test_a_gripper_whose_latest_read_went_unanswered_gives_no_grip_reading():
    bus, servos = make()
    grip = BusGripLoad(servos)
    for ch in range(5):
        servos.stage_pulse_us(ch, 1500)
    gripper = bus.servos[5]
    gripper.stuck_at, gripper.load = servos.steps_for(1450), 900  # closed on a disk
    assert gripper_read(servos, grip, 10) == 900 * 65535 // 1000
    gripper.silent = True  # its power gone: the disk falls, the last answer still says it is held
    gripper_read(servos, grip, 6, 10)  # it is asked once in five polls, and its answer taken at the next
    assert servos.is_fresh(4) and servos.misses[4] == 1
    assert grip.read_u16() == -1


def test_there_is_no_grip_verdict_while_the_rail_reads_low():
    from fwfakes import FakeRail

    bus, servos = make()
    rail = FakeRail(True)
    host = bus_host(bus, servos, grip_sensor=BusGripLoad(servos), rail_sense=rail)
    host.start(limits=(1000, 2000, 1500), grip_threshold=20000)
    gripper = bus.servos[5]
    gripper.stuck_at, gripper.load = servos.steps_for(1400), 450
    host.run(100)
    sample_grip(host.ctl, host.now_ms, 40)
    assert host.status()["grip"] == "held"
    rail.powered = False  # one control step low, the servos' last answers still fresh: the disk is falling
    host.step()
    sample_grip(host.ctl, host.now_ms, 40)
    assert p.FAULT_POWER_LOST not in host.ctl.faults and servos.is_fresh(4)
    assert host.status()["grip"] == "unknown"


def test_the_gripper_load_is_the_grip_reading_when_it_stopped_short():
    bus, servos = make()
    grip = BusGripLoad(servos)
    assert grip.read_u16() == -1  # not driven: no verdict
    for ch in range(5):
        servos.stage_pulse_us(ch, 1500)
    gripper = bus.servos[5]
    gripper.load = -640  # closing, stalled on a disk: the load's sign is its direction
    gripper.stuck_at = servos.steps_for(1450)
    for step in range(6):
        servos.poll(10 * step)
    assert grip.read_u16() == 640 * 65535 // 1000  # on the grip sensor's scale: 65535 at stall
    gripper.stuck_at = None  # closed on nothing: it reached its goal
    gripper.load = 700  # a load without a gap (the fingers pressing on each other) is no disk
    for step in range(6, 12):
        servos.poll(10 * step)
    assert grip.read_u16() == 0


def gripper_read(servos, grip, polls, start=0):
    """Poll ``polls`` times (10 ms apart): every servo is read in turn, the gripper once per ``channels`` polls."""
    for step in range(start, start + polls):
        servos.poll(10 * step)
    return grip.read_u16()


def test_the_grip_reading_is_the_load_only_when_stopped_short_and_nothing_when_closed_to_the_goal():
    # (where the fingers stand, their load) -> the reading: the grip sensor's scale is 65535 at stall (load 1000)
    bus, servos = make()
    grip = BusGripLoad(servos)
    for ch in range(5):
        servos.stage_pulse_us(ch, 1500)
    gripper = bus.servos[5]
    cases = [
        (servos.steps_for(1450), 640, 640 * 65535 // 1000),  # stopped short, pushing: on a disk
        (servos.steps_for(1450), 30, 30 * 65535 // 1000),  # stopped short, hardly pushing: under any threshold
        (None, 700, 0),  # at its goal, loaded (fingers on each other): nothing between them
        (servos.steps_for(1500) - 7, 900, 0),  # within GRIP_GAP_STEPS of the goal: closed all the way
    ]
    start = 0
    for stuck_at, load, expected in cases:
        gripper.stuck_at, gripper.load = stuck_at, load
        assert gripper_read(servos, grip, 10, start) == expected, (stuck_at, load)
        start += 10


def test_a_gripper_still_moving_gives_no_grip_reading():
    bus, servos = make()
    grip = BusGripLoad(servos)
    for ch in range(5):
        servos.stage_pulse_us(ch, 1500)
    gripper = bus.servos[5]
    gripper.stuck_at, gripper.load = servos.steps_for(1450), 1000  # short of its goal and loaded: as a closing one
    gripper.speed = -(servos.grip_still_steps_s + 1)
    assert gripper_read(servos, grip, 10) == -1, "a closing gripper is short and loaded, disk or not"
    gripper.speed = servos.grip_still_steps_s  # come to rest (a slow creep at most)
    assert gripper_read(servos, grip, 10, 10) == 65535


def test_a_reading_asked_before_the_latest_goal_went_out_gives_no_grip_reading():
    bus, servos = make()
    grip = BusGripLoad(servos)
    for ch in range(5):
        servos.stage_pulse_us(ch, 1500)
    gripper = bus.servos[5]
    assert gripper_read(servos, grip, 10) == 0, "closed to its goal on nothing"
    servos.stage_pulse_us(4, 1800)  # a new goal, staged: what the gripper said was about the old one
    assert grip.read_u16() == -1
    polls = 0
    while grip.read_u16() < 0:
        servos.poll(100 + 10 * polls)
        polls += 1
        assert polls <= 2 * servos.channels, "a fresh answer comes within the read schedule"
    # the poll that sent the goal asked another servo or the gripper before it moved: the reading that counts is
    # one asked in a later poll (the gripper is read every ``channels`` polls)
    assert polls > 1 and servos.position_steps[4] == servos.steps_for(1800) == gripper.goal
    assert grip.read_u16() == 0


def test_an_answer_asked_in_the_poll_that_sent_the_goal_gives_no_grip_reading():
    bus, servos = make()
    grip = BusGripLoad(servos)
    for ch in range(5):
        servos.stage_pulse_us(ch, 1500)
    gripper = bus.servos[5]
    gripper_read(servos, grip, 4)  # channels 0..3 read: the gripper is next in turn
    gripper.stuck_at, gripper.load = servos.steps_for(1450), 900  # the servo has not reacted yet: it shows its
    servos.stage_pulse_us(4, 1600)  # old pose and the effort of the new error
    servos.poll(40)  # sends the goal and asks the gripper in the same poll
    servos.poll(50)  # takes its answer
    assert servos.age[4] == 0 and grip.read_u16() == -1
    assert gripper_read(servos, grip, 5, 6) == 900 * 65535 // 1000, "asked again later: a real stop on something"


def test_the_grip_verdict_comes_from_the_bus_gripper():
    bus, servos = make()
    host = bus_host(bus, servos, grip_sensor=BusGripLoad(servos))
    host.start(limits=(1000, 2000, 1500), grip_threshold=20000)
    gripper = bus.servos[5]
    gripper.stuck_at = servos.steps_for(1400)
    gripper.load = 450
    host.run(100)
    sample_grip(host.ctl, host.now_ms, 40)  # the grip timer samples every 2 ms between the steps
    status = host.status()
    assert (status["grip"], status["grip_raw"]) == ("held", 450 * 65535 // 1000)
    gripper.stuck_at = None
    host.run(100)
    sample_grip(host.ctl, host.now_ms, 40)
    status = host.status()
    assert (status["grip"], status["grip_raw"]) == ("empty", 0)


def test_a_direction_pin_turns_the_line_around_after_the_last_byte():
    bus = FakeBus(IDS)
    pin = FakeDirectionPin(bus)
    waited = []
    servos = BusServos(bus, IDS, direction=pin, char_us=10, sleep_us=waited.append)
    servos.stage_pulse_us(0, 1500)
    servos.poll(0)
    kinds = [event[0] for event in bus.events]
    assert kinds == ["dir", "write", "write", "write", "flush", "dir"]
    assert bus.events[0] == ("dir", 1) and bus.events[-1] == ("dir", 0) and waited == [10]


def test_the_longest_status_with_measured_positions_still_fits():
    ids = (1, 2, 3, 4, 5, 6, 7, 8, 9)
    bus, servos = make(ids=ids)
    for servo in bus.servos.values():
        servo.position = -0x7FFF  # the farthest a sign-magnitude position goes
    ctl = Controller(servos, channels=9, boot_id="b" * 12, reset_cause="r" * 12, fw_version="9" * 12, stagger_ms=0)
    host = Host(ctl=ctl)
    host.start()
    host.run(200)
    for name in ("COLLISION_OF_THE_ARM", "DROP", "MISSED_PICK", "HOST_LOST"):
        host.ctl.latch_fault(name)
    host.ctl.estop()
    status = host.status()
    assert status["measured"] == 9 and len(status["pulses_us"]) == 18
    assert host.reader.oversized == 0 and host.ctl.internal_errors == 0


def test_a_step_on_input_asks_the_bus_again_only_once_its_answer_had_time_to_come():
    """A board steps its controller every control period, a simulator also when a frame comes in: the bus is
    polled at most once per controller.BUS_POLL_MIN_MS, so no READ goes out before the last one's answer."""
    bus, servos = make()
    ctl = Controller(servos, channels=5, boot_id="b0071d00", stagger_ms=0)
    ctl.step(0)
    reads = len(bus.frames_of(0x02))
    ctl.step(0)
    ctl.step(BUS_POLL_MIN_MS - 1)
    assert len(bus.frames_of(0x02)) == reads == 1
    ctl.step(BUS_POLL_MIN_MS)
    assert len(bus.frames_of(0x02)) == 2


def boot_with_direction_pin(bus, **kwargs):
    """A driver with a direction pin on ``bus``, booted: (driver, what the servos held)."""
    pin = FakeDirectionPin(bus)
    servos = BusServos(bus, IDS, direction=pin, char_us=10, sleep_us=lambda us: None, **kwargs)
    return servos, servos.read_held_us(lambda ms: None)


def test_a_bus_set_up_by_lerobot_gets_its_return_delay_written_back_at_boot():
    """lerobot writes Return_Delay_Time 0 (2 us); behind a direction pin that takes longer to turn the line around
    every answer is lost. The boot writes 250 (500 us) back into register 7 and the servos answer again."""
    bus = FakeBus(IDS, turnaround=10)  # a turn-around of 20 us: answers sooner than that are lost
    for servo in bus.servos.values():
        servo.return_delay = 0
        servo.torque = 1
    servos, held = boot_with_direction_pin(bus)
    writes = bus.frames_of(0x03)
    assert sorted(frame[2] for frame in writes) == list(IDS), "one WRITE to each servo"
    assert all(frame[5:7] == bytes([7, 250]) for frame in writes), "register 7, value 250"
    assert [s.return_delay for s in bus.servos.values()] == [250] * 5
    assert servos.delays_written == [True] * 5 and servos.return_delays == [-1] * 5, "none could be read"
    assert all(pulse > 0 for pulse in held), "after it, every servo answered what it holds"


def test_a_return_delay_long_enough_is_read_and_left_alone():
    bus = FakeBus(IDS, turnaround=10)
    for servo_id, servo in bus.servos.items():
        servo.return_delay = 50 + servo_id
    servos, _held = boot_with_direction_pin(bus)
    assert bus.frames_of(0x03) == [] and servos.return_delays == [51, 52, 53, 54, 55]
    assert servos.delays_written == [False] * 5


def test_without_a_direction_pin_the_return_delay_is_not_touched():
    bus, servos = make()
    for servo in bus.servos.values():
        servo.return_delay = 0
    servos.read_held_us(lambda ms: None)
    assert bus.frames_of(0x03) == [] and servos.min_return_delay == 0
    assert [s.return_delay for s in bus.servos.values()] == [0] * 5
