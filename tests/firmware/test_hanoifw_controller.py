"""Controller tests in virtual time. Plain asserts only: these bodies also run under MicroPython (run.mjs)."""

from fwfakes import (
    CONTROL_PERIOD_MS,
    FakeGrip,
    FakeServos,
    Host,
    Rng,
    config_fields,
    done_ids,
    errors,
    kinds,
    sample_grip,
)
from hanoifw import protocol as p
from hanoifw.controller import HOST_LOST, MAX_PENDING_FRAMES, MAX_STEP_MS, TICKS_PERIOD, Controller, ticks_diff_ms
from hanoifw.rxwindow import HELD_FRAMES


def min_jerk(u):
    """Independent float oracle of the minimum-jerk profile."""
    return 10 * u**3 - 15 * u**4 + 6 * u**5


def test_boot_announces_hello_and_outputs_no_pwm_before_config():
    host = Host()
    first = host.step()
    assert kinds(first) == [p.HELLO]
    assert first[0][2] == p.SEQ_MOD - 1  # nothing acked yet
    hello = p.unpack(p.HELLO, first[0][3])
    assert hello["boot_id"] == "b0071d00" and hello["proto"] == p.PROTOCOL_VERSION
    assert hello["channels"] == 5 and hello["queue_depth"] == 8 and hello["watchdog_ms"] == 300
    assert hello["mode"] == "UNCONFIGURED"
    host.ctl.feed(p.encode(p.SYNC, 0, 0, ("tok",)))
    host.run(200)
    host.move(1, 100, 1600)  # refused: no CONFIG yet
    assert errors(host.run(200)) == [p.E_NOT_CONFIGURED]
    assert host.servos.history == []
    fields = []
    for start_us in (1200, 1300, 1400, 1500, 1600):
        fields.extend([1000, 2000, start_us, 9000])
    fields.append(0)
    host.send(p.CONFIG, fields)
    host.run(100)
    assert sorted(host.servos.history) == [(0, 1200), (1, 1300), (2, 1400), (3, 1500), (4, 1600)]


def test_reliable_frame_before_sync_is_refused_and_not_acked():
    host = Host()
    host.send(p.CONFIG, config_fields(5, (1000, 2000, 1500)))
    got = host.step()
    assert errors(got) == [p.E_NO_SESSION]
    assert p.ACK not in kinds(got)
    assert host.servos.history == []


def test_move_is_acked_executed_and_reported_done_on_time():
    host = Host()
    host.start()
    seq = host.move(7, 100, 1700)
    got = host.step()
    assert next(f for f in got if f[0] == p.ACK)[2] == seq
    frames = []
    for _ in range(12):
        ids = done_ids(host.run(CONTROL_PERIOD_MS))
        frames.append((host.now_ms, ids))
    done_at = [t for t, ids in frames if ids == [7]]
    start_ms = 20  # the step that took the MOVE counts its whole period: motion starts at 20 ms
    assert done_at == [start_ms + 100]
    assert host.servos.current == {0: 1700, 1: 1700, 2: 1700, 3: 1700, 4: 1700}
    status = host.status()
    assert status["last_done_cmd"] == 7 and status["last_queued_cmd"] == 7 and status["mode"] == "IDLE"
    assert status["pulses_us"] == [1700] * 5


def test_all_channels_follow_one_minimum_jerk_profile_and_finish_together():
    host = Host()
    host.start()
    targets = [2000, 1000, 1500, 1510, 1900]
    starts = [1500] * 5
    host.move(1, 200, targets)
    poses = []
    for _ in range(25):
        host.run(CONTROL_PERIOD_MS)
        poses.append((host.now_ms, list(host.ctl.pulses_us)))
    for now_ms, pose in poses:
        u = min(max((now_ms - 20) / 200, 0.0), 1.0)
        for ch in range(5):
            expected = starts[ch] + (targets[ch] - starts[ch]) * min_jerk(u)
            assert abs(pose[ch] - expected) <= 1.0, (now_ms, ch, pose[ch], expected)
    finished = [now_ms for now_ms, pose in poses if pose == targets]
    assert finished[0] == 220


def test_segments_play_back_to_back_in_order_without_drift():
    host = Host()
    host.start()
    for cmd_id in (1, 2, 3):
        host.move(cmd_id, 25, 1500 + 100 * cmd_id)
    when = {}
    for _ in range(12):
        for cmd_id in done_ids(host.run(CONTROL_PERIOD_MS)):
            when[cmd_id] = host.now_ms
    # leftover time carries into the next segment: they end at 20 + 25k ms, seen at the next control step
    assert when == {1: 50, 2: 70, 3: 100}
    assert list(host.ctl.pulses_us) == [1800] * 5


