"""VirtualServos: the pulse history it records and how the simulated horn follows its pulse."""

from __future__ import annotations

import math
import random

import pytest
from hanoibot.clock import VirtualClock
from hanoibot.config import load_config
from hanoibot.errors import ConfigError
from hanoibot.motion.blends import NEAR_FACTOR
from hanoibot.motion.drivers import output_us
from hanoibot.motion.segments import segments_for_moves
from hanoibot.planner import make_plan
from hanoibot.sim.board import SimBoard
from hanoibot.sim.disks import CONTACT_TOLERANCE_MM
from hanoibot.sim.factory import make_wire
from hanoibot.sim.servos import RESPONSE_S, VirtualServos, approach_us
from hanoibot.sim.world import HOLE_CLEARANCE_MM
from hanoifw import protocol
from hypothesis import given, settings
from hypothesis import strategies as st


def make(channels: int = 2, speeds: list[float | None] | None = None) -> tuple[VirtualServos, VirtualClock]:
    clock = VirtualClock()
    return VirtualServos(channels, now_s=clock.now_s, max_speed_us_per_s=speeds), clock


def test_history_records_each_change_with_its_time() -> None:
    servos, clock = make()
    servos.set_pulse_us(0, 1500)
    clock.advance(0.25)
    servos.set_pulse_us(1, 1200)
    servos.set_pulse_us(0, 1500)  # unchanged output: the PWM does not change, nothing to record
    clock.advance(0.5)
    servos.release(0)
    servos.release(0)  # already limp
    assert servos.history == [(0.0, 0, 1500), (0.25, 1, 1200), (0.75, 0, None)]
    assert servos.pulses_us() == [None, 1200]
    assert servos.pulses_of(0) == [1500, None]


def test_release_all_releases_only_driven_channels() -> None:
    servos, _clock = make(channels=3)
    servos.set_pulse_us(2, 1000)
    servos.release_all()
    assert servos.history == [(0.0, 2, 1000), (0.0, 2, None)]
    assert servos.positions_us() == [None, None, None]


def test_unlimited_servo_is_where_it_was_told() -> None:
    servos, clock = make()
    servos.set_pulse_us(0, 1000)
    servos.set_pulse_us(0, 2000)
    assert servos.position_us(0) == 2000
    clock.advance(1.0)
    assert servos.position_us(0) == 2000


@given(
    start_us=st.integers(500, 2500),
    commands=st.lists(st.tuples(st.floats(0.0, 0.5), st.integers(500, 2500)), min_size=1, max_size=20),
    speed_us_per_s=st.floats(10.0, 5000.0),
)
def test_limited_servo_never_outruns_its_speed_nor_its_target(
    start_us: int, commands: list[tuple[float, int]], speed_us_per_s: float
) -> None:
    servos, clock = make(channels=1, speeds=[speed_us_per_s])
    servos.set_pulse_us(0, start_us)
    position_us, target_us = float(start_us), start_us
    for wait_s, new_target_us in commands:
        clock.advance(wait_s)
        now_us = servos.position_us(0)
        assert now_us is not None
        assert abs(now_us - position_us) <= speed_us_per_s * wait_s + 1e-6
        assert min(position_us, target_us) - 1e-6 <= now_us <= max(position_us, target_us) + 1e-6, "no overshoot"
        servos.set_pulse_us(0, new_target_us)
        position_us, target_us = now_us, new_target_us
    clock.advance(2000.0 / speed_us_per_s + 40 * RESPONSE_S)
    assert servos.position_us(0) == pytest.approx(target_us, abs=1e-6)


def test_a_long_step_runs_at_full_speed_then_eases_in_over_the_response_time() -> None:
    # 1000 µs/s and 0.02 s: full speed until 20 µs are left, then the error shrinks by e every 0.02 s.
    servos, clock = make(channels=1, speeds=[1000.0])
    servos.set_pulse_us(0, 1000)
    servos.set_pulse_us(0, 1500)
    clock.advance(0.2)
    assert servos.position_us(0) == pytest.approx(1200.0)
    clock.advance(0.28)
    assert servos.position_us(0) == pytest.approx(1480.0)
    clock.advance(0.02)
    assert servos.position_us(0) == pytest.approx(1500.0 - 20.0 / math.e)


def test_a_short_step_decays_exponentially() -> None:
    servos, clock = make(channels=1, speeds=[1000.0])
    servos.set_pulse_us(0, 1500)
    servos.set_pulse_us(0, 1490)
    clock.advance(0.04)
    assert servos.position_us(0) == pytest.approx(1490.0 + 10.0 * math.exp(-2.0))


