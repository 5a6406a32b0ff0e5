"""The board's two sensor inputs as the controller reads them: the grip current averaged over the latest PWM frame,
and the rail sense debounced over several control steps.

Grip current. A hobby servo draws its current in bursts, one per 50 Hz PWM frame (20 ms), and the sensor's RC
filter (about 1 ms) keeps the bursts: one ADC sample lands in a burst or between two, depending on the phase of
the sample in the frame. A servo stalled on a disk draws a burst of about 16 ms and is quiet for the other 4 ms of
each frame. :class:`GripMeter` therefore gives the time-weighted mean of the readings of the latest frame
(``frame_ms``) and gives it only when the readings **cover** that frame: no two consecutive readings further apart
than ``max_gap_ms``. Each reading counts until the next one, so one reading never stands for more than
``max_gap_ms`` of the frame: with 4 ms of 20 at most, a reading taken in the quiet part cannot pull the mean of a
stalled servo under the threshold (a reading followed by an 11 ms gap once carried 55 % of the frame: issue 33).
A frame that is not covered has no verdict (mean -1, STATUS ``unknown``), and the host asks again.

The readings come at a fixed rate: ``main.py`` samples from a ``machine.Timer`` every ``GRIP_SAMPLE_MS`` (a hard
interrupt on rp2, a scheduled callback on esp32; see :func:`hanoifw.board.start_grip_timer`), and only where no
timer can be made does the board's loop sample while it waits (``serve`` in :mod:`hanoifw.board`); the simulator
samples as the timer does. Sampling allocates nothing, because a hard interrupt may not: :meth:`GripMeter.sample`
uses only small ints and methods bound once. It may also interrupt :attr:`GripMeter.mean_u16` between any two
lines: the mean is computed from a snapshot of the ring's index and count, the ring holds several frames (a new
reading never overwrites one the mean is reading), and a mean during which the gripper output went off is -1.
A servo that is not driven draws no current at all, with or without a disk between its fingers: while the
gripper output is off there is no verdict either.

Rail sense. The rail sense input reads the servo rail through a divider: a contact bounce of the e-stop switch,
or the rail sagging for a moment while the servos stall, reads low for a sample or two. :class:`RailWatch`
reports the rail lost only after ``low_samples`` consecutive low samples (one per control step: 30 ms at 10 ms).
Both allocate nothing per sample.
"""

from hanoifw.ticks import ticks_diff_ms

GRIP_FRAME_MS = 20  # one 50 Hz servo PWM frame: the shortest window that holds one current burst whatever its phase
GRIP_SAMPLE_MS = 2  # the grip ADC is sampled this often (ms): ten readings per frame
GRIP_MAX_GAP_MS = 2 * GRIP_SAMPLE_MS  # longest time (ms) between two consecutive readings of a frame with a verdict
GRIP_RING = 32  # readings kept: 64 ms at GRIP_SAMPLE_MS, three frames (the mean reads about one)
RAIL_LOW_SAMPLES = 3  # consecutive low rail-sense samples (control steps) before the rail counts as lost


