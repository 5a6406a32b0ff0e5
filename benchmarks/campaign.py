"""The campaign, by hand: ``.venv/bin/python benchmarks/campaign.py [--worlds N] [--disks D] [--first-seed S]``.

Plays whole runs (``hanoibot.run.runner.Run``, in-process on ``sim://``, virtual time) on N seeded randomized
worlds (``sim://?world=random&seed=S``: calibration, servos, pegs and disks off within their tolerances, see
hanoibot.sim.random_world and docs/margins.md) and reports, over all of them: collisions, drops, other faults,
whether every planned move was made exactly once (the world's own picks and places, in order) and the disks
reached the goal, and the time per move (virtual s) against the nominal world's (the robot exactly as configured,
played in the same run: the baseline). The host plans from the config alone, never from the world,
so the campaign plans each move once and hands the same segments to every world (:func:`plan_once`; the planner's
own cost is benchmarks/motion.py's). Every failing world is listed with its seed:
``--first-seed S --worlds 1`` replays it. Exit status 1 if any world failed.

With ``--stops K`` every world also plays K stops at random moments of a random move of its tower, streamed
segment by segment into the world's board as a host would (:func:`play_stop`): an ESTOP frame (the board holds the
pose at once) or a silent host (the cable pulled, the host killed: the board's watchdog holds the pose). Each is
reported like a run: a collision or a drop while the arm stops is a failure. Recoveries after a stop (resume, home)
and stops by Ctrl-C, kill -9 of a real process, board reset and rail loss are not played here yet: see
benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "host"))

import random

from hanoibot.config import load_config
from hanoibot.motion.segments import segments_for_moves
from hanoibot.planner import make_plan
from hanoibot.puzzle import Move
from hanoibot.puzzle.pegs import peg_index
from hanoibot.run.robot import Robot
from hanoibot.run.runner import Run
from hanoibot.run.sequencer import Phase
from hanoibot.sim.board import SimBoard
from hanoibot.sim.world import make_world
from hanoifw import protocol


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


def play_world(seed: int, n_disks: int, *, speed: float = 1.0, randomized: bool = True) -> WorldResult:
    """One full run of the classic tower of ``n_disks`` on the randomized world of ``seed`` (``speed`` scales its
    servos' top speeds: below 1 they are slower than the config says, outside its tolerances); with
    ``randomized`` False on the nominal world, the robot exactly as configured (the baseline)."""
    plan = make_plan(n_disks)
    world = f"world=random&seed={seed}" if randomized else "world=1"
    url = f"sim://?{world}&board={plan.start.to_string()}&speed={speed}"
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


#: Stops a world may play: the ESTOP frame, or a host that falls silent.
STOPS = ("estop", "silence")
#: Control tick of the simulated board, in s.
TICK_S = 0.01
#: The segments of a move played from the start pose, by (board, move): planned once per process.
_MOVE_SEGMENTS: dict[Any, list[Any]] = {}


class StopResult(NamedTuple):
    """What one stop came to: the world's seed, the stop, the move and when (s into the move), what the world saw."""

    seed: int
    stop: str
    move: int
    at_s: float
    collisions: list[str]
    drops: int
    held: bool

    @property
    def failed(self) -> bool:
        """True if the world saw a collision or a drop while the arm stopped."""
        return bool(self.collisions or self.drops)


def play_stop(seed: int, n_disks: int, index: int) -> StopResult:
    """Stop number ``index`` of the world of ``seed``: a random move of the ``n_disks`` tower played from its
    start pose, stopped at a random moment by a random stop of :data:`STOPS`, then 2 s of the world."""
    rng = random.Random(f"hanoibot-campaign-stop:{seed}:{index}")
    config = load_config()
    plan = make_plan(n_disks)
    moves = list(plan)
    k = rng.randrange(len(moves))
    state = plan.state_at(k)
    key = (state, moves[k])
    if key not in _MOVE_SEGMENTS:  # planned once per process, as in plan_once
        _MOVE_SEGMENTS[key] = next(iter(segments_for_moves(config, state, [moves[k]])))[1]
    segments = _MOVE_SEGMENTS[key]
    stop = rng.choice(STOPS)
    world: Any = make_world(config, state, random_seed=seed)
    board = SimBoard(world=world, max_speed_us_per_s=world.max_speed_us_per_s, servo_traits=world.servo_traits)
    seq = 0

    def send(kind: str, fields: list[Any]) -> None:
        nonlocal seq
        board.feed(protocol.encode(kind, seq, 0, fields))
        board.step()
        if kind not in protocol.IMMEDIATE_KINDS or kind == "SYNC":
            seq += 1

    send("SYNC", ["t"])
    fields: list[int] = []
    speeds = [round(rate) + 1 for rate in config.max_speeds_us_s()]
    for low, high, pulse, speed in zip(
        config.min_pulses_us(), config.max_pulses_us(), config.start_pulses_us(), speeds, strict=True
    ):
        fields += [low, high, pulse, speed]
    send("CONFIG", [*fields, config.gripper.grip_threshold_u16])
    board.run_until(2.0)
    total_s = sum(s.duration_ms for s in segments) / 1000
    at_s = rng.uniform(0, total_s)
    start_s, sent = board.clock.now_s(), 0
    seen = len(world.events)
    while board.clock.now_s() < start_s + at_s and not board.controller.faults:
        while sent < len(segments) and board.controller.motion.free_slots > 4:
            s = segments[sent]
            sent += 1
            send("MOVE", [sent, s.duration_ms, *s.pulses_us, *([] if s.ramp_ms is None else [s.ramp_ms, s.blend_ms])])
        board.feed(protocol.encode("PING", 0, 0, ["hb"]))
        board.run_until(board.clock.now_s() + TICK_S)
    if stop == "estop":
        send("ESTOP", [])
    board.run_until(board.clock.now_s() + 2.0)
    events = world.events[seen:]
    collisions = [f"{e['t_s']:.2f} s: {e['detail']}" for e in events if e.get("fault") == "COLLISION"]
    drops = sum(1 for e in events if e["event"] == "drop")
    return StopResult(seed, stop, k, round(at_s, 3), collisions, drops, world.held_disk is not None)


class Summary(NamedTuple):
    """The campaign's totals."""

    worlds: int
    runs_failed: list[WorldResult]
    collisions: int
    drops: int
    faults: int
    not_exactly_once: int
    seconds_per_move: float
    nominal_seconds_per_move: float
    stops: tuple[StopResult, ...] = ()


def campaign(worlds: int, n_disks: int, first_seed: int = 0, *, speed: float = 1.0, stops: int = 0) -> Summary:
    """Play ``worlds`` randomized worlds (seeds ``first_seed`` on), each whole and then ``stops`` times stopped,
    and sum up what they came to."""
    plan_once()
    seeds = range(first_seed, first_seed + worlds)
    results = [play_world(seed, n_disks, speed=speed) for seed in seeds]
    nominal = play_world(0, n_disks, randomized=False)
    stopped = [play_stop(seed, n_disks, i) for seed in seeds for i in range(stops)]
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
        nominal_seconds_per_move=nominal.seconds_per_move,
        stops=tuple(stopped),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worlds", type=int, default=100, help="randomized worlds to play (default 100)")
    parser.add_argument("--disks", type=int, default=3, help="disks of the classic tower each world plays")
    parser.add_argument("--first-seed", type=int, default=0, help="seed of the first world (the others follow)")
    parser.add_argument("--stops", type=int, default=0, help="stops at random moments per world (default 0)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    summary = campaign(args.worlds, args.disks, args.first_seed, stops=args.stops)
    print(f"{summary.worlds} randomized worlds, {args.disks} disks each, seeds {args.first_seed}..")
    print(f"  collisions {summary.collisions}, drops {summary.drops}, other faults {summary.faults}")
    print(f"  runs not exactly once {summary.not_exactly_once}")
    ratio = summary.seconds_per_move / summary.nominal_seconds_per_move
    print(
        f"  time per move {summary.seconds_per_move:.3f} s (virtual); the nominal world, same run: "
        f"{summary.nominal_seconds_per_move:.3f} s; ratio {ratio:.3f}"
    )
    if summary.stops:
        kinds = ", ".join(f"{k} {sum(1 for r in summary.stops if r.stop == k)}" for k in STOPS)
        print(f"  stops {len(summary.stops)} ({kinds}), {sum(1 for r in summary.stops if r.held)} with a disk held")
        print(f"  stops with a collision or drop {sum(1 for r in summary.stops if r.failed)}")
        for stop in (r for r in summary.stops if r.failed):
            print(f"  FAILED stop: seed {stop.seed} {stop.stop} move {stop.move} at {stop.at_s} s: {stop.collisions}")
    print(f"  wall-clock {time.perf_counter() - started:.1f} s")
    for result in summary.runs_failed:
        faults = f"{result.collisions} drops {result.drops} {result.other_faults}"
        print(f"  FAILED seed {result.seed}: {result.phase} {faults}")
    return 1 if summary.runs_failed or any(r.failed for r in summary.stops) else 0


if __name__ == "__main__":
    sys.exit(main())