def test_repeated_cmd_id_is_acked_but_never_executed_again():
    host = Host()
    host.start()
    host.move(5, 30, 1600)
    host.run(100)
    seq = host.move(5, 30, 1900)  # same id, other target: a replay must not move
    seq = host.move(4, 30, 1900)
    got = host.run(100)
    assert errors(got) == [] and done_ids(got) == []
    assert got[0][2] == seq
    assert list(host.ctl.pulses_us) == [1600] * 5
    # a new host session keeps the at-most-once rule (cmd ids outlive sessions in one boot)
    host.ctl.feed(p.encode(p.SYNC, 40, 0, ("other",)))
    host.seq = 40
    host.move(5, 30, 1900)
    assert done_ids(host.run(100)) == [] and list(host.ctl.pulses_us) == [1600] * 5


def test_retransmitted_seq_is_reacked_without_executing_twice():
    host = Host()
    host.start()
    seq = host.move(1, 30, 1600)
    host.send_raw(p.MOVE, seq, [1, 30] + [1600] * 5)
    got = host.run(100)
    assert done_ids(got) == [1]
    assert host.ctl.rx.duplicates == 1
    assert {f[2] for f in got} == {seq}


def test_out_of_order_frames_are_dropped_until_the_gap_is_resent():
    host = Host()
    host.start()
    lost = host.seq + 1  # this frame never arrives
    second = host.seq + 2
    host.send_raw(p.MOVE, second, [2, 20] + [1700] * 5)
    got = host.run(50)
    assert done_ids(got) == [] and host.ctl.rx.out_of_order == 1
    assert {f[2] for f in got} == {lost - 1}  # every reply re-acks the last in-order frame
    host.send_raw(p.MOVE, lost, [1, 20] + [1600] * 5)  # go back N
    host.send_raw(p.MOVE, second, [2, 20] + [1700] * 5)
    assert done_ids(host.run(100)) == [1, 2]


def test_out_of_limit_move_is_refused_never_clamped_and_blocks_later_moves():
    host = Host()
    host.start()
    host.move(1, 500, 1600)
    host.run(20)
    host.move(2, 50, [1500, 1500, 2001, 1500, 1500])
    host.move(3, 50, 1700)
    got = host.run(600)
    assert errors(got) == [p.E_LIMIT, p.E_REJECTED]
    assert done_ids(got) == [1]  # the queued one before it still runs
    assert all(pulse is None or 1000 <= pulse <= 2000 for _, pulse in host.servos.history)
    assert "REJECTED" in host.status()["faults"]
    host.send(p.CLEAR)
    host.move(4, 50, 1700)
    assert done_ids(host.run(100)) == [4]
    assert host.status()["faults"] == "-"


def test_bad_move_fields_are_answered_with_errors():
    host = Host()
    host.start()
    cases = (
        ([1, 50, 1500, 1500], p.E_BAD_CHANNELS),
        ([1, 0] + [1500] * 5, p.E_BAD_DURATION),
        ([1, 60001] + [1500] * 5, p.E_BAD_DURATION),
        (["x1", 50] + [1500] * 5, p.E_BAD_FRAME),
        (["0", 50] + [1500] * 5, p.E_BAD_FRAME),
        ([str(p.MAX_CMD_ID + 1), 50] + [1500] * 5, p.E_BAD_FRAME),
        ([1, 50, 1500, "15a0", 1500, 1500, 1500], p.E_LIMIT),
    )
    for fields, code in cases:
        host.send(p.MOVE, fields)
        assert errors(host.step()) == [code], fields
        host.send(p.CLEAR)
    assert sorted(host.servos.history) == [(ch, 1500) for ch in range(5)]


def test_full_queue_refuses_without_ack_and_takes_the_resend():
    host = Host()
    host.start()
    for cmd_id in range(1, 9):
        last_ok = host.move(cmd_id, 100, 1500 + cmd_id)
    ninth = host.move(9, 100, 1600)
    got = host.step()
    assert errors(got) == [p.E_QUEUE_FULL]
    assert max(f[2] for f in got) == last_ok
    assert host.status()["free_slots"] == 0
    host.run(120)  # the first segment finishes and frees a slot
    host.send_raw(p.MOVE, ninth, [9, 100] + [1600] * 5)
    got = host.step()
    assert errors(got) == [] and [f[2] for f in got if f[0] == p.ACK] == [ninth]
    assert done_ids(host.run(900)) == [2, 3, 4, 5, 6, 7, 8, 9]


