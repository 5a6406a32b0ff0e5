"""Run benchmark, by hand: ``.venv/bin/python benchmarks/run.py``.

Whole runs of ``hanoibot.run.runner.Run`` on sim:// (in-process, virtual time), 3 pegs, towers of 6 and 8 disks.
Figures, all measured in this one run:

(a) host CPU time per move in ms: the process CPU time of the run minus the CPU time spent inside the simulated
    board (its ``step``/``run_until``/``feed``/``catch_up``, timed around each call); the simulator's own CPU per
    move is the baseline measured alongside, and the ratio host/simulator is printed;
(b) queue-starved time as a fraction of motion time: the time the board's motion queue held NO segment, between
    the first segment of the run and the last -- the arm waiting for the host. Measured on the board: every MOVE
    its motion queue accepts is recorded with its arrival time (virtual clock, ms) and whether the queue was busy,
    and every controller step time. The firmware's own clock is rebuilt from that: a segment that joins a busy
    queue starts exactly where the one before it ends (``Motion.advance`` carries leftover time over); one that
    arrives at an empty queue starts at the controller's last step. Each ends ``duration_ms`` after its start.
    The rebuild is checked against the board: every segment's ``executed`` (DONE) event must come at the first
    controller step at or after its computed end. Starved time = for each segment that arrived at an empty queue,
    its arrival minus the end of the segment before it. Motion time = end of the last segment minus start of the
    first. Also printed: the least slack, i.e. how long before the firmware needed it a segment that joined a busy
    queue arrived (how much slower the host could be before the queue runs dry). Target: under 1%;
(c) the planned settle holds (a MOVE to the pose the arm is already at, see hanoibot.motion.timing) as a fraction
    of motion time: commanded stillness, part of the motion plan, reported apart from (b);
(d) for comparison only, the gap read from the board's event log alone (each segment's DONE time minus its
    duration, minus the previous DONE time; the positive ones summed), with the largest such gap and the largest
    delay of a DONE after its segment's computed end. DONEs are stamped at controller steps (every 10 ms), so this
    figure is made of stamping delays, not waiting.
A control run with the host made slow (it loses ``SLOW_HOST`` ms of virtual time before each MOVE) shows that (b)
does see a host that is late.

Then a host ``SLOW_FACTOR`` (20) times slower at planning: every call of the motion planner costs that many times
its CPU time (the calling thread's) in virtual time. A call on the main thread (planning a move when it is needed)
holds the host there: the board runs on meanwhile, nothing is sent. A move planned ahead in the background
(hanoibot.run.lookahead.Lookahead) is ready that long after it was started, or after the plan it starts from was
ready: when the main thread takes it earlier, it waits for it, the board running on. (It is planned at once, in
virtual time that stands still, so that its CPU time is measured without the simulated board, which a real host
does not run, competing for the interpreter.) Once with planning ahead (the default) and once without it
(``SegmentSource.lookahead = None``): (b) for both, every move run once (the board ends on the goal), no fault.
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "host"))

from hanoibot.config import load_config
from hanoibot.ops.ports import offer_port_schemes
from hanoibot.planner import make_plan
from hanoibot.puzzle import Move, State
from hanoibot.run.robot import Robot
from hanoibot.run.runner import Run
from hanoibot.run.segment_queue import Lookahead, SegmentsFor, SegmentSource
from hanoibot.run.sequencer import Phase
from hanoibot.sim.board import SimBoard

offer_port_schemes()  # this script opens sim:// and vpico:// itself: it composes the program

DISKS = (6, 8)
#: Control run: (disks, ms of virtual time the host loses before each MOVE), to show that (b) sees a slow host.
SLOW_HOST = (6, 150)
#: A host this many times slower at planning (virtual time per CPU second of the motion planner), on 6 disks.
SLOW_FACTOR = 20


class SimCpu:
    """CPU seconds spent inside SimBoard methods (the simulated board, not the host)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._depth = 0

    def wrap(self, name: str) -> None:
        original = getattr(SimBoard, name)

        def timed(board: SimBoard, *args: Any, **kwargs: Any) -> Any:
            self._depth += 1
            start = time.process_time()
            try:
                return original(board, *args, **kwargs)
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self.seconds += time.process_time() - start

        setattr(SimBoard, name, timed)


