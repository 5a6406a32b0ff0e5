"""HELLO/STATUS field tests (also run under MicroPython): every field lands where protocol.FIELD_NAMES says."""

from fwfakes import FakeGrip, FakeRail, FakeServos, sample_grip
from hanoifw import protocol as p
from hanoifw.controller import Controller
from hanoifw.reports import fault_text, grip_word, hello_fields, rail_word, status_fields


def test_hello_fields_follow_the_layout():
    ctl = Controller(FakeServos(), channels=3, boot_id="0badcafe", reset_cause="wdt", queue_depth=9, watchdog_ms=250)
    ctl.last_done_cmd = 4
    ctl.last_queued_cmd = 6
    hello = p.unpack(p.HELLO, [str(f) for f in hello_fields(ctl)])
    assert hello == {
        "proto": p.PROTOCOL_VERSION,
        "fw_version": ctl.fw_version,
        "boot_id": "0badcafe",
        "reset_cause": "wdt",
        "queue_depth": 9,
        "channels": 3,
        "min_pulse_us": 500,
        "max_pulse_us": 2500,
        "max_duration_ms": 60000,
        "watchdog_ms": 250,
        "max_frame_len": p.MAX_FRAME_LEN,
        "last_done_cmd": 4,
        "last_queued_cmd": 6,
        "mode": "UNCONFIGURED",
        "grip_sensor": 0,
        "rail_sense": 0,
    }
    with_sensors = Controller(FakeServos(), boot_id="0badcafe", grip_sensor=FakeGrip(5), rail_sense=FakeRail())
    hello = p.unpack(p.HELLO, [str(f) for f in hello_fields(with_sensors)])
    assert hello["grip_sensor"] == 1 and hello["rail_sense"] == 1


def test_status_fields_follow_the_layout():
    ctl = Controller(FakeServos(), channels=2, boot_id="0badcafe", grip_sensor=FakeGrip(31000), rail_sense=FakeRail())
    ctl.grip_threshold = 30000
    ctl.pulses_us[1] = 1234
    ctl.outputs.written_us[1] = 1234  # the gripper (the last channel) is driven: its current means something
    sample_grip(ctl, 0, 40)
    ctl.latch_fault("DROP")
    status = p.unpack(p.STATUS, [str(f) for f in status_fields(ctl)])
    assert status == {
        "boot_id": "0badcafe",
        "mode": "FAULT",
        "last_done_cmd": 0,
        "last_queued_cmd": 0,
        "free_slots": 8,
        "faults": "DROP",
        "grip": "held",
        "grip_raw": 31000,
        "rail": "on",
        "measured": 0,  # PWM outputs say nothing of where the servos are
        "pulses_us": [0, 1234],
    }


def test_fault_text_lists_faults_and_the_rejected_state():
    assert fault_text([], 0) == "-"
    assert fault_text(["ESTOP", "HOST_LOST"], 0) == "ESTOP|HOST_LOST"
    assert fault_text([], 7) == "REJECTED" and fault_text(["DROP"], -1) == "DROP|REJECTED"


def test_an_undriven_gripper_gives_no_grip_verdict_whatever_the_sensor_reads():
    ctl = Controller(FakeServos(), channels=2, boot_id="0badcafe", grip_sensor=FakeGrip(31000))
    ctl.grip_threshold = 30000
    sample_grip(ctl, 0, 40)  # the gripper output is off: no current flows, disk or not
    status = p.unpack(p.STATUS, [str(f) for f in status_fields(ctl)])
    assert (status["grip"], status["grip_raw"]) == ("unknown", -1)


def test_grip_word_compares_the_current_with_the_threshold():
    sensor = FakeGrip(0)
    assert grip_word(None, -1, 30000) == "none"
    assert grip_word(sensor, 29999, 30000) == "empty" and grip_word(sensor, 30000, 30000) == "held"
    assert grip_word(sensor, 50000, 0) == "unknown"  # no threshold calibrated yet
    assert grip_word(sensor, -1, 30000) == "unknown"  # the read failed


def test_rail_word_follows_the_sense_input():
    assert rail_word(None) == "none"
    assert rail_word(FakeRail(True)) == "on" and rail_word(FakeRail(False)) == "off"
