"""Grip-current averaging and rail-sense debouncing (also run under MicroPython)."""

from fwfakes import CountingGrip, FakeGrip, FakeRail, FakeServos, Host, Rng, heap_bytes_during
from hanoifw import protocol as p
from hanoifw.controller import Controller
from hanoifw.sensing import GRIP_FRAME_MS, GRIP_MAX_GAP_MS, GRIP_SAMPLE_MS, GripMeter, RailWatch

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


# A servo stalled on a disk, as traced on the virtual Pico (issue 33): a 16 ms burst and 4 ms quiet in each frame;
# a burst reads like the "held 59775" STATUS of the trace, against the default threshold (hardware/README.md).
STALL_U16 = 59775
STALL_BURST_MS = 16
THRESHOLD_U16 = 32768


class StalledGrip:
    """A grip ADC on a servo stalled on a disk: ``STALL_U16`` for the first ``STALL_BURST_MS`` of each frame
    (frames start at ``phase_ms``), ``QUIET_U16`` for the rest; ``now`` is a one-element list holding the time in ms."""

    def __init__(self, now, phase_ms=0):
        self.now = now
        self.phase_ms = phase_ms

    def read_u16(self):
        return STALL_U16 if (self.now[0] - self.phase_ms) % GRIP_FRAME_MS < STALL_BURST_MS else QUIET_U16


def stalled_true_mean_u16():
    """Oracle: the mean over one frame of the stalled waveform."""
    return (STALL_U16 * STALL_BURST_MS + QUIET_U16 * (GRIP_FRAME_MS - STALL_BURST_MS)) // GRIP_FRAME_MS


def replay(meter, now, times_ms):
    """Sample ``meter`` at each of ``times_ms`` (``now`` is its sensor's clock) and return the mean after each."""
    means = []
    for t_ms in times_ms:
        now[0] = t_ms
        meter.sample(t_ms, True)
        means.append(meter.mean_u16)
    return means


def test_a_quiet_reading_followed_by_a_long_gap_never_makes_a_stalled_gripper_read_empty():
    # The traced schedule (issue 33): readings every 2 ms, then one taken in the quiet part of the frame and the
    # next 11 ms later (the loop handled frames meanwhile): weighted "until the next one", that one reading stood
    # for 11 ms of the 20 and the mean fell under the threshold ("held 59775", then "empty 25878"). Every phase of
    # the frame, every quiet millisecond for the late reading: the verdict may be "unknown", never "empty".
    assert stalled_true_mean_u16() >= THRESHOLD_U16
    for phase_ms in range(GRIP_FRAME_MS):
        for quiet_ms in range(STALL_BURST_MS, GRIP_FRAME_MS):
            now = [0]
            meter = GripMeter(StalledGrip(now, phase_ms))
            late_ms = 100 + (phase_ms + quiet_ms - 100) % GRIP_FRAME_MS  # the first quiet_ms of the frame after 98
            times_ms = list(range(0, 100, 2))
            times_ms.extend((late_ms, late_ms + 11, late_ms + 13, late_ms + 15))
            means = replay(meter, now, times_ms)
            assert (late_ms - phase_ms) % GRIP_FRAME_MS == quiet_ms, "the late reading falls in the quiet part"
            said = [mean for mean in means if mean >= 0]
            assert said and min(said) >= THRESHOLD_U16, (phase_ms, quiet_ms, means)
            assert means[len(times_ms) - 3] == -1, "a frame with an 11 ms gap in it has no verdict"


def test_no_schedule_of_readings_makes_a_stalled_gripper_read_empty():
    # Whatever the gaps (1 to 11 ms, two readings in one ms too), a frame with a verdict has no gap over
    # GRIP_MAX_GAP_MS, so no single reading stands for more than that share of it: the quiet 4 ms can count for at
    # most 4 + GRIP_MAX_GAP_MS ms of the 20.
    rng = Rng(33)
    said = 0
    for trial in range(60):
        now = [0]
        meter = GripMeter(StalledGrip(now, rng.below(GRIP_FRAME_MS)))
        t_ms = 0
        times_ms = []
        for _ in range(80):
            t_ms += rng.below(12) if trial % 2 else rng.below(GRIP_MAX_GAP_MS + 1)
            times_ms.append(t_ms)
        for mean in replay(meter, now, times_ms):
            assert mean == -1 or mean >= THRESHOLD_U16, (trial, mean)
            said += mean >= 0
    assert said > 0, "some frames were covered"