class Push(NamedTuple):
    """One MOVE accepted by the firmware's motion queue."""

    cmd_id: int
    duration_ms: int
    queue_busy: bool  # a segment was executing or queued when this one arrived
    last_step_ms: int  # the controller's last step time when this one arrived
    arrived_ms: float  # the board clock when this one arrived
    ramp_ms: int = -1  # trapezoidal ramp (-1: minimum jerk)
    blend_ms: int = 0  # how long it may overlap the segment before it


class Segment(NamedTuple):
    """One segment on the firmware's own clock, in ms of virtual time."""

    cmd_id: int
    start_ms: int
    end_ms: int


class QueueProbe:
    """Records, on the simulated board, the segments its motion queue accepts and the times of controller steps."""

    def __init__(self, board: SimBoard) -> None:
        self.pushes: list[Push] = []
        self.step_times_ms: list[int] = []
        self.step_clock_s: dict[int, float] = {}  # the board clock (s) at the first step of each ms
        controller = board.controller
        motion = controller.motion
        push = motion.push
        step = controller.step

        def recording_push(
            cmd_id: int, duration_ms: int, targets_us: list[int], ramp_ms: int = -1, blend_ms: int = 0
        ) -> bool:
            busy = motion.is_busy
            accepted: bool = push(cmd_id, duration_ms, targets_us, ramp_ms, blend_ms)
            if accepted:
                # The firmware's own note of its last step: steps before this probe was fitted count too.
                last_ms = controller._last_step_ms
                last_step_ms = 0 if last_ms is None else last_ms
                now_ms = board.clock.now_s() * 1000
                self.pushes.append(Push(cmd_id, duration_ms, busy, last_step_ms, now_ms, ramp_ms, blend_ms))
            return accepted

        def recording_step(now_ms: int) -> bytes:
            self.step_times_ms.append(now_ms)
            self.step_clock_s.setdefault(now_ms, round(board.clock.now_s(), 6))
            out: bytes = step(now_ms)
            return out

        motion.push = recording_push
        controller.step = recording_step

    def segments(self, first_done_s: float) -> list[Segment]:
        """Start and end of every accepted segment on the firmware's clock (carry-over, blend or last-step start).

        The first one (the move home) ends at the step of its DONE (``first_done_s``, board clock): it waits for the
        staggered switch-on of the servo outputs after CONFIG, which the queue alone does not show."""
        first_end_ms = min(ms for ms, t_s in self.step_clock_s.items() if t_s >= first_done_s)
        segments: list[Segment] = []
        for before, push in zip([None, *self.pushes], self.pushes, strict=False):
            start_ms = push.last_step_ms if segments else first_end_ms - push.duration_ms
            if push.queue_busy and segments and before is not None:
                blend_ms = overlap_ms(before, push)
                if push.last_step_ms - segments[-1].start_ms > before.duration_ms - blend_ms:
                    blend_ms = 0  # it came after the blend would have begun: the firmware runs it after the other
                start_ms = segments[-1].end_ms - blend_ms
            segments.append(Segment(push.cmd_id, start_ms, start_ms + push.duration_ms))
        return segments

    def done_ms(self, done_s: dict[int, float], segments: Sequence[Segment]) -> dict[int, int]:
        """The firmware step (ms) of each segment's DONE, checked: it must be the first controller step at or after
        the segment's computed end, and the board's ``executed`` event (``done_s``, s) must carry that step's time.
        """
        steps = sorted(set(self.step_times_ms))
        done_ms = {}
        for seg in segments:
            expected_ms = steps[bisect.bisect_left(steps, seg.end_ms)]
            assert done_s[seg.cmd_id] == self.step_clock_s[expected_ms], (seg, done_s[seg.cmd_id], expected_ms)
            done_ms[seg.cmd_id] = expected_ms
        return done_ms


def overlap_ms(before: Push, after: Push) -> int:
    """How long ``after`` runs together with ``before`` when it was queued in time: the firmware's blend, the
    smallest of its ``blend_ms`` and both ramps when both are trapezoidal (hanoifw/motion.py)."""
    if before.ramp_ms < 0 or after.ramp_ms < 0:
        return 0
    return min(after.blend_ms, before.ramp_ms, after.ramp_ms)


def min_slack_ms(pushes: Sequence[Push], segments: Sequence[Segment]) -> float:
    """The least time in ms by which a segment that joined a busy queue arrived before the firmware started it:
    how much later the host could have sent it without the queue running dry."""
    return min(seg.start_ms - push.arrived_ms for push, seg in zip(pushes, segments, strict=True) if push.queue_busy)


