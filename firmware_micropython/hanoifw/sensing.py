"""The board's two sensor inputs as the controller reads them: the grip current averaged over whole PWM frames,
and the rail sense debounced over several control steps.

Grip current. A hobby servo draws its current in bursts, one per 50 Hz PWM frame (20 ms), and the sensor's RC
filter (about 1 ms) keeps the bursts: one ADC sample lands in a burst or between two, depending on the phase of
the sample in the frame. :class:`GripMeter` therefore averages every sample of one window of at least one frame
(``frame_ms``) and at least ``min_samples`` samples: the verdict is the mean of the latest frame.
The board's loop samples every few ms while it waits (``serve`` in :mod:`hanoifw.board`), the simulator as
often. A servo that is not driven draws no current at all, with or without a disk between its fingers: while
the gripper output is off there is no verdict (mean -1).

Rail sense. The rail sense input reads the servo rail through a divider: a contact bounce of the e-stop switch,
or the rail sagging for a moment while the servos stall, reads low for a sample or two. :class:`RailWatch`
reports the rail lost only after ``low_samples`` consecutive low samples (one per control step: 30 ms at 10 ms).
Both allocate nothing per sample.
"""

from hanoifw.ticks import ticks_diff_ms

GRIP_FRAME_MS = 20  # one 50 Hz servo PWM frame: the shortest window that holds one current burst whatever its phase
GRIP_MIN_SAMPLES = 5  # samples a window needs (at least one every 4 ms of a frame) before it gives a mean
RAIL_LOW_SAMPLES = 3  # consecutive low rail-sense samples (control steps) before the rail counts as lost


class GripMeter:
    """The grip sensor ``sensor`` (``read_u16() -> 0..65535``, or None: no sensor) averaged over a PWM frame.

    Samples go into a ring made once (``ring`` samples). :attr:`mean_u16` is the time-weighted mean of the latest
    ``frame_ms`` (each reading counts until the next one, so a loop that samples unevenly, or twice at the same
    instant, does not bias it), computed when asked (a STATUS), not per sample. -1: no verdict: the gripper output
    is off, it has not been on for a whole frame, the frame holds fewer than ``min_samples`` readings, or a read
    failed. ``last_u16`` is the latest single reading (-1: none).
    """

    def __init__(
        self, sensor, *, frame_ms: int = GRIP_FRAME_MS, min_samples: int = GRIP_MIN_SAMPLES, ring: int = 32
    ) -> None:
        self.sensor = sensor
        self.frame_ms = frame_ms
        self.min_samples = min_samples
        self.last_u16 = -1
        self.is_driven = False
        self._values = [0] * ring
        self._times = [0] * ring
        self._newest = -1  # ring index of the latest reading
        self._count = 0  # readings in the ring since the output came on

    def sample(self, now_ms: int, driven: bool) -> None:
        """Take one ADC sample at ``now_ms`` (tick count in ms) while the gripper output is ``driven``."""
        if self.sensor is None:
            return
        value = -1
        if driven:
            try:
                value = self.sensor.read_u16()
            except Exception:
                value = -1
        if value < 0:  # off (no current, disk or not) or a failed read: start over
            self.is_driven = False
            self.last_u16 = -1
            self._count = 0
            return
        if value > 65535:
            value = 65535
        self.is_driven = True
        self.last_u16 = value
        newest = self._newest + 1
        if newest >= len(self._values):
            newest = 0
        self._newest = newest
        self._values[newest] = value
        self._times[newest] = now_ms
        if self._count < len(self._values):
            self._count += 1

    @property
    def mean_u16(self) -> int:
        """The time-weighted mean reading of the latest ``frame_ms`` (0..65535), or -1 (no verdict)."""
        if self._count < 2:
            return -1
        size = len(self._values)
        index = self._newest
        end_ms = self._times[index]
        total = 0  # reading x ms (< 65536 x frame_ms: a small int)
        covered_ms = 0
        readings = 0
        for _ in range(self._count - 1):
            later = self._times[index]
            index = index - 1 if index else size - 1
            held_ms = ticks_diff_ms(later, self._times[index])  # this reading stood until the next one
            start_ms = ticks_diff_ms(end_ms, self._times[index])
            if start_ms > self.frame_ms:
                held_ms -= start_ms - self.frame_ms  # only its part inside the frame
            if held_ms > 0:
                total += self._values[index] * held_ms
                covered_ms += held_ms
            readings += 1
            if start_ms >= self.frame_ms:
                break
        if covered_ms < self.frame_ms or readings < self.min_samples:
            return -1
        return total // covered_ms


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
