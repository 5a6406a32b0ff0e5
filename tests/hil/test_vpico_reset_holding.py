"""The virtual Pico reset while the gripper holds a lifted disk: the stock MicroPython image reboots and every GPIO
PWM output stops, so the limp gripper lets the disk go: still threaded on its peg, it slides back down it (put down,
never dropped), and the gripper's current sensor reads nothing. ``resume`` must not take that silence for a
verdict, nor open the fingers: it drives the gripper CLOSED first, reads "empty", and replans from the board the
operator confirms."""

from __future__ import annotations

from pathlib import Path

import pytest
from hanoibot.config import load_config
from hanoibot.motion.phases import MotionPhase
from hanoibot.planner import make_plan
from hanoibot.run.journal import Journal, load_journal
from hanoibot.run.recovery import resume_after_reset
from hanoibot.run.robot import Robot
from hanoibot.run.runner import plan_spec
from vpico_checks import run_chip_until, vpico_url

pytestmark = [pytest.mark.slow, pytest.mark.vpico]


def test_a_reset_while_a_disk_is_held_lets_it_go_and_resume_closes_the_gripper_first(tmp_path: Path) -> None:
    config = load_config()
    plan = make_plan(1)
    move = plan.move_at(0)
    with Robot(vpico_url(board="A", speed=20), config) as robot:
        robot.open()
        pico = robot.session.port.pico  # type: ignore[union-attr]
        world = pico.world
        robot.session.configure(*robot.limits())
        home = robot.home_segment()
        segments = [home, *robot.segments_for(plan.start, move, tuple(home.pulses_us))]
        lift = max(i for i, s in enumerate(segments) if s.phase == MotionPhase.LIFT)
        path = tmp_path / "run.journal"
        with Journal.create(path) as journal:
            journal.record_plan(plan_spec(plan), config_hash=config.config_hash, boot_id=robot.boot_id)
            journal.record_send(0, move, 2, len(segments), [s.phase for s in segments[1:]])
            for cmd_id, segment in enumerate(segments[: lift + 1], start=1):
                robot.session.send_move(
                    cmd_id, list(segment.pulses_us), segment.duration_ms, ramp_ms=segment.ramp_ms, blend_ms=0
                )
                robot.session.wait_done(cmd_id, timeout_s=120)
        assert world.held_disk == move.disk, "the pick worked: the disk is lifted"
        events_before = len(world.events)
        pico.press_reset()
        run_chip_until(pico, lambda: len(pico.boots) >= 2, 5.0, "a reboot")
        pico.wait_for_output(b"HELLO")  # the fresh boot's firmware is up
        robot.session.resync()
        assert robot.session.status().grip == "unknown", "a limp gripper draws no current: no verdict"
        assert world.held_disk is None, "the limp gripper let the disk go"
        let_go = [(e["event"], e["disk"], e.get("peg")) for e in world.events[events_before:]]
        # Lifted but still threaded on its peg, the disk slides back down it: put down, never dropped.
        assert let_go == [("limp", move.disk, None), ("place", move.disk, "A")], let_go
        confirmed = world.state
        assert confirmed is not None
        history_before = len(pico.servos.history)
        log = load_journal(path)
        point = resume_after_reset(log, plan, robot, confirmed)
        assert (point.first_k, point.board_state, point.same_boot) == (0, confirmed, False)
        gripper = [pulse for _t, ch, pulse in pico.servos.history[history_before:] if ch == 4 and pulse is not None]
        assert gripper and min(gripper) >= config.gripper.closed_us - 2, "driven closed, never opened"
        assert robot.session.status().grip == "empty", "the closed gripper reads empty: nothing is held"
