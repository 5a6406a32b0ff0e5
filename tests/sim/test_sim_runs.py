"""Whole simulated runs: planner -> segments -> firmware frames -> the real controller -> virtual servos -> world.

The host side is a miniature of the real one, written here so these runs need nothing from the link layer:
SYNC, CONFIG, MOVE frames encoded with the firmware codec, a PING heartbeat, a small window of queued segments,
and after each grip a STATUS request whose grip width tells whether the pick worked. Then the host's config is
made to disagree with the simulated robot (a servo mounted 10° off, a peg standing 20 mm from where the config
says) and the simulator must catch it as a failed pick or a COLLISION/DROP fault before the run is done.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hanoibot.config import RobotConfig, load_config
from hanoibot.motion.segments import Segment, segments_for_move
from hanoibot.planner import make_plan
from hanoibot.puzzle import Move, State
from hanoibot.sim.board import SimBoard
from hanoibot.sim.sensors import ServoCurrent
from hanoibot.sim.world import SimWorld, make_world
from hanoifw import protocol as p
from hanoifw.rxframe import FrameReader

#: Segments the miniature host keeps queued on the board (the firmware queue holds 8).
WINDOW = 4
#: Simulated time between two heartbeats / looks at the board, in s (the firmware watchdog is 300 ms).
POLL_S = 0.05
CONFIG = load_config()


class MiniHost:
    """Plays moves on a SimBoard through the firmware's own wire format, as the real host would."""

    def __init__(self, board: SimBoard, config: RobotConfig) -> None:
        self.board = board
        self.config = config
        self.seq = 0
        self.cmd_id = 0
        self.reader = FrameReader()
        self._send("SYNC", ["e2-test"])
        speeds_us_s = [math.ceil(rate) + 1 for rate in config.max_speeds_us_s()]
        limits = zip(config.min_pulses_us(), config.max_pulses_us(), config.start_pulses_us(), speeds_us_s, strict=True)
        self._send("CONFIG", [*(value for channel in limits for value in channel), config.gripper.grip_threshold_u16])
        self.pose_us: tuple[int, ...] = config.start_pulses_us()

    def _send(self, kind: str, fields: list[Any]) -> None:
        self.board.feed(p.encode(kind, self.seq, 0, fields))
        self.seq += 1
        self.board.step()

    def status(self) -> dict[str, Any]:
        """A fresh STATUS from the board, by name."""
        self.board.take_output()
        self.board.feed(p.encode("STATUS", 0, 0, []))
        self.board.step()
        frames = [f for f in self.reader.feed(self.board.take_output()) if f[0] == "STATUS"]
        fields = p.unpack("STATUS", frames[-1][3])
        assert fields is not None
        return fields

    def run(self, segments: list[Segment]) -> bool:
        """Execute ``segments`` in order; False as soon as the board latches a fault."""
        first_id = self.cmd_id + 1
        last_id = self.cmd_id + len(segments)
        queued = 0
        while self.board.controller.last_done_cmd < last_id:
            if self.board.controller.faults:
                return False
            while queued < len(segments) and self.cmd_id - self.board.controller.last_done_cmd < WINDOW:
                segment = segments[queued]
                self.cmd_id += 1
                queued += 1
                profile = [] if segment.ramp_ms is None else [segment.ramp_ms, segment.blend_ms]
                self._send("MOVE", [self.cmd_id, segment.duration_ms, *segment.pulses_us, *profile])
            self.board.feed(p.encode("PING", 0, 0, ["hb"]))
            self.board.run_until(self.board.clock.now_s() + POLL_S)
        assert self.board.controller.last_done_cmd == last_id >= first_id
        self.pose_us = segments[-1].pulses_us
        return not self.board.controller.faults

    def play(self, start: State, moves: list[Move]) -> str:
        """Play ``moves`` from ``start``: "done", "failed pick at move K" or "fault NAME at move K"."""
        state = start
        for k, move in enumerate(moves):
            segments = segments_for_move(self.config, state, move, from_pulses_us=self.pose_us)
            phases = [s.phase for s in segments]
            grip_end = len(phases) - phases[::-1].index("grip")  # the grip and its settle hold, as the sequencer
            ok = self.run(segments[:grip_end])
            if ok and self.status()["grip"] == "empty":
                return f"failed pick at move {k}"
            ok = ok and self.run(segments[grip_end:])
            if not ok:
                return f"fault {'|'.join(self.board.controller.faults)} at move {k}"
            state = state.apply(move)
        return "done"