def starved_ms(pushes: Sequence[Push], segments: Sequence[Segment]) -> tuple[float, list[tuple[int, float]]]:
    """(total ms with no segment executing between the first segment and the last, [(cmd_id after the gap, ms)]).

    The queue is empty only before a segment that arrived at an idle queue: from the end of the segment before it
    to its arrival. (The firmware then counts the new segment from its last step, up to one tick before the
    arrival, so the arm's schedule loses only the whole ticks of such a gap; this counts all of it.)
    """
    gaps = [
        (push.cmd_id, push.arrived_ms - before.end_ms)
        for push, before in zip(pushes[1:], segments, strict=False)
        if not push.queue_busy
    ]
    return sum(gap for _, gap in gaps), gaps


def done_log_gaps_ms(segments: Sequence[Segment], done_ms: dict[int, int]) -> list[int]:
    """The gaps as read from DONE times alone: (DONE - duration) minus the previous DONE, the positive ones, in ms."""
    gaps = (done_ms[b.cmd_id] - (b.end_ms - b.start_ms) - done_ms[a.cmd_id] for a, b in itertools.pairwise(segments))
    return [gap for gap in gaps if gap > 0]


def slow_planning(board: SimBoard, source: SegmentSource, factor: int, *, ahead: bool) -> None:
    """Make the host ``factor`` times slower at planning (see the module's docstring), planning ahead or not."""
    plan = source.segments_for

    def held(*args: Any) -> Any:
        begin = time.thread_time()
        segments = plan(*args)
        if threading.current_thread() is threading.main_thread():
            board.run_until(board.clock.now_s() + factor * (time.thread_time() - begin))
        return segments

    class SlowLookahead(Lookahead):
        """Ready ``factor`` times its planning CPU time (virtual) after it was started, or after the plan it
        starts from was ready. Planned at once on the main thread, where virtual time stands still: its CPU time
        is then measured without the simulated board (which a real host does not run) competing for the GIL."""

        background = False

        def __init__(self, segments_for: SegmentsFor, state: State, move: Move, start: Any) -> None:
            self.started_s = board.clock.now_s()
            self.cpu_s = 0.0

            def measured(*args: Any) -> Any:  # the motion planner itself, not ``held``: charged when taken
                begin = time.thread_time()
                try:
                    return plan(*args)
                finally:
                    self.cpu_s = time.thread_time() - begin

            super().__init__(measured, state, move, start)

        def ready_s(self) -> float:
            self.wait()
            after = self.start.ready_s() if isinstance(self.start, SlowLookahead) else self.started_s
            return max(self.started_s, after) + factor * self.cpu_s

        def ready(self, timeout_s: float) -> bool:
            """Done once the virtual clock reaches :meth:`ready_s`; waiting runs the board up to ``timeout_s``
            of virtual time toward it (the run serves its link between such waits, as on a real host)."""
            ready_s = self.ready_s()
            if board.clock.now_s() < ready_s:
                board.run_until(min(ready_s, board.clock.now_s() + timeout_s))
            return board.clock.now_s() >= ready_s

        def result(self) -> Any:
            segments = super().result()
            ready_s = self.ready_s()
            if board.clock.now_s() < ready_s:
                board.run_until(ready_s)
            return segments

    source.segments_for = held
    source.lookahead = SlowLookahead if ahead else None


