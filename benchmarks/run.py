"""Run benchmark, by hand: ``.venv/bin/python benchmarks/run.py``.

Whole runs of ``hanoibot.runner.Run`` on sim:// (in-process, virtual time), 3 pegs, towers of 6 and 8 disks.
Figures, all measured in this one run:

(a) host CPU time per move in ms: the process CPU time of the run minus the CPU time spent inside the simulated
    board (its ``step``/``run_until``/``feed``, timed around each call); the simulator's own CPU per move is the
    baseline measured alongside, and the ratio host/simulator is printed;
(b) arm idle time between segments as a fraction of motion time, from the simulated servo history: the time
    between the first and the last commanded pulse change in which no channel's commanded pulse changed for more
    than the segment settle time plus one control tick (so the settle at the end of a segment is not idle), over
    the total motion time. The planned holds (a MOVE to the pose the arm is at, after gripper moves and the
    travel: see hanoibot.motion.timing) are commanded stillness, not waiting: their start and end count as
    commanded changes. Target: under 1%.
"""

from __future__ import annotations

import itertools
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "host"))

from hanoibot.config import load_config
from hanoibot.planner import make_plan
from hanoibot.robot import Robot
from hanoibot.runner import Run
from hanoibot.sequencer import Phase
from hanoibot.sim.board import TICK_S, SimBoard

DISKS = (6, 8)


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


def idle_fraction(
    history: list[tuple[float, int, int]], settle_s: float, holds_s: Sequence[tuple[float, float]] = ()
) -> tuple[float, float]:
    """(idle s, motion s) from servo history entries (t_s, channel, pulse_us): gaps with no pulse change
    longer than ``settle_s`` + one tick count as idle beyond that allowance. ``holds_s``: (start, end) times of
    planned holds, whose start and end count as changes."""
    times = sorted({t for t, _, _ in history} | {t for hold in holds_s for t in hold})
    if len(times) < 2:
        return 0.0, 0.0
    allowance_s = settle_s + TICK_S + 1e-9
    idle_s = sum(max(0.0, b - a - allowance_s) for a, b in itertools.pairwise(times))
    return idle_s, times[-1] - times[0]


def bench(n_disks: int, cpu: SimCpu) -> dict[str, float]:
    config = load_config()
    plan = make_plan(n_disks)
    robot = Robot(f"sim://?board={'A' * n_disks}", config)
    robot.open()
    sent: list[tuple[int, tuple[int, ...], int]] = []
    send_move = robot.session.send_move

    def recording_send_move(cmd_id: int, pulses_us: Any, duration_ms: int) -> None:
        sent.append((cmd_id, tuple(pulses_us), duration_ms))
        send_move(cmd_id, pulses_us, duration_ms)

    robot.session.send_move = recording_send_move  # type: ignore[method-assign]
    sim_before = cpu.seconds
    start = time.process_time()
    job = Run(robot, plan)
    assert job.start() is Phase.DONE, job.sequencer.reason
    total_s = time.process_time() - start
    sim_s = cpu.seconds - sim_before
    board = robot.sim_board
    history = [(t, ch, p) for t, ch, p in board.servos.history if p is not None]
    done_s = {e["cmd_id"]: e["t_s"] for e in board.events if e["event"] == "executed"}
    holds_s = [
        (done_s[cmd_id] - duration_ms / 1000.0, done_s[cmd_id])
        for (_, before, _), (cmd_id, pulses, duration_ms) in itertools.pairwise(sent)
        if pulses == before and cmd_id in done_s
    ]
    idle_s, motion_s = idle_fraction(history, config.motion.settle_ms / 1000.0, holds_s)
    assert board.world.state == plan.goal
    robot.close()
    return {
        "moves": plan.length,
        "host_ms_per_move": (total_s - sim_s) / plan.length * 1000,
        "sim_ms_per_move": sim_s / plan.length * 1000,
        "idle_fraction": idle_s / motion_s,
        "motion_s": motion_s,
    }


def main() -> None:
    cpu = SimCpu()
    for name in ("step", "run_until", "feed", "catch_up"):
        if hasattr(SimBoard, name):
            cpu.wrap(name)
    print(f"{'disks':>5} {'moves':>6} {'host ms/move':>13} {'sim ms/move':>12} {'host/sim':>9} {'idle/motion':>12}")
    for n_disks in DISKS:
        r = bench(n_disks, cpu)
        print(
            f"{n_disks:>5} {r['moves']:>6} {r['host_ms_per_move']:>13.2f} {r['sim_ms_per_move']:>12.2f} "
            f"{r['host_ms_per_move'] / r['sim_ms_per_move']:>9.2f} {r['idle_fraction'] * 100:>11.3f}%"
        )


if __name__ == "__main__":
    main()