def test_estop_at_any_seq_holds_the_pose_and_is_latched_until_clear():
    host = Host()
    host.start()
    host.move(1, 1000, 2000)
    host.move(2, 1000, 1000)
    host.run(300)
    host.ctl.feed(p.encode(p.ESTOP, 12345, 0))
    got = host.step(0)
    assert p.unpack(p.STATUS, got[0][3])["mode"] == "ESTOP"
    held = list(host.ctl.pulses_us)
    writes = len(host.servos.history)
    got = host.run(1500)
    assert len(host.servos.history) == writes and list(host.ctl.pulses_us) == held
    assert done_ids(got) == []
    host.move(3, 100, 1500)
    assert errors(host.run(50)) == [p.E_ESTOPPED]
    host.send(p.RESUME)  # RESUME does not release an e-stop
    host.run(50)
    assert host.ctl.mode == "ESTOP" and len(host.servos.history) == writes
    host.send(p.CLEAR)
    host.run(20)
    status = host.status()
    assert status["mode"] == "IDLE" and status["free_slots"] == 8 and status["last_done_cmd"] == 0
    host.move(4, 100, 1500)
    assert done_ids(host.run(200)) == [4]


def test_watchdog_holds_within_one_control_period_of_the_deadline():
    host = Host()
    host.start()
    host.move(1, 2000, 1900)
    host.run(500)  # heartbeats
    last_rx_ms = host.now_ms  # the step that saw the last PING
    deadline_ms = last_rx_ms + 300
    write_times = []
    for _ in range(60):
        before = len(host.servos.history)
        host.step()
        if len(host.servos.history) > before:
            write_times.append(host.now_ms)
    assert max(write_times) <= deadline_ms
    assert max(write_times) >= deadline_ms - CONTROL_PERIOD_MS  # it moved until then
    status = host.status()
    assert status["mode"] == "FAULT" and status["faults"] == HOST_LOST
    assert status["last_done_cmd"] == 0


def test_watchdog_sleeps_while_idle_or_held():
    host = Host()
    host.start()
    host.run(1000, heartbeat=False)
    assert host.ctl.faults == []
    host.move(1, 1000, 1900)
    host.run(100)
    host.send(p.HOLD)
    host.run(1000, heartbeat=False)
    assert host.ctl.faults == [] and host.ctl.mode == "HELD"


def test_hold_pauses_the_segment_and_resume_continues_it():
    host = Host()
    host.start()
    host.move(1, 200, 1900)
    host.run(100)
    host.send(p.HOLD)
    host.step()
    held = list(host.ctl.pulses_us)
    assert 1500 < held[0] < 1900
    assert done_ids(host.run(300)) == [] and list(host.ctl.pulses_us) == held
    host.send(p.RESUME)
    got = host.run(200)
    assert done_ids(got) == [1] and list(host.ctl.pulses_us) == [1900] * 5


def test_config_is_validated_and_never_moves_a_configured_arm():
    host = Host()
    host.ctl.feed(p.encode(p.SYNC, 0, 0, ("t",)))
    host.step()
    good = [1000, 2000, 1500, 9000] * 4 + [0]
    bad = (
        good[:12] + [0],  # noqa: RUF005 (MicroPython has no * in list displays)
        [1000, 1000, 1000, 9000] + good,  # noqa: RUF005
        [1000, 2000, 2100, 9000] + good,  # noqa: RUF005
        [400, 2000, 1500, 9000] + good,  # noqa: RUF005
        [1000, 2600, 1500, 9000] + good,  # noqa: RUF005
        [1000, 2000, 1500, 0] + good,  # noqa: RUF005
    )
    for fields in bad:
        host.send(p.CONFIG, fields)
        assert len(errors(host.step())) == 1, fields
    assert host.servos.history == [] and host.ctl.mode == "UNCONFIGURED"
    host.send(p.CONFIG, config_fields(5, (1000, 2000, 1500)))
    host.step()
    host.send(p.CONFIG, config_fields(5, (900, 2100, 1000)))  # new limits, new start: the arm stays put
    host.step()
    assert host.ctl.min_us == [900] * 5 and list(host.ctl.pulses_us) == [1500] * 5
    host.send(p.CONFIG, config_fields(5, (1600, 2100, 1700)))  # the current pose would be out of limits
    assert errors(host.step()) == [p.E_LIMIT]
    assert len(host.servos.history) == 5


