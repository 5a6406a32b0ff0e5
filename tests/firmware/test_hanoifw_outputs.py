"""Output safety tests (also run under MicroPython): staggered enable, power loss, RELEASE, speed limits, and
pulses held through an MCU reset."""

from fwfakes import FakeRail, FakeServos, Host, config_fields, done_ids, errors
from hanoifw import protocol as p
from hanoifw.controller import Controller
from hanoifw.outputs import Outputs

STAGGER_MS = 200


class TimedServos(FakeServos):
    """FakeServos that also notes when each call happened, in the virtual time of ``host``."""

    def __init__(self):
        FakeServos.__init__(self)
        self.host = None
        self.timed = []

    def set_pulse_us(self, channel, pulse_us):
        FakeServos.set_pulse_us(self, channel, pulse_us)
        self.timed.append((self.host.now_ms, channel, pulse_us))

    def release(self, channel):
        FakeServos.release(self, channel)
        self.timed.append((self.host.now_ms, channel, None))


def staggered_host(**kwargs):
    servos = TimedServos()
    host = Host(ctl=Controller(servos, boot_id="b0071d00", stagger_ms=STAGGER_MS, **kwargs))
    host.servos = servos
    servos.host = host
    return host


def test_outputs_switch_on_one_at_a_time_light_joints_first_and_motion_waits():
    host = staggered_host()
    host.start()
    host.move(1, 100, 1600)
    got = host.run(1200)
    firsts = []
    for t, ch, _pulse in host.servos.timed:
        if ch not in [c for _, c in firsts]:
            firsts.append((t, ch))
    assert [ch for _, ch in firsts] == [4, 3, 2, 1, 0]  # gripper, wrist, elbow, shoulder, base
    gaps = [firsts[i + 1][0] - firsts[i][0] for i in range(len(firsts) - 1)]
    assert min(gaps) >= STAGGER_MS
    first_move = [t for t, ch, pulse in host.servos.timed if pulse and pulse > 1500]
    assert min(first_move) > firsts[-1][0]  # no channel moves before every channel is on
    assert done_ids(got) == [1]


def test_the_last_channel_switched_on_settles_stagger_ms_before_any_motion():
    # Issue 34 item 5: the motion queued during the enable started one step after the last channel (the base) was
    # switched on, so a base pushed while limp slewed at full speed into the first move, its surge on the others'.
    host = staggered_host()
    host.start()
    host.move(1, 100, 1600)
    got = host.run(1500)
    last_on_ms = max(t for t, ch, pulse in host.servos.timed if ch == 0 and pulse == 1500)
    first_move_ms = min(t for t, ch, pulse in host.servos.timed if pulse and pulse > 1500)
    assert first_move_ms - last_on_ms >= STAGGER_MS
    assert done_ids(got) == [1]


def test_release_during_the_settle_time_ends_it_and_a_new_config_settles_again():
    host = staggered_host()
    host.start()
    host.run(850)  # every channel on (the base at 800 ms), the base still settling
    assert host.ctl.outputs.is_enabling
    host.send(p.RELEASE)
    host.run(20)
    assert not host.ctl.outputs.is_enabling
    host.send(p.CONFIG, config_fields(5))
    host.move(1, 100, 1600)
    host.run(1500)
    ons = [t for t, ch, pulse in host.servos.timed if ch == 0 and pulse == 1500]
    first_move_ms = min(t for t, ch, pulse in host.servos.timed if pulse and pulse > 1500)
    assert first_move_ms - ons[-1] >= STAGGER_MS


def test_enable_order_must_name_every_channel_once():
    for order in ([0, 1, 2, 3], [0, 0, 1, 2, 3], [0, 1, 2, 3, 5]):
        try:
            Outputs(FakeServos(), 5, order=order)
        except ValueError as err:
            assert "enable order" in str(err)
        else:
            raise AssertionError("accepted " + repr(order))


def test_rail_loss_latches_power_lost_releases_every_output_and_needs_clear_and_config():
    rail = FakeRail(True)
    host = Host(rail_sense=rail)
    host.start()
    host.move(1, 1000, 1900)
    host.run(300)
    rail.powered = False
    got = host.step() + host.step()
    assert host.ctl.faults == [] and not [f for f in got if f[0] == p.STATUS], "two low samples are no loss"
    got = host.step()
    assert [f for f in got if f[0] == p.STATUS], "the board tells the host at the third"
    assert host.ctl.faults == ["POWER_LOST"] and host.ctl.mode == "FAULT"
    assert all(host.servos.current[ch] is None for ch in range(5))  # released, not holding
    rail.powered = True
    host.run(300)
    assert all(host.servos.current[ch] is None for ch in range(5))  # nothing slams back when power returns
    status = host.status()
    assert status["rail"] == "on" and status["faults"] == "POWER_LOST" and status["pulses_us"] == [0] * 5
    host.move(2, 100, 1500)
    assert errors(host.step()) == [p.E_FAULTED]
    host.send(p.CLEAR)
    host.step()
    assert host.ctl.mode == "UNCONFIGURED"
    host.send(p.CONFIG, config_fields(5))
    host.step()
    assert all(host.servos.current[ch] == 1500 for ch in range(5))