class GripMeter:
    """The grip sensor ``sensor`` (``read_u16() -> 0..65535``, or None: no sensor) averaged over a PWM frame.

    Readings (ADC value and tick time in ms) go into a ring of ``ring`` made once. :attr:`mean_u16` is the
    time-weighted mean of the latest ``frame_ms`` ms, ending at the newest reading, computed when asked (a STATUS),
    not per reading; -1 (no verdict) unless the readings cover that frame: one at or before its start, and none
    further than ``max_gap_ms`` ms after the one before it. Also -1 while the gripper output is off, before it
    has been on for a whole frame, and after a failed read until the readings cover a frame again.
    ``last_u16`` is the latest single reading (-1: none).
    """

    def __init__(
        self, sensor, *, frame_ms: int = GRIP_FRAME_MS, max_gap_ms: int = GRIP_MAX_GAP_MS, ring: int = GRIP_RING
    ) -> None:
        self.sensor = sensor
        self.frame_ms = frame_ms
        self.max_gap_ms = max_gap_ms
        self.last_u16 = -1
        self.is_driven = False
        self._read_u16 = None if sensor is None else sensor.read_u16  # bound once: a hard interrupt calls it
        self._values = [0] * ring
        self._times = [0] * ring
        self._size = ring
        self._newest = -1  # ring index of the latest reading
        self._count = 0  # readings in the ring since the output came on (at most ``ring``)
        self._starts = 0  # how often the readings started over (output off, failed read): the mean's snapshot check

    def sample(self, now_ms: int, driven: bool) -> None:
        """Take one ADC reading at ``now_ms`` (tick count in ms) while the gripper output is ``driven``.

        Allocates nothing (also called from a hard interrupt): small ints, a method bound at start, no exception
        made on the good path."""
        read_u16 = self._read_u16
        if read_u16 is None:
            return
        value = -1
        if driven:
            try:
                value = read_u16()
            except Exception:
                value = -1
        if value < 0:  # off (no current, disk or not) or a failed read: start over
            if self._count or self.is_driven:
                self._starts = (self._starts + 1) & 0xFFFF
            self.is_driven = False
            self.last_u16 = -1
            self._count = 0
            return
        if value > 65535:
            value = 65535
        newest = self._newest + 1
        if newest >= self._size:
            newest = 0
        self._values[newest] = value
        self._times[newest] = now_ms
        self._newest = newest  # published last: a mean that snapshots it sees a whole reading
        if self._count < self._size:
            self._count += 1
        self.last_u16 = value
        self.is_driven = True

    @property
    def mean_u16(self) -> int:
        """The time-weighted mean reading of the latest ``frame_ms`` (0..65535), or -1 (no verdict)."""
        starts = self._starts
        count = self._count  # before the index: a reading added in between only leaves the oldest one out
        index = self._newest
        if count < 2:
            return -1
        values = self._values
        times = self._times
        size = self._size
        frame_ms = self.frame_ms
        max_gap_ms = self.max_gap_ms
        end_ms = times[index]
        total = 0  # reading x ms: under 65536 x frame_ms, a small int
        covered = False
        for _ in range(count - 1):
            later_ms = times[index]
            index = index - 1 if index else size - 1
            held_ms = ticks_diff_ms(later_ms, times[index])  # this reading stood until the next one
            if held_ms > max_gap_ms or held_ms < 0:
                return -1  # a gap in the frame (or readings out of order): this frame is not covered
            start_ms = ticks_diff_ms(end_ms, times[index])
            if start_ms >= frame_ms:
                total += values[index] * (held_ms - (start_ms - frame_ms))  # only its part inside the frame
                covered = True
                break
            total += values[index] * held_ms
        if not covered or starts != self._starts:  # too few readings, or they started over while being read
            return -1
        return total // frame_ms


class RailWatch:
    """The rail sense input ``pin`` (``value() -> 1`` while the servo rail is powered, or None: not wired)."""

    def __init__(self, pin, *, low_samples: int = RAIL_LOW_SAMPLES) -> None:
        self.pin = pin
        self.low_samples = low_samples
        self.lows = 0  # consecutive low samples so far
        self.level = -1  # the latest sample: 1 high, 0 low, -1 none (not wired, or the read failed)

    def sample(self) -> None:
        """Read the input once (one control step)."""
        if self.pin is None:
            return
        try:
            level = 1 if self.pin.value() else 0
        except Exception:
            level = -1
        self.level = level
        if level == 0:
            if self.lows < self.low_samples:
                self.lows += 1
        else:
            self.lows = 0

    @property
    def is_lost(self) -> bool:
        """True once ``low_samples`` consecutive samples read low."""
        return self.lows >= self.low_samples