@settings(max_examples=50)
@given(
    steps=st.lists(st.tuples(st.integers(-3, 3), st.floats(0.0, 0.02)), min_size=1, max_size=12),
    channels=st.lists(st.tuples(st.integers(-40, 40).filter(bool), st.floats(1.0, 5.0)), min_size=2, max_size=5),
)
def test_servos_commanded_along_a_line_stay_on_it(
    steps: list[tuple[int, float]], channels: list[tuple[int, float]]
) -> None:
    """Servos asked for no more than they can do trail their pulses by one shared lag, so the arm keeps its path.

    Every channel c is told ``1500 + k * step_c`` for the same k; its top speed is ``ratio_c`` (1-5) times the
    speed at which its widest possible error still lies where its loop is proportional (speed = error / response
    time). A servo that ran to each new pulse at full speed would leave the line after every jump.
    """
    extent = 3 * len(steps)  # |k| never exceeds this, so no error is wider than 2 * extent * |step|
    speeds = [abs(step) * 2 * extent / RESPONSE_S * ratio for step, ratio in channels]
    servos, clock = make(channels=len(channels), speeds=speeds)
    k = 0
    for ch in range(len(channels)):
        servos.set_pulse_us(ch, 1500)
    for jump, wait_s in steps:
        k += jump
        for ch, (step, _ratio) in enumerate(channels):
            servos.set_pulse_us(ch, 1500 + k * step)
        for _ in range(3):  # look at the horns during the wait, not only at its end
            clock.advance(wait_s / 3)
            progress = [(servos.position_us(ch) - 1500) / step for ch, (step, _r) in enumerate(channels)]
            assert max(progress) - min(progress) <= 1e-6 * extent, f"the horns left the line: {progress}"


#: Robot config for the path test: the default desktop arm.
CONFIG = load_config()
#: Phases during which the grip point runs straight up or down a peg's axis, and which peg (of the move).
VERTICAL_PHASES = {"descend": "src", "lift": "src", "lower": "dst", "retreat": "dst"}


def worst_distance_from_peg_axis_mm(ping_seed: int) -> tuple[float, float]:
    """Play 3 disks through the real firmware core on servos at the config's speeds; the host's heartbeats
    arrive at random instants, so the firmware also steps off its 10 ms tick, as on a board.

    Returns how far (mm) the grip point got from the peg axis during vertical phases: (horns, commands).
    """
    rng = random.Random(ping_seed)
    board = SimBoard(max_speed_us_per_s=list(CONFIG.max_speeds_us_s()))
    speeds = [math.ceil(rate) + 1 for rate in CONFIG.max_speeds_us_s()]
    limits = zip(CONFIG.min_pulses_us(), CONFIG.max_pulses_us(), CONFIG.start_pulses_us(), speeds, strict=True)
    config_fields = [*(v for t in limits for v in t), 0]
    board.feed(protocol.encode("SYNC", 0, 0, ["t"]) + protocol.encode("CONFIG", 1, 0, config_fields))
    plan = make_plan(3)
    items = [(move, segment) for move, segments in segments_for_moves(CONFIG, plan.start, plan) for segment in segments]
    sent, t_s, next_ping_s = 0, 0.0, 0.0
    worst_horn_mm = worst_command_mm = 0.0
    while board.controller.last_done_cmd < len(items):
        assert not board.controller.faults, board.controller.faults
        while sent < len(items) and sent - board.controller.last_done_cmd < 6:
            sent += 1
            _move, segment = items[sent - 1]
            profile = [] if segment.ramp_ms is None else [segment.ramp_ms, segment.blend_ms]
            fields = [sent, segment.duration_ms, *segment.pulses_us, *profile]
            board.feed(protocol.encode("MOVE", sent + 1, 0, fields))
        t_s += 0.001
        board.run_until(t_s)
        if t_s >= next_ping_s:
            board.feed(protocol.encode("PING", 0, 0, ["p"]))
            board.step()
            next_ping_s = t_s + rng.uniform(0.005, 0.04)
        move, segment = items[min(board.controller.last_done_cmd, len(items) - 1)]
        if segment.phase not in VERTICAL_PHASES:
            continue
        peg = CONFIG.board.peg(move.src if VERTICAL_PHASES[segment.phase] == "src" else move.dst)
        horn = CONFIG.grip_point([p or 0.0 for p in board.servos.positions_us()])
        command = CONFIG.grip_point(board.controller.pulses_us)
        if command.z_mm >= peg.height_mm or segment.phase not in ("lift", "lower"):
            continue  # the axis matters for a held disk threaded on the peg, not above the tip or for open fingers
        worst_horn_mm = max(worst_horn_mm, math.hypot(horn.x_mm - peg.x_mm, horn.y_mm - peg.y_mm))
        worst_command_mm = max(worst_command_mm, math.hypot(command.x_mm - peg.x_mm, command.y_mm - peg.y_mm))
    return worst_horn_mm, worst_command_mm