def test_latched_fault_from_the_simulator_holds_until_clear():
    host = Host()
    host.start()
    host.move(1, 400, 1900)
    host.move(2, 400, 1100)
    host.run(100)
    host.ctl.latch_fault("COLLISION")
    held = list(host.ctl.pulses_us)
    assert done_ids(host.run(900)) == [] and list(host.ctl.pulses_us) == held
    status = host.status()
    assert status["faults"] == "COLLISION" and status["mode"] == "FAULT" and status["free_slots"] == 8
    host.send(p.CLEAR)
    host.run(20)
    assert host.ctl.mode == "IDLE"


def test_status_reports_the_grip_current_and_the_configured_verdict():
    host = Host(grip_sensor=FakeGrip(41000))
    host.now_ms = sample_grip(host.ctl, 0, 40)
    status = host.status()
    assert (status["grip"], status["grip_raw"]) == ("unknown", -1)  # no output, no current: no verdict
    host.start(grip_threshold=30000)
    host.now_ms = sample_grip(host.ctl, host.now_ms, 30)  # the board's loop samples every 2 ms between steps
    assert (host.status()["grip"], host.status()["grip_raw"]) == ("held", 41000)
    host.ctl.grip_sensor.value = 12000
    host.now_ms = sample_grip(host.ctl, host.now_ms, 30)
    assert host.status()["grip"] == "empty"
    host.ctl.grip_sensor.value = None
    host.step()
    assert (host.status()["grip"], host.status()["grip_raw"]) == ("unknown", -1)
    assert (Host().status()["grip"], Host().status()["grip_raw"]) == ("none", -1)


def counting_feed(host):
    """Count every byte fed to the board from now on: returns a list whose one item is the running total."""
    total = [0]
    feed = host.ctl.feed

    def counted(data):
        total[0] += len(data)
        feed(data)

    host.ctl.feed = counted
    return total


def test_ping_is_answered_at_any_seq_and_unknown_kinds_are_refused():
    host = Host()
    fed = counting_feed(host)
    host.start()
    host.ctl.feed(p.encode(p.PING, 999, 0, ("abc",)))
    got = host.step(0)
    assert [(f[0], f[3]) for f in got] == [(p.PONG, ["abc", str(fed[0]), "0"])]  # token, bytes read, last done
    seq = host.send("FLY", [1])
    got = host.step()
    assert errors(got) == [p.E_UNKNOWN_KIND] and max(f[2] for f in got) == seq


def test_duplicate_sync_keeps_the_window_and_a_new_token_resets_it():
    host = Host()
    host.ctl.feed(p.encode(p.SYNC, 10, 0, ("tok",)))
    host.seq = 10
    host.step()
    host.send(p.CONFIG, config_fields(5, (1000, 2000, 1500)))  # seq 11
    host.ctl.feed(p.encode(p.SYNC, 10, 0, ("tok",)))  # a late duplicate
    assert host.step()[0][2] == 11
    host.ctl.feed(p.encode(p.SYNC, 500, 0, ("new",)))
    assert host.step()[0][2] == 500 and host.ctl.rx.expected_seq == 501


def test_corrupted_frames_never_move_the_arm_nor_touch_the_queue():
    host = Host()
    host.start()
    host.move(1, 300, 1600)
    host.move(2, 300, 1700)
    host.step()
    rng = Rng(7)
    clean = p.encode(p.MOVE, host.seq + 1, 0, [3, 50] + [1990] * 5)
    for _ in range(300):
        frame = bytearray(clean)
        for _ in range(1 + rng.below(4)):
            frame[rng.below(len(frame) - 1)] ^= 1 << rng.below(8)
        if bytes(frame) != clean:  # two flips of one bit cancel out
            host.ctl.feed(bytes(frame))
    assert host.ctl.reader.frames == 4  # SYNC, CONFIG and the two MOVEs only
    assert host.ctl.last_queued_cmd == 2 and host.ctl.motion.free_slots == 6
    assert done_ids(host.run(700)) == [1, 2] and list(host.ctl.pulses_us) == [1700] * 5