def test_readings_at_a_fixed_rate_give_the_mean_of_the_frame():
    for phase_ms in range(GRIP_FRAME_MS):
        now = [0]
        meter = GripMeter(StalledGrip(now, phase_ms))
        means = replay(meter, now, range(0, 100, GRIP_SAMPLE_MS))
        # a frame of readings every 2 ms: the quiet 4 ms counted within one sample period either way
        tolerance = (STALL_U16 - QUIET_U16) * GRIP_SAMPLE_MS // GRIP_FRAME_MS
        assert abs(means[-1] - stalled_true_mean_u16()) <= tolerance, (phase_ms, means[-1])
        assert means[: GRIP_FRAME_MS // GRIP_SAMPLE_MS] == [-1] * (GRIP_FRAME_MS // GRIP_SAMPLE_MS), "not a frame yet"


def test_a_frame_not_covered_by_the_readings_has_no_verdict():
    meter = GripMeter(FakeGrip(40000))
    for t_ms in range(0, 40, GRIP_SAMPLE_MS):
        meter.sample(t_ms, True)
    assert meter.mean_u16 == 40000
    meter.sample(40 + GRIP_MAX_GAP_MS + 1, True)  # one gap just over the bound
    assert meter.mean_u16 == -1
    t_ms = 40 + GRIP_MAX_GAP_MS + 1
    while t_ms < 40 + GRIP_MAX_GAP_MS + 1 + GRIP_FRAME_MS:
        t_ms += GRIP_MAX_GAP_MS  # gaps at the bound cover a frame
        meter.sample(t_ms, True)
    assert meter.mean_u16 == 40000, "the gap has left the latest frame"


def test_readings_older_than_the_ring_give_no_verdict():
    # Many readings in a moment (a loop sampling between input chunks) push the frame's start out of the ring.
    meter = GripMeter(FakeGrip(40000), ring=8)
    for t_ms in range(0, 8):
        meter.sample(t_ms, True)
    assert meter.mean_u16 == -1, "8 readings span 7 ms: not a frame"


def test_a_mean_taken_while_the_readings_start_over_is_no_verdict():
    # A hard interrupt may run between any two lines of the mean: a gripper switched off and on in between
    # leaves readings of two drives in the ring; the mean of such a snapshot is -1, not a mix.
    meter = GripMeter(FakeGrip(40000))
    for t_ms in range(0, 40, 2):
        meter.sample(t_ms, True)
    values = meter._values

    class Interrupted:
        """The ring's values, with the interrupt coming at the mean's first look into them."""

        def __getitem__(self, index):
            if not interrupted:
                interrupted.append(True)
                meter.sample(40, False)
                meter.sample(42, True)
            return values[index]

        def __setitem__(self, index, value):
            values[index] = value

    interrupted = []
    meter._values = Interrupted()
    assert meter.mean_u16 == -1 and interrupted
    meter._values = values
    for t_ms in range(44, 70, 2):
        meter.sample(t_ms, True)
    assert meter.mean_u16 == 40000, "the readings of the new drive give a verdict once they cover a frame"


def test_a_timed_sample_allocates_nothing():
    # The timer's callback runs as a hard interrupt on rp2 (heap locked, also during a garbage collection): a
    # sample must not allocate. MicroPython measures the heap (and locks it where it can); CPython cannot.
    now = [0]
    ctl = Host(grip_sensor=StalledGrip(now)).ctl
    ctl.feed(p.encode(p.SYNC, 0, 0, ("t",)))
    ctl.step(0)
    ctl.feed(p.encode(p.CONFIG, 1, 0, [1000, 2000, 1500, 60000] * 5 + [THRESHOLD_U16]))
    ctl.step(10)

    def ticks_ms():
        return now[0]

    callback = ctl.grip_timer_callback(ticks_ms)
    ctl.grip_timed = True

    def fire_many():
        for _ in range(100):
            now[0] += GRIP_SAMPLE_MS
            callback(None)

    fire_many()  # the first frame; then measured
    used = heap_bytes_during(fire_many)
    assert used is None or used == 0, f"{used} bytes in 100 timed samples"
    try:
        import micropython

        heap_lock = micropython.heap_lock
        heap_unlock = micropython.heap_unlock
    except (ImportError, AttributeError):
        heap_lock = heap_unlock = None
    if heap_lock is not None:
        heap_lock()
        try:
            fire_many()  # an allocation would raise MemoryError here
        finally:
            heap_unlock()
    assert ctl.grip.mean_u16 >= THRESHOLD_U16


def test_the_controller_leaves_the_sampling_to_a_timer_once_one_runs():
    now = [0]
    grip = CountingGrip(40000)
    host = Host(grip_sensor=grip)
    host.start(grip_threshold=THRESHOLD_U16)
    assert grip.reads > 0, "without a timer the step samples"
    callback = host.ctl.grip_timer_callback(lambda: now[0])
    host.ctl.grip_timed = True
    reads = grip.reads
    host.ctl.sample_sensors(40)
    host.run(100)
    assert grip.reads == reads, "neither the loop nor the step samples while a timer does"
    for _ in range(GRIP_FRAME_MS // GRIP_SAMPLE_MS + 1):
        now[0] += GRIP_SAMPLE_MS
        callback(None)
    assert grip.reads == reads + GRIP_FRAME_MS // GRIP_SAMPLE_MS + 1
    assert host.status()["grip"] == "held"


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


def test_a_board_error_reaches_the_host_whole_naming_the_pin_address_and_what_to_check():
    # Issue 34, defect 3: main.py's hardware errors name the setting, the pins or address and what to check, more
    # than 60 characters; the host hears all of it (up to MAX_BOARD_ERROR_LEN), in HELLO's ERROR and in every
    # refusal, whose frame stays within MAX_FRAME_LEN even for the largest command id.
    text = (
        "board_config.py PCA9685_ADDRESS: no PCA9685 answers at 0x40 on I2C bus 0 (SCL GPIO 5 SDA GPIO 4) "
        "(OSError: [Errno 19] ENODEV): check its VCC and GND; SDA and SCL; its A0-A5 jumpers"
    )
    ctl = Controller(FakeServos(), boot_id="b0071d00", board_error=text + " and more" * 20)
    host = Host(ctl=ctl)
    refusals = [f for f in host.start() if f[0] == p.ERROR]
    assert refusals and ",".join(refusals[0][3][2:]).startswith(text)
    assert len(",".join(refusals[0][3][2:])) == p.MAX_BOARD_ERROR_LEN
    longest = p.encode(p.ERROR, p.SEQ_MOD - 1, p.SEQ_MOD - 1, (p.E_BOARD_CONFIG, p.MAX_CMD_ID, ctl.board_error))
    assert len(longest) <= p.MAX_FRAME_LEN