def simulate(n_disks: int, world: SimWorld, host_config: RobotConfig = CONFIG) -> tuple[str, MiniHost]:
    """Solve the classic n-disk puzzle A -> C on a simulated robot ``world``, planned with ``host_config``."""
    board = SimBoard(world=world, max_speed_us_per_s=world.max_speed_us_per_s)
    host = MiniHost(board, host_config)
    outcome = host.play(State.tower(n_disks), list(make_plan(n_disks)))
    return outcome, host


@pytest.mark.parametrize("n_disks", [3, 5, pytest.param(8, marks=pytest.mark.slow)])
def test_a_well_calibrated_robot_solves_the_tower_without_a_fault(n_disks: int) -> None:
    world = make_world(CONFIG, State.tower(n_disks))
    outcome, host = simulate(n_disks, world)
    assert outcome == "done"
    assert world.state == State.tower(n_disks, peg=2)
    assert world.faults() == [] and host.board.controller.faults == []
    picks = [e for e in world.events if e["event"] == "pick"]
    assert len(picks) == 2**n_disks - 1
    assert "missed_pick" not in {e["event"] for e in world.events}


def test_the_grip_sensor_reports_the_held_disk_through_the_firmware_status() -> None:
    world = make_world(CONFIG, State.tower(3))
    board = SimBoard(world=world, max_speed_us_per_s=world.max_speed_us_per_s)
    host = MiniHost(board, CONFIG)
    segments = segments_for_move(CONFIG, State.tower(3), Move(1, 0, 2))
    phases = [s.phase for s in segments]
    grip_end = len(phases) - phases[::-1].index("grip")  # the grip and its settle hold, as the sequencer
    assert host.run(segments[:grip_end])
    held = host.status()
    servo = ServoCurrent()
    # the firmware averages whole frames: the mean current x 0.1 ohm x gain 50 of the ADC's 3.3 V
    stall_a = servo.quiescent_a + servo.stall_peak_a * servo.stall_burst_s / servo.frame_s
    assert held["grip"] == "held" and abs(held["grip_raw"] - stall_a * 5 / 3.3 * 65535) <= 0.03 * 65535
    assert host.run(segments[grip_end:])
    empty = host.status()
    rest_a = servo.quiescent_a + servo.rest_peak_a * servo.rest_burst_s / servo.frame_s
    assert empty["grip"] == "empty" and abs(empty["grip_raw"] - rest_a * 5 / 3.3 * 65535) <= 0.03 * 65535
    assert world.state == State.parse("CAA")


JOINTS = ("base", "shoulder", "elbow", "wrist")


@pytest.mark.parametrize("offset_deg", [10.0, -10.0])
@pytest.mark.parametrize("joint", range(4), ids=JOINTS)
def test_a_servo_mounted_10_degrees_off_is_caught(joint: int, offset_deg: float) -> None:
    offsets = [0.0] * len(CONFIG.servos)
    offsets[joint] = offset_deg
    world = make_world(CONFIG, State.tower(3), servo_offsets_deg=offsets)
    outcome, _ = simulate(3, world)
    assert outcome.startswith(("failed pick", "fault COLLISION", "fault DROP")), outcome
    assert world.state != State.tower(3, peg=2)


@pytest.mark.parametrize("shift_mm", [(20.0, 0.0), (-20.0, 0.0), (0.0, 20.0), (0.0, -20.0)], ids=str)
@pytest.mark.parametrize("peg", range(3), ids=["A", "B", "C"])
def test_a_peg_standing_20_mm_from_its_configured_place_is_caught(peg: int, shift_mm: tuple[float, float]) -> None:
    world = make_world(CONFIG, State.tower(3), peg_offsets_mm={peg: shift_mm})
    outcome, _ = simulate(3, world)
    assert outcome.startswith(("failed pick", "fault COLLISION", "fault DROP")), outcome
    assert world.state != State.tower(3, peg=2)


@pytest.mark.parametrize(
    "options", [{"servo_offsets_deg": (0.2, -0.2, 0.2, -0.2)}, {"peg_offsets_mm": {0: (1.0, -1.0), 2: (-1.0, 1.0)}}]
)
def test_errors_well_inside_the_tolerances_still_solve_the_tower(options: dict[str, Any]) -> None:
    world = make_world(CONFIG, State.tower(3), **options)
    outcome, _ = simulate(3, world)
    assert outcome == "done"
    assert world.state == State.tower(3, peg=2)