def test_a_failing_servo_hal_latches_internal_instead_of_raising():
    class BrokenServos:
        def set_pulse_us(self, channel, pulse_us):
            raise OSError("I2C bus stuck")

        def release(self, channel):
            raise OSError("I2C bus stuck")

    host = Host(ctl=Controller(BrokenServos(), boot_id="b0071d00"))
    got = host.start()
    assert errors(got) == [p.E_INTERNAL]
    assert host.ctl.faults == ["INTERNAL"] and "I2C" in host.ctl.last_error


def test_a_stalled_loop_slows_motion_instead_of_jumping():
    host = Host()
    host.start()
    host.move(1, 1000, 1900)
    host.step()
    host.ctl.feed(p.encode(p.PING, 0, 0))
    host.step(2000)  # two seconds without a step
    s_max = min_jerk((CONTROL_PERIOD_MS + MAX_STEP_MS) / 1000)
    assert host.ctl.pulses_us[0] <= 1500 + 400 * s_max + 1
    fast = Host(ctl=Controller(FakeServos(), boot_id="b0071d00", max_step_ms=5000, stagger_ms=0))  # a sped-up simulator
    fast.start()
    fast.move(1, 1000, 1900)
    fast.step()
    fast.ctl.feed(p.encode(p.PING, 0, 0))
    assert done_ids(fast.step(2000)) == [1]


def test_a_late_step_advances_motion_by_at_most_two_periods():
    # A step 50 ms after the last (a slow board's overrun) used to advance the pulses 50 ms along the profile at
    # once; a servo at its speed limit cannot follow such a jump and leaves the planned path.
    host = Host()
    host.start()
    host.move(1, 1000, 1900)
    for _ in range(45):
        host.run(CONTROL_PERIOD_MS)
    before_us = host.ctl.pulses_us[0]
    host.ctl.feed(p.encode(p.PING, 0, 0))
    host.step(50)
    peak_us_per_ms = 400 * 1.875 / 1000  # the minimum-jerk profile's top speed is 1.875 times the average
    assert host.ctl.pulses_us[0] - before_us <= 2 * CONTROL_PERIOD_MS * peak_us_per_ms + 1


def test_motion_crosses_the_tick_counter_wrap():
    assert ticks_diff_ms(5, TICKS_PERIOD - 5) == 10 and ticks_diff_ms(TICKS_PERIOD - 5, 5) == -10
    host = Host()
    host.now_ms = TICKS_PERIOD - 60
    host.start()
    host.move(1, 100, 1900)
    got = []
    for _ in range(15):
        host.ctl.feed(p.encode(p.PING, 0, 0))
        host.now_ms = (host.now_ms + CONTROL_PERIOD_MS) % TICKS_PERIOD
        got.extend(host.reader.feed(host.ctl.step(host.now_ms)))
    assert done_ids(got) == [1] and host.ctl.faults == []


def test_the_longest_frames_the_board_can_send_still_fit():
    host = Host(
        ctl=Controller(
            FakeServos(),
            channels=9,
            boot_id="b" * 12,
            reset_cause="r" * 12,
            fw_version="9" * 12,
            grip_sensor=FakeGrip(10**9),
        )
    )
    host.ctl.outputs.written_us[8] = 1500  # the gripper is driven: its current is averaged
    host.now_ms = sample_grip(host.ctl, 0, 40) - 2 - CONTROL_PERIOD_MS  # the step comes with the last sample
    for name in ("COLLISION_OF_THE_ARM", "DROP", "MISSED_PICK", "HOST_LOST", "LIMIT", "INTERNAL"):
        host.ctl.latch_fault(name)
    host.ctl.estop()
    host.ctl.feed(p.encode(p.PING, 0, 0, ["t" * 200]))
    host.ctl.feed(p.encode(p.SYNC, 0, 0, ["s" * 200]))
    got = host.step()
    status = host.status()
    assert kinds(got) == [p.PONG, p.HELLO]  # the SYNC reply stands in for the boot HELLO
    assert got[0][3][0] == "t" * 32 and len(got[0][3]) == 3  # token, rx_count, last_done_cmd
    assert status["mode"] == "ESTOP" and status["grip_raw"] == 65535 and len(status["pulses_us"]) == 9
    assert status["faults"] == "COLLISION_OF_T|DROP|MISSED_PICK|HOST_LOST|ESTOP"
    assert host.ctl.internal_errors == 0 and host.reader.oversized == 0