def bench(
    n_disks: int, cpu: SimCpu, host_delay_ms: int = 0, slow_factor: int = 0, ahead: bool = True
) -> dict[str, Any]:
    """Run the classic plan of ``n_disks`` on sim:// and measure (a) to (d); ``host_delay_ms`` slows the host's
    sending, ``slow_factor`` its planning (planning ``ahead`` or not)."""
    config = load_config()
    plan = make_plan(n_disks)
    robot = Robot(f"sim://?board={'A' * n_disks}", config)
    robot.open()
    board = robot.sim_board
    probe = QueueProbe(board)
    sent: dict[int, tuple[int, ...]] = {}
    send_move = robot.session.send_move

    def recording_send_move(
        cmd_id: int, pulses_us: Any, duration_ms: int, *, ramp_ms: int | None = None, blend_ms: int = 0
    ) -> None:
        sent[cmd_id] = tuple(pulses_us)
        if host_delay_ms:
            board.run_until(board.clock.now_s() + host_delay_ms / 1000)
        send_move(cmd_id, pulses_us, duration_ms, ramp_ms=ramp_ms, blend_ms=blend_ms)

    robot.session.send_move = recording_send_move
    sim_before = cpu.seconds
    start = time.process_time()
    job = Run(robot, plan)
    if slow_factor:
        slow_planning(board, job.sequencer.source, slow_factor, ahead=ahead)
    elif not ahead:
        job.sequencer.source.lookahead = None
    assert job.start() is Phase.DONE, job.sequencer.reason
    total_s = time.process_time() - start
    sim_s = cpu.seconds - sim_before
    assert board.world.state == plan.goal
    assert not [e for e in board.events if e["event"] == "fault"], "no fault"
    assert job.sequencer.moves_done == plan.length, "every move run"
    done_s = {e["cmd_id"]: e["t_s"] for e in board.events if e["event"] == "executed"}
    segments = probe.segments(done_s[probe.pushes[0].cmd_id])
    assert [s.cmd_id for s in segments] == list(done_s), "every accepted segment DONE once, in order"
    done_ms = probe.done_ms(done_s, segments)
    motion_ms = segments[-1].end_ms - segments[0].start_ms
    starved, gaps = starved_ms(probe.pushes, segments)
    holds_ms = sum(b.end_ms - b.start_ms for a, b in itertools.pairwise(segments) if sent[a.cmd_id] == sent[b.cmd_id])
    log_gaps = done_log_gaps_ms(segments, done_ms)
    robot.close()
    return {
        "moves": plan.length,
        "segments": len(segments),
        "host_ms_per_move": (total_s - sim_s) / plan.length * 1000,
        "sim_ms_per_move": sim_s / plan.length * 1000,
        "motion_s": motion_ms / 1000,
        "starved_fraction": starved / motion_ms,
        "gaps": gaps,
        "min_slack_ms": min_slack_ms(probe.pushes, segments),
        "holds_fraction": holds_ms / motion_ms,
        "done_log_fraction": sum(log_gaps) / motion_ms,
        "done_log_max_ms": max(log_gaps, default=0),
        "stamp_delay_max_ms": max(done_ms[s.cmd_id] - s.end_ms for s in segments),
    }


def main(slow_factor: int = SLOW_FACTOR, only_slow: bool = False) -> None:
    cpu = SimCpu()
    for name in ("step", "run_until", "feed", "catch_up"):
        cpu.wrap(name)
    print(
        f"{'disks':>5} {'moves':>6} {'segments':>9} {'host ms/move':>13} {'sim ms/move':>12} {'host/sim':>9} "
        f"{'motion s':>9} {'starved':>8} {'gaps':>5} {'min slack':>10} {'holds':>7} "
        f"{'DONE-log gap':>13} {'max':>4} {'DONE late max':>14}"
    )
    runs = [] if only_slow else [(n_disks, 0, 0, True) for n_disks in DISKS] + [(*SLOW_HOST, 0, True)]
    runs += [(SLOW_HOST[0], 0, slow_factor, True), (SLOW_HOST[0], 0, slow_factor, False)]
    for n_disks, host_delay_ms, slow_factor, ahead in runs:
        r = bench(n_disks, cpu, host_delay_ms, slow_factor, ahead)
        if host_delay_ms:
            print(f"control: the host loses {host_delay_ms} ms of virtual time before each MOVE")
        if slow_factor:
            how = "planning ahead (the default)" if ahead else "planning each move when it is needed"
            print(f"a host {slow_factor}x slower at planning, {how}")
        print(
            f"{n_disks:>5} {r['moves']:>6} {r['segments']:>9} {r['host_ms_per_move']:>13.2f} "
            f"{r['sim_ms_per_move']:>12.2f} {r['host_ms_per_move'] / r['sim_ms_per_move']:>9.2f} "
            f"{r['motion_s']:>9.2f} {r['starved_fraction'] * 100:>7.3f}% {len(r['gaps']):>5} "
            f"{r['min_slack_ms']:>7.1f} ms "
            f"{r['holds_fraction'] * 100:>6.2f}% {r['done_log_fraction'] * 100:>12.3f}% "
            f"{r['done_log_max_ms']:>4} {r['stamp_delay_max_ms']:>11} ms"
        )
        if r["gaps"]:
            shown = ", ".join(f"{cmd_id}: {gap_ms:.1f}" for cmd_id, gap_ms in r["gaps"][:10])
            print(f"      starved gaps (cmd_id after the gap: ms): {shown}{' ...' if len(r['gaps']) > 10 else ''}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--slow-factor", type=int, default=SLOW_FACTOR, help="how much slower the slow host plans")
    parser.add_argument("--only-slow", action="store_true", help="only the runs of the slow host")
    args = parser.parse_args()
    main(args.slow_factor, args.only_slow)