@settings(max_examples=4, deadline=None)
@given(ping_seed=st.integers(0, 2**32 - 1))
def test_the_horns_keep_a_lift_on_its_peg_axis_between_control_ticks(ping_seed: int) -> None:
    # Regression: with servos that ran to each new pulse at full speed, a held disk left the axis by more than the
    # play its hole allows (2.0-2.5 mm here, COLLISION in sim:// runs), though the commands stayed within 1 mm.
    # The commands keep the planner's tolerance (NEAR_FACTOR line tolerances, hanoibot.motion.blends); the horns,
    # which take their pulse once per 20 ms PWM frame, may trail further but keep the disk within its hole's play
    # (1.98 mm with lifts at full speed, 1.42 mm at 0.7 of it, with a 10 mm hole; the derived share is
    # docs/margins.md's, for the 14 mm hole of the default robot since issue 34).
    horn_mm, command_mm = worst_distance_from_peg_axis_mm(ping_seed)
    assert command_mm <= NEAR_FACTOR * CONFIG.motion.line_tolerance_mm
    allowed_mm = HOLE_CLEARANCE_MM / 2 + CONTACT_TOLERANCE_MM - 0.4  # the world's contact test, with 0.4 mm to spare
    assert horn_mm <= allowed_mm, f"the horns took the grip point {horn_mm:.2f} mm from the axis"


def test_a_servo_on_pwm_frames_takes_a_pulse_at_the_next_frame_start() -> None:
    # Frames of 20 ms starting at 5 ms + k * 20 ms; the pulse given at 10 ms is measured at 25 ms, not before.
    clock = VirtualClock()
    servos = VirtualServos(1, now_s=clock.now_s, max_speed_us_per_s=[None], frame_s=0.02, frame_phase_s=0.005)
    servos.set_pulse_us(0, 1000)  # a first pulse: the unpowered horn is taken to be there
    clock.advance(0.010)
    servos.set_pulse_us(0, 2000)
    assert servos.pulses_us() == [2000]  # the output changed at once...
    clock.advance(0.0149)
    assert servos.position_us(0) == 1000  # ...but the servo still turns toward the pulse of its frame
    clock.advance(0.0002)
    assert servos.position_us(0) == 2000
    clock.advance(0.100)
    servos.set_pulse_us(0, 1200)  # given at 0.1251 s, after the frame start at 0.125 s: waits for 0.145 s
    clock.advance(0.019)
    assert servos.position_us(0) == 2000
    clock.advance(0.001)
    assert servos.position_us(0) == 1200


def test_a_frame_that_starts_where_one_reading_ends_is_taken_not_skipped() -> None:
    # Frames at 5 ms + k * 20 ms. In floating point frame 382 starts at 7.6450000000000005 s, just after a reading
    # at 7.645 s: that reading does not reach it, and the next one (from 7.645 s) must not look for the first frame
    # after 7.645 s either, or frame 382 is never taken: the servo kept its pulse of 7.625 s for 40 ms, lagged,
    # and a held disk hit its peg in a run on a noisy link (sim://?flip=0.01&drop=0.01&seed=336), whose board
    # steps at such odd times.
    times: list[float] = [0.0]
    servos = VirtualServos(1, now_s=lambda: times[0], max_speed_us_per_s=[None], frame_s=0.02, frame_phase_s=0.005)
    servos.set_pulse_us(0, 1000)
    times[0] = 7.6445
    servos.set_pulse_us(0, 1100)
    times[0] = 7.645
    servos.set_pulse_us(0, 1101)
    times[0] = 7.66
    assert servos.position_us(0) in (1100, 1101), "the frame of 7.645 s took a pulse given by then"