def test_construction_refuses_names_that_would_not_fit_a_frame():
    for kwargs in ({"boot_id": ""}, {"boot_id": "x" * 13}, {"boot_id": "a,b"}, {"reset_cause": "r*"}):
        args = {"boot_id": "b0071d00"}
        args.update(kwargs)
        try:
            Controller(FakeServos(), **args)
        except ValueError as err:
            assert "expected" in str(err)
        else:
            raise AssertionError(f"accepted {kwargs}")
    for kwargs in ({"channels": 0}, {"channels": 10}, {"queue_depth": 0}):
        try:
            Controller(FakeServos(), boot_id="b0071d00", **kwargs)
        except ValueError as err:
            assert str(next(iter(kwargs.values()))) in str(err)
        else:
            raise AssertionError(f"accepted {kwargs}")


def test_frames_dropped_on_overflow_leave_a_seq_gap_for_the_host():
    host = Host()
    host.step()
    for i in range(MAX_PENDING_FRAMES + 5):
        host.ctl.feed(p.encode(p.PING, 0, 0, [str(i)]))
    got = host.step()
    assert len(got) == MAX_PENDING_FRAMES and host.ctl.tx_dropped == 5
    host.ctl.feed(p.encode(p.PING, 0, 0, ["after"]))
    after = host.step()
    assert after[0][1] == got[-1][1] + 5 + 1  # five seqs were used by the dropped PONGs


def test_a_frame_ahead_of_a_lost_one_is_kept_and_taken_when_the_lost_one_comes_again():
    host = Host()
    fed = counting_feed(host)
    host.start()
    lost = host.seq + 1
    host.seq = lost  # MOVE 1 is lost on the way
    ahead = host.move(2, 20, 1700)
    got = host.step(0)
    assert [(f[0], f[2], p.unpack(f[0], f[3])) for f in got] == [(p.ACK, lost - 1, {"rx_count": fed[0], "held": 1})]
    assert done_ids(host.run(100)) == []  # nothing moves past the gap
    host.send_raw(p.MOVE, lost, [1, 20, 1600, 1600, 1600, 1600, 1600])
    got = host.step(0)
    assert [(f[0], f[2], p.unpack(f[0], f[3])) for f in got] == [(p.ACK, ahead, {"rx_count": fed[0], "held": 0})]
    assert done_ids(host.run(100)) == [1, 2]
    assert host.servos.current == {0: 1700, 1: 1700, 2: 1700, 3: 1700, 4: 1700}


def test_the_board_keeps_at_most_held_frames_and_only_those_close_ahead():
    host = Host()
    host.start()
    lost = host.seq + 1
    host.seq = lost
    for _ in range(HELD_FRAMES + 1):  # one more than it keeps (CLEAR: reliable, and always taken)
        host.send(p.CLEAR)
    got = host.step(0)
    assert p.unpack(p.ACK, got[-1][3])["held"] == (1 << HELD_FRAMES) - 1
    host.send_raw(p.CLEAR, lost)
    got = host.step(0)
    assert got[-1][0] == p.ACK and got[-1][2] == lost + HELD_FRAMES  # the last one kept; the next was not


def test_a_damaged_line_is_answered_with_an_ack_that_says_how_far_the_board_read():
    host = Host()
    fed = counting_feed(host)
    host.ctl.feed(b"MOVE,1,0,garbled*00000000\n")  # before any SYNC: no session, no answer
    assert kinds(host.step(0)) == [p.HELLO]  # the boot's announcement only
    host.start()
    frame = bytearray(p.encode(p.MOVE, host.seq + 1, 0, [1, 20, 1600, 1600, 1600, 1600, 1600]))
    frame[12] ^= 0x04  # one flipped bit: the CRC fails
    host.ctl.feed(bytes(frame))
    got = host.step(0)
    assert [(f[0], f[2], p.unpack(f[0], f[3])) for f in got] == [(p.ACK, host.seq, {"rx_count": fed[0], "held": 0})]


def test_news_of_a_lost_frame_goes_before_the_dones_of_the_same_step():
    host = Host()
    host.start()
    host.move(1, 20, 1600)
    host.step()
    host.seq += 1  # the next MOVE is lost; the one after it comes as MOVE 1 finishes
    host.move(3, 20, 1700)
    assert kinds(host.step()) == [p.ACK, p.DONE]


def test_a_plain_ack_rides_on_a_done_of_the_same_step():
    host = Host()
    host.start()
    host.move(1, 20, 1600)
    host.step()
    seq = host.move(2, 20, 1700)  # taken in order as MOVE 1 finishes: the DONE carries its ack
    got = host.step()
    assert kinds(got) == [p.DONE] and got[0][2] == seq
