"""Grip-current averaging and rail-sense debouncing (also run under MicroPython)."""

from fwfakes import FakeGrip, FakeRail, FakeServos, Host
from hanoifw import protocol as p
from hanoifw.controller import Controller
from hanoifw.sensing import GRIP_FRAME_MS, GripMeter, RailWatch

BURST_U16 = 52000  # the ADC reading during the current burst of a servo stalled on a disk
QUIET_U16 = 300  # between bursts (the RC filter has let the burst go)
BURST_MS = 8  # of every 20 ms PWM frame


class BurstGrip:
    """A grip ADC whose reading comes in 50 Hz bursts: ``BURST_U16`` for the first ``BURST_MS`` of each 20 ms frame
    (frames start at ``phase_ms``), ``QUIET_U16`` in between; ``now`` is a one-element list holding the time in ms."""

    def __init__(self, now, phase_ms):
        self.now = now
        self.phase_ms = phase_ms

    def read_u16(self):
        return BURST_U16 if (self.now[0] - self.phase_ms) % GRIP_FRAME_MS < BURST_MS else QUIET_U16


def true_mean_u16():
    """Oracle: the mean over one frame of the burst waveform."""
    return (BURST_U16 * BURST_MS + QUIET_U16 * (GRIP_FRAME_MS - BURST_MS)) // GRIP_FRAME_MS


def test_the_mean_of_a_bursting_current_is_the_same_whatever_the_sampling_phase():
    expected = true_mean_u16()
    for phase_ms in range(GRIP_FRAME_MS):
        now = [0]
        meter = GripMeter(BurstGrip(now, phase_ms))
        for t_ms in range(0, 200, 2):
            now[0] = t_ms
            meter.sample(t_ms, True)
        assert abs(meter.mean_u16 - expected) <= (BURST_U16 - QUIET_U16) // 10, (phase_ms, meter.mean_u16, expected)


def test_one_sample_per_control_step_is_not_enough_for_a_mean():
    meter = GripMeter(FakeGrip(40000))
    for t_ms in range(0, 200, 10):
        meter.sample(t_ms, True)
    assert meter.mean_u16 == -1  # two samples a frame: no verdict (they may both miss the burst)
    for t_ms in range(200, 222, 2):
        meter.sample(t_ms, True)
    assert meter.mean_u16 == 40000


def test_the_mean_follows_the_latest_frame_only():
    meter = GripMeter(FakeGrip(1000))
    for t_ms in range(0, 100, 2):
        meter.sample(t_ms, True)
    meter.sensor.value = 41000
    for t_ms in range(100, 110, 2):
        meter.sample(t_ms, True)
    assert 1000 < meter.mean_u16 < 41000  # half a frame of each
    for t_ms in range(110, 122, 2):
        meter.sample(t_ms, True)
    assert meter.mean_u16 == 41000  # one frame after the change: nothing older counts


def test_an_undriven_gripper_has_no_mean_and_starts_over_when_driven_again():
    meter = GripMeter(FakeGrip(40000))
    for t_ms in range(0, 40, 2):
        meter.sample(t_ms, True)
    assert meter.mean_u16 == 40000
    meter.sample(40, False)
    assert (meter.mean_u16, meter.last_u16) == (-1, -1)
    meter.sensor.value = 900
    for t_ms in range(42, 70, 2):
        meter.sample(t_ms, True)
    assert meter.mean_u16 == 900  # nothing of the old window is left


def test_a_failing_read_gives_no_mean_until_reads_work_again():
    meter = GripMeter(FakeGrip(40000))
    for t_ms in range(0, 40, 2):
        meter.sample(t_ms, True)
    meter.sensor.value = None
    meter.sample(40, True)
    assert meter.mean_u16 == -1
    meter.sensor.value = 1000
    for t_ms in range(42, 70, 2):
        meter.sample(t_ms, True)
    assert meter.mean_u16 == 1000
    assert GripMeter(None).mean_u16 == -1


def test_the_controller_verdict_on_a_bursting_current_does_not_depend_on_the_step_phase():
    verdicts = []
    for phase_ms in range(0, GRIP_FRAME_MS, 3):
        now = [0]
        host = Host(grip_sensor=BurstGrip(now, phase_ms))
        host.start(grip_threshold=(true_mean_u16() + QUIET_U16) // 2)  # what calibration would pick
        for _ in range(20):  # the board's loop: a step every 10 ms, grip samples every 2 ms between
            for _ in range(5):
                now[0] += 2
                host.ctl.sample_sensors(now[0])
            host.now_ms = now[0] - 10
            host.step()
        status = host.status()
        verdicts.append((status["grip"], status["grip_raw"] > 0))
    assert verdicts == [("held", True)] * len(verdicts), verdicts


def test_rail_watch_needs_three_low_samples_in_a_row():
    rail = FakeRail(True)
    watch = RailWatch(rail)
    for level in (0, 0, 1, 0, 0, 1):
        rail.powered = bool(level)
        watch.sample()
        assert not watch.is_lost
    rail.powered = False
    for _ in range(3):
        watch.sample()
    assert watch.is_lost and watch.level == 0
    rail.powered = True
    watch.sample()
    assert not watch.is_lost and watch.level == 1


def test_a_board_with_no_pin_table_answers_hello_with_an_error_mode_and_refuses_motion():
    ctl = Controller(FakeServos(), boot_id="b0071d00", board_error="board_config.py PWM_PINS has no entry for chip X")
    host = Host(ctl=ctl)
    got = host.start()
    hello = [f for f in got if f[0] == p.HELLO]
    assert hello and p.unpack(p.HELLO, hello[0][3])["mode"] == "BOARD_ERROR"
    refusals = [f for f in got if f[0] == p.ERROR]
    assert refusals and refusals[0][3][0] == p.E_BOARD_CONFIG and "PWM_PINS" in ",".join(refusals[0][3])
    assert [f[3][0] for f in host.step() if f[0] == p.ERROR] == []
    assert host.ctl.is_configured is False and host.servos.history == []
    host.move(1, 100, 1500)
    assert [f[3][0] for f in host.step() if f[0] == p.ERROR] == [p.E_BOARD_CONFIG]