def test_a_speed_limited_servo_on_frames_turns_from_the_frame_start() -> None:
    clock = VirtualClock()
    servos = VirtualServos(1, now_s=clock.now_s, max_speed_us_per_s=[2000.0], frame_s=0.02, frame_phase_s=0.0)
    servos.set_pulse_us(0, 1000)
    clock.advance(0.001)
    servos.set_pulse_us(0, 1500)
    clock.advance(0.049)  # at 0.05 s: the pulse was taken at 0.02 s and the horn has turned toward it for 30 ms
    assert servos.position_us(0) == pytest.approx(approach_us(1000, 1500, 0.030, 2000.0, RESPONSE_S))


def test_a_servo_on_a_pca9685_measures_its_pulse_in_whole_counts() -> None:
    # A PCA9685 at 50 Hz gives 4.88 µs counts (hanoibot.motion.drivers): asked for 1502 µs it gives 308 counts,
    # 1503.04 µs, and the servo goes there; the history keeps what the firmware asked for.
    clock = VirtualClock()
    servos = VirtualServos(
        1, now_s=clock.now_s, max_speed_us_per_s=[1000.0], output_us=lambda us: output_us("pca9685", us)
    )
    servos.set_pulse_us(0, 1500)
    assert servos.position_us(0) == pytest.approx(307 * 4.88)
    servos.set_pulse_us(0, 1502)
    clock.advance(1.0)
    assert servos.position_us(0) == pytest.approx(308 * 4.88)
    assert servos.pulses_of(0) == [1500, 1502]


@pytest.mark.parametrize(("outputs", "driver"), [("pwm", "rp2"), ("pca9685", "pca9685"), ("ledc", "esp32s3")])
def test_a_sim_boards_outputs_give_their_drivers_counts(outputs: str, driver: str) -> None:
    board = make_wire({"world": "0", "outputs": outputs}).board
    assert board.servos._output_us is not None and board.servos._output_us(1502) == output_us(driver, 1502)
    with pytest.raises(ConfigError, match="outputs='i2c' is invalid: expected one of pwm, pca9685, ledc"):
        make_wire({"world": "0", "outputs": "i2c"})


def test_first_pulse_after_release_snaps() -> None:
    servos, clock = make(channels=1, speeds=[100.0])
    servos.set_pulse_us(0, 1000)
    servos.release(0)
    clock.advance(1.0)
    servos.set_pulse_us(0, 2000)
    assert servos.position_us(0) == 2000


@pytest.mark.parametrize(
    ("channels", "speeds", "response_s", "word"),
    [
        (0, None, RESPONSE_S, "channel count 0"),
        (2, [1.0], RESPONSE_S, "1 entries"),
        (1, [0.0], RESPONSE_S, "speed 0.0"),
        (1, None, -0.01, "time -0.01 s"),
        (1, None, math.inf, "time inf s"),
    ],
)
def test_bad_settings_name_the_value(
    channels: int, speeds: list[float | None] | None, response_s: float, word: str
) -> None:
    clock = VirtualClock()
    with pytest.raises(ConfigError, match=word):
        VirtualServos(channels, now_s=clock.now_s, max_speed_us_per_s=speeds, response_s=response_s)


@pytest.mark.parametrize("frame_s", [0.0, -0.02, math.nan])
def test_a_bad_pwm_frame_names_the_value(frame_s: float) -> None:
    clock = VirtualClock()
    with pytest.raises(ConfigError, match=f"servo PWM frame {frame_s} s is invalid"):
        VirtualServos(1, now_s=clock.now_s, frame_s=frame_s)


def test_a_pulse_backdated_to_when_it_took_effect_moves_the_horn_from_then() -> None:
    # The virtual Pico learns of a new pulse at its 10 ms tick, but the servo took it at its PWM slice's wrap.
    late, clock = make(channels=1, speeds=[1000.0])
    backdated, _ = make(channels=1, speeds=[1000.0])
    backdated._now_s = clock.now_s  # one clock for both banks
    for servos in (late, backdated):
        servos.set_pulse_us(0, 1500)
    clock.advance(0.1)
    late.set_pulse_us(0, 1600)
    backdated.set_pulse_us(0, 1600, since_s=0.092)  # the wrap 8 ms before this tick
    clock.advance(0.02)
    late_us, early_us = late.position_us(0), backdated.position_us(0)
    assert late_us is not None and early_us is not None
    assert early_us > late_us + 4  # 8 ms more of turning at up to 1000 us/s
    assert backdated.history == [(0.0, 0, 1500), (0.092, 0, 1600)]
    backdated.set_pulse_us(0, 1700, since_s=0.05)  # never before the channel's latest update: clamped
    assert backdated.history[-1] == (pytest.approx(0.12), 0, 1700)