def test_a_hold_sent_after_a_rail_loss_does_not_stall_the_motion_after_clear_and_config():
    # A host that stops its run on POWER_LOST sends HOLD: the outputs are already off, so there is nothing to hold,
    # and the board must not keep the HOLD hidden (it reports UNCONFIGURED) to stall the first MOVE after CONFIG.
    rail = FakeRail(True)
    host = Host(rail_sense=rail)
    host.start()
    host.move(1, 100, 1600)
    host.run(20)
    rail.powered = False
    for _ in range(3):
        host.step()
    assert host.ctl.faults == ["POWER_LOST"]
    host.send(p.HOLD)
    host.step()
    rail.powered = True
    host.send(p.CLEAR)
    host.step()
    host.send(p.CONFIG, config_fields(5))
    host.run(2000)
    assert host.ctl.mode == "IDLE"
    host.move(2, 100, 1700)
    host.run(300)
    assert host.ctl.mode == "IDLE" and all(host.servos.current[ch] == 1700 for ch in range(5))


def test_a_rail_that_stays_dead_relatches_after_clear():
    rail = FakeRail(False)
    host = Host(rail_sense=rail)
    host.start()
    host.step()
    assert host.ctl.faults == ["POWER_LOST"] and all(pulse is None for _, pulse in host.servos.history)
    host.send(p.CLEAR)
    host.step()
    host.step()
    assert host.ctl.faults == []  # a switch bouncing as power comes back must not re-latch at once
    host.step()
    assert host.ctl.faults == ["POWER_LOST"] and host.status()["rail"] == "off"


def test_a_bouncing_or_sagging_rail_does_not_latch_power_lost():
    rail = FakeRail(True)
    host = Host(rail_sense=rail)
    host.start()
    host.move(1, 1000, 1900)
    for low_steps in (1, 2, 1, 2):  # switch bounce, a sag under a stall: up to two control steps low at a time
        rail.powered = False
        for _ in range(low_steps):
            host.step()
        rail.powered = True
        host.step()
    assert host.ctl.faults == [] and host.ctl.mode == "MOVING"
    assert all(host.servos.current[ch] is not None for ch in range(5)), "nothing released mid-carry"


def test_release_switches_outputs_off_and_a_new_config_switches_them_on_again():
    host = Host()
    host.start()
    host.move(1, 1000, 1900)
    host.step()
    host.send(p.RELEASE)
    assert errors(host.step()) == [p.E_BUSY]  # not while the arm moves
    host.run(1100)
    host.send(p.RELEASE)
    host.step()
    assert all(host.servos.current[ch] is None for ch in range(5)) and host.ctl.mode == "UNCONFIGURED"
    host.move(2, 100, 1500)
    assert errors(host.step()) == [p.E_NOT_CONFIGURED]
    host.send(p.CONFIG, config_fields(5))
    host.step()
    assert all(host.servos.current[ch] == 1500 for ch in range(5))


def test_a_move_faster_than_its_channel_speed_is_refused_and_blocks_later_moves():
    host = Host()
    host.start(limits=(1000, 2000, 1500, 1000))  # 1000 us/s on every channel
    host.move(1, 750, 1900)  # 400 us in 0.75 s: a minimum-jerk peak of 1.875 x 533 us/s, exactly the limit
    host.move(2, 188, 2000)  # 100 us more in 0.188 s: peak 998 us/s, also fine (from 1900, the end of the queue)
    host.move(3, 187, 1900)  # 100 us in 0.187 s: peak 1003 us/s, too fast
    host.move(4, 1000, 1500)
    got = host.run(1200)
    assert done_ids(got) == [1, 2] and errors(got) == [p.E_TOO_FAST, p.E_REJECTED]
    assert host.status()["faults"] == "REJECTED"


def test_pulses_held_through_a_reset_are_reported_and_kept_at_config():
    servos = FakeServos()
    host = Host(ctl=Controller(servos, boot_id="b0071d00", held_us=[1700, 1800, 0, 1600, 1500]))
    assert host.status()["pulses_us"] == [1700, 1800, 0, 1600, 1500] and host.ctl.mode == "UNCONFIGURED"
    host.start()
    assert list(host.ctl.pulses_us) == [1700, 1800, 1500, 1600, 1500]  # only the released channel goes to start
    assert servos.history == [(2, 1500)]
    host.send(p.CONFIG, config_fields(5, (1000, 1750, 1500)))  # channel 1 holds 1800: outside
    assert errors(host.step()) == [p.E_LIMIT]
