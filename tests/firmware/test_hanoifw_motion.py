"""Interpolator tests (also run under MicroPython): the profile against a float oracle, and the segment queue."""

from hanoifw.motion import MAX_DURATION_MS, Q_ONE, Motion, min_jerk_q16, trapezoid_q16


def min_jerk(u):
    """Independent float oracle: s(u) = 10u^3 - 15u^4 + 6u^5."""
    return 10 * u**3 - 15 * u**4 + 6 * u**5


def trapezoid(t, duration, ramp):
    """Independent float oracle: position of a unit move with constant acceleration for ``ramp``, constant
    speed, and constant deceleration for the last ``ramp`` (time units of the arguments)."""
    t = min(max(t, 0.0), duration)
    if ramp == 0:
        return t / duration
    peak = 1.0 / (duration - ramp)
    accel = peak / ramp
    if t < ramp:
        return accel * t * t / 2
    if t <= duration - ramp:
        return peak * ramp / 2 + peak * (t - ramp)
    left = duration - t
    return 1.0 - accel * left * left / 2


def test_profile_matches_the_oracle_is_monotone_and_exact_at_the_ends():
    for duration_ms in (1, 7, 20, 333, 1000, MAX_DURATION_MS):
        stride = max(1, duration_ms // 997)
        previous = -1
        for elapsed_ms in range(-5, duration_ms + 6, stride):
            s = min_jerk_q16(elapsed_ms, duration_ms)
            u = min(max(elapsed_ms / duration_ms, 0.0), 1.0)
            assert abs(s / Q_ONE - min_jerk(u)) < 1.5e-4, (duration_ms, elapsed_ms)
            assert s >= previous
            previous = s
        assert min_jerk_q16(0, duration_ms) == 0 and min_jerk_q16(duration_ms, duration_ms) == Q_ONE


def test_profile_is_symmetric_like_the_oracle():
    for elapsed_ms in range(0, 1001, 50):
        s = min_jerk_q16(elapsed_ms, 1000) + min_jerk_q16(1000 - elapsed_ms, 1000)
        assert abs(s - Q_ONE) <= 16  # two table interpolations, each within 8/65536


def test_queue_holds_depth_segments_and_reports_free_slots():
    motion = Motion(2, 3)
    assert motion.free_slots == 3 and not motion.is_busy
    for cmd_id in (1, 2, 3):
        assert motion.push(cmd_id, 10, [1000 + cmd_id, 2000 - cmd_id])
    assert not motion.push(4, 10, [1, 1]) and motion.free_slots == 0
    pose = [1500, 1500]
    done = []
    motion.advance(25, pose, done)
    assert done == [1, 2] and motion.free_slots == 2  # the third is executing and keeps its slot
    motion.advance(5, pose, done)
    assert done == [1, 2, 3] and pose == [1003, 1997] and not motion.is_busy


def test_segments_start_from_where_the_pose_is_and_end_on_target():
    motion = Motion(3, 8)
    pose = [1200, 1500, 1800]
    motion.push(9, 100, [1800, 1500, 1200])
    done = []
    motion.advance(50, pose, done)
    assert pose == [1500, 1500, 1500] and done == []  # half way in time is half way in space (symmetric profile)
    motion.advance(50, pose, done)
    assert pose == [1800, 1500, 1200] and done == [9]


def test_clear_drops_everything_and_keeps_the_pose():
    motion = Motion(1, 4)
    pose = [1000]
    motion.push(1, 100, [2000])
    motion.push(2, 100, [1000])
    motion.advance(30, pose, [])
    held = pose[0]
    motion.clear()
    motion.advance(500, pose, [])
    assert pose == [held] and motion.free_slots == 4
    motion.push(3, 10, [1100])
    motion.advance(10, pose, [])
    assert pose == [1100]


def test_ring_buffer_wraps_many_times_without_losing_order():
    motion = Motion(1, 3)
    pose = [0]
    done = []
    pushed = 0
    for round_index in range(50):
        while motion.free_slots:
            pushed += 1
            motion.push(pushed, 1 + round_index % 3, [pushed])
        motion.advance(2, pose, done)
    assert done == list(range(1, len(done) + 1)) and len(done) > 40


def test_trapezoid_matches_the_oracle_is_monotone_and_exact_at_the_ends():
    for duration_ms, ramp_ms in ((20, 10), (100, 0), (333, 40), (1000, 500), (1000, 1), (MAX_DURATION_MS, 9000)):
        stride = max(1, duration_ms // 997)
        previous = -1
        for elapsed_ms in range(-5, duration_ms + 6, stride):
            s = trapezoid_q16(elapsed_ms, duration_ms, ramp_ms)
            assert abs(s / Q_ONE - trapezoid(elapsed_ms, duration_ms, ramp_ms)) < 3e-4, (duration_ms, elapsed_ms)
            assert s >= previous
            previous = s
        assert trapezoid_q16(0, duration_ms, ramp_ms) == 0
        assert trapezoid_q16(duration_ms, duration_ms, ramp_ms) == Q_ONE


def blended_run(late_ms=None):
    """Two trapezoidal segments on one channel, 1000 -> 1400 -> 1800 us, 200 ms each with 50 ms ramps, the
    second blending 50 ms into the first; ``late_ms``: push the second only after that much time."""
    motion = Motion(1, 4)
    pose = [1000]
    done = []
    motion.push(1, 200, [1400], 50, 0)
    trace = []
    if late_ms is None:
        motion.push(2, 200, [1800], 50, 50)
    for t_ms in range(1, 451):
        if t_ms - 1 == late_ms:
            motion.push(2, 200, [1800], 50, 50)
        motion.advance(1, pose, done)
        trace.append(pose[0])
    return trace, done


def test_a_blended_segment_starts_during_the_ramp_of_the_one_before_and_keeps_the_speed():
    trace, done = blended_run()
    assert done == [1, 2] and trace[-1] == 1800
    assert trace[350 - 1] == 1800 and trace[340 - 1] < 1800  # 200 + 200 - 50 ms in all
    speeds = [trace[i + 1] - trace[i] for i in range(len(trace) - 1)]  # us per ms
    cruise = 400 / 150  # 400 us in 200 - 50 ms
    assert max(speeds) <= cruise + 1  # whole-us steps
    assert min(speeds[150:200]) >= cruise - 1.01  # through the blend the speed stays at cruise


def test_a_segment_queued_after_the_overlap_began_waits_and_starts_from_rest():
    trace, done = blended_run(late_ms=160)  # the overlap would have begun at 150 ms
    assert done == [1, 2] and trace[-1] == 1800
    assert trace[200 - 1] == 1400 and trace[201 - 1] == 1400  # at rest on the first target, then on
    assert trace[400 - 1] == 1800 and trace[390 - 1] < 1800


def test_no_blend_with_a_minimum_jerk_neighbour():
    motion = Motion(1, 4)
    pose = [1000]
    motion.push(1, 100, [1400])
    motion.push(2, 100, [1800], 50, 50)
    done = []
    motion.advance(100, pose, done)
    assert done == [1] and pose == [1400]


def test_short_segments_blend_one_after_another_at_the_board_tick():
    # Regression: a segment that took over in the middle of a 10 ms step did not let the one queued behind it
    # blend when its own overlap began within that step.
    motion = Motion(1, 8)
    pose = [1000]
    done = []
    for cmd_id in range(1, 5):
        motion.push(cmd_id, 60, [1000 + 100 * cmd_id], 25, 25 if cmd_id > 1 else 0)
    elapsed_ms = 0
    while motion.is_busy:
        motion.advance(10, pose, done)
        elapsed_ms += 10
    assert done == [1, 2, 3, 4] and pose == [1400]
    assert elapsed_ms == 4 * 60 - 3 * 25 + 5  # every corner blended; the last step ends on the 10 ms grid
