"""The campaign, by hand: ``.venv/bin/python benchmarks/campaign.py [--worlds N] [--disks D] [--first-seed S]``.

Plays whole runs (``hanoibot.run.runner.Run``, in-process on ``sim://``, virtual time) on N seeded randomized
worlds (``sim://?world=random&seed=S``: calibration, servos, pegs and disks off within their tolerances, see
hanoibot.sim.random_world and docs/margins.md) and reports, over all of them: collisions, drops, other faults,
whether every planned move was made exactly once (the world's own picks and places, in order) and the disks
reached the goal, and the time per move (virtual s). The host plans from the config alone, never from the world,
so the campaign plans each move once and hands the same segments to every world (:func:`plan_once`; the planner's
own cost is benchmarks/motion.py's). Every failing world is listed with its seed:
``--first-seed S --worlds 1`` replays it. Exit status 1 if any world failed.

Stops at random moments (e-stop, Ctrl-C, kill -9, board reset, rail loss) with recoveries are not played yet:
see benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "host"))

from hanoibot.config import load_config
from hanoibot.planner import make_plan
from hanoibot.puzzle import Move
from hanoibot.puzzle.pegs import peg_index
from hanoibot.run.robot import Robot
from hanoibot.run.runner import Run
from hanoibot.run.sequencer import Phase


class WorldResult(NamedTuple):
    """What one randomized world's run came to."""

    seed: int
    phase: str
    collisions: list[str]
    drops: int
    other_faults: list[str]
    exactly_once: bool
    moves: int
    seconds_per_move: float

    @property
    def failed(self) -> bool:
        """True if the world saw a collision, a drop or a fault, or a move was not made exactly once."""
        return bool(self.collisions or self.drops or self.other_faults or not self.exactly_once)


def world_moves(events: list[dict[str, Any]]) -> list[Move] | None:
    """The moves the world saw as pick/place pairs, or None if they do not pair up."""
    moves: list[Move] = []
    picked: dict[str, Any] | None = None
    for event in events:
        if event.get("event") == "pick":
            if picked is not None:
                return None
            picked = event
        elif event.get("event") == "place":
            if picked is None or picked["disk"] != event["disk"]:
                return None
            moves.append(Move(event["disk"], peg_index(picked["peg"]), peg_index(event["peg"])))
            picked = None
    return moves if picked is None else None


def plan_once() -> None:
    """Make ``Robot.segments_for`` remember its answers in this process: the same config, board, move, pose and
    previous segments give the same segments, whichever world runs them."""
    if getattr(Robot.segments_for, "is_memo", False):
        return
    plan = Robot.segments_for
    memo: dict[Any, list[Any]] = {}

    def segments_for(
        robot: Robot, state: Any, move: Move, from_pulses_us: Any = None, previous: Sequence[Any] = ()
    ) -> list[Any]:
        key = (robot.config, state, move, from_pulses_us, tuple(previous))
        if key not in memo:
            memo[key] = plan(robot, state, move, from_pulses_us, previous)
        return list(memo[key])

    segments_for.is_memo = True  # type: ignore[attr-defined]
    Robot.segments_for = segments_for  # type: ignore[method-assign]


def play_world(seed: int, n_disks: int, *, speed: float = 1.0) -> WorldResult:
    """One full run of the classic tower of ``n_disks`` on the randomized world of ``seed`` (``speed`` scales its
    servos' top speeds: below 1 they are slower than the config says, outside its tolerances)."""
    plan = make_plan(n_disks)
    url = f"sim://?world=random&seed={seed}&board={plan.start.to_string()}&speed={speed}"
    robot = Robot(url, load_config())
    robot.open()
    try:
        job = Run(robot, plan)
        phase = job.start()
        board = robot.sim_board
        assert board is not None and board.world is not None
        world: Any = board.world
        events = list(world.events)
        elapsed_s = board.clock.now_s()
    finally:
        robot.close()
    faults = [e for e in events if e["event"] == "fault"]
    collisions = [f"{e['t_s']:.2f} s: {e['detail']}" for e in faults if e["fault"] == "COLLISION"]
    drops = sum(1 for e in events if e["event"] == "drop")
    others = [e["fault"] for e in faults if e["fault"] not in ("COLLISION", "DROP")]
    seen = world_moves(events)
    exactly_once = phase is Phase.DONE and seen == list(plan) and world.state == plan.goal
    moves = len(seen or [])
    return WorldResult(seed, phase.name, collisions, drops, others, exactly_once, moves, elapsed_s / max(moves, 1))


class Summary(NamedTuple):
    """The campaign's totals."""

    worlds: int
    runs_failed: list[WorldResult]
    collisions: int
    drops: int
    faults: int
    not_exactly_once: int
    seconds_per_move: float


def campaign(worlds: int, n_disks: int, first_seed: int = 0, *, speed: float = 1.0) -> Summary:
    """Play ``worlds`` randomized worlds (seeds ``first_seed`` on) and sum up what they came to."""
    plan_once()
    results = [play_world(seed, n_disks, speed=speed) for seed in range(first_seed, first_seed + worlds)]
    moves = sum(r.moves for r in results)
    seconds = sum(r.seconds_per_move * r.moves for r in results)
    return Summary(
        worlds=worlds,
        runs_failed=[r for r in results if r.failed],
        collisions=sum(len(r.collisions) for r in results),
        drops=sum(r.drops for r in results),
        faults=sum(len(r.other_faults) for r in results),
        not_exactly_once=sum(1 for r in results if not r.exactly_once),
        seconds_per_move=seconds / max(moves, 1),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worlds", type=int, default=100, help="randomized worlds to play (default 100)")
    parser.add_argument("--disks", type=int, default=3, help="disks of the classic tower each world plays")
    parser.add_argument("--first-seed", type=int, default=0, help="seed of the first world (the others follow)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    summary = campaign(args.worlds, args.disks, args.first_seed)
    print(f"{summary.worlds} randomized worlds, {args.disks} disks each, seeds {args.first_seed}..")
    print(f"  collisions {summary.collisions}, drops {summary.drops}, other faults {summary.faults}")
    print(f"  runs not exactly once {summary.not_exactly_once}")
    print(f"  time per move {summary.seconds_per_move:.3f} s (virtual)")
    print(f"  wall-clock {time.perf_counter() - started:.1f} s")
    for result in summary.runs_failed:
        faults = f"{result.collisions} drops {result.drops} {result.other_faults}"
        print(f"  FAILED seed {result.seed}: {result.phase} {faults}")
    return 1 if summary.runs_failed else 0


if __name__ == "__main__":
    sys.exit(main())
