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
reported like a run: a collision or a drop while the arm stops is a failure.

With ``--recoveries K`` every world also plays K whole runs stopped at a random moment and recovered as a user
would (:func:`play_recovery`, :data:`RECOVERIES`), journaled, on the world's own board, each command a process of
its own (its port closed after it): an e-stop (the board's latch) then ``home --clear`` and ``resume``, or
``resume --clear``; Ctrl-C (a pause) answered "continue", or "stop" then ``resume``; kill -9 (the in-process
stand-in: the host's code stops at that moment and never answers again; the board runs on alone for 2 s, its
watchdog holds the arm) then ``resume``; a board reset (the watchdog's reboot: every output off) then ``resume
--board``; a rail loss (the servo supply cut: the board latches POWER_LOST and releases every output; the person
switches it back on) then ``home --clear`` and ``resume --board``, or ``resume --clear --board``. A disk the limp
servos let fall clear of the pegs is put back by the person on the peg it came from (counted as let go, not as a
drop: no board can hold it), and ``--board`` says where the disks are then. Each must end with the disks on the
goal, every planned move made once (a disk put back on the peg it came from is no move), no command run twice,
and no collision or drop.

``--arm PRESET`` (repeatable; ``all``: every shipped preset that is a whole robot config, hanoibot.arm.presets)
and ``--config FILE`` play that arm instead of the default robot (hardware/robot.toml), one after the other on the
same seeds: the host plans with its robot config and the world is built from it, its N servos and pegs off within
that config's own ``[tolerances]`` (sim:// only). Each arm's figures come under its name.

``--outputs pca9685`` (or ``ledc``) puts the sim:// board's servos on that output: every pulse comes out in its
counts (hanoibot.motion.drivers), and a PCA9685 keeps pulsing through a reset.
``--outputs sts`` puts them on a Feetech STS bus instead (``sim://?servo=sts``): they report where they are, and
the grip verdict comes from the gripper's load and position.

Every grip verdict the host acts on (after each pick, in resume, home and a reset board's probe) is judged by the
world (:class:`GripJudge`): ``held`` with nothing in the fingers, or ``empty`` with a disk there, fails the run.

With ``--target vpico`` the worlds are played on the virtual Pico instead (the stock MicroPython rp2 image on an
emulated RP2040, ``vpico://`` on chip time: the same run on any machine), whole runs and recoveries alike
(``--stops`` is sim:// only). The stops are the board's: an ESTOP frame on the wire, Ctrl-C, the host's code
stopped at the end of the chip's run in progress (kill -9), the reset button, the servo supply cut at the rail.
``--rerun K`` plays the same worlds with other draws of the chip's and the link's random numbers (the K-th rerun).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "host"))

import functools
import random
import tempfile

from hanoibot.arm import preset_text
from hanoibot.arm.presets import PRESET_NAMES
from hanoibot.config import RobotConfig, load_config
from hanoibot.errors import BoardReset, ConfigError
from hanoibot.link.status import Grip, Status
from hanoibot.motion.segments import segments_for_moves
from hanoibot.ops.home import home
from hanoibot.ops.ports import offer_port_schemes
from hanoibot.ops.resume import Finished, ResumeRequest, open_resume
from hanoibot.planner import make_plan
from hanoibot.puzzle import Move
from hanoibot.puzzle.pegs import peg_index
from hanoibot.run import grip_check, recovery, release
from hanoibot.run.journal import Journal
from hanoibot.run.robot import Robot
from hanoibot.run.runner import Run
from hanoibot.run.sequencer import Phase, RunState
from hanoibot.sim.board import SimBoard
from hanoibot.sim.bus import FULL_TORQUE, BusSpec
from hanoibot.sim.factory import OUTPUT_DRIVERS
from hanoibot.sim.random_world import make_random_world
from hanoifw import protocol

offer_port_schemes()  # this script opens sim:// and vpico:// itself: it composes the program


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
    grip_verdicts: int = 0
    false_grips: tuple[str, ...] = ()

    @property
    def failed(self) -> bool:
        """True if the world saw a collision, a drop or a fault, a move was not made exactly once, or the host
        acted on a grip verdict the world contradicts."""
        return bool(self.collisions or self.drops or self.other_faults or not self.exactly_once or self.false_grips)


def world_moves(events: list[dict[str, Any]]) -> list[Move] | None:
    """The moves the world saw as pick/place pairs, or None if they do not pair up."""
    moves = moves_and_falls(events)
    return None if moves is None else [move for move, _fell in moves]


def moves_and_falls(events: list[dict[str, Any]]) -> list[tuple[Move, bool]] | None:
    """The moves the world saw as pick/place pairs, each with True if its disk was not placed but fell onto that
    peg from fingers gone limp (a ``limp`` event of the disk just before its place); None if they do not pair up."""
    moves: list[tuple[Move, bool]] = []
    picked: dict[str, Any] | None = None
    limp_disk: int | None = None
    for event in events:
        kind = event.get("event")
        if kind == "limp":
            limp_disk = event["disk"]
        elif kind == "pick":
            if picked is not None:
                return None
            picked = event
        elif kind in ("place", "put_back"):  # a fallen disk put back by the person ends its move
            if picked is None or picked["disk"] != event["disk"]:
                return None
            fell = kind == "place" and limp_disk == event["disk"]
            moves.append((Move(event["disk"], peg_index(picked["peg"]), peg_index(event["peg"])), fell))
            picked, limp_disk = None, None
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


class GripJudge:
    """The host's grip verdicts judged by the world: each verdict it acts on (the grip check after a pick, resume,
    home, a reset board's probe: every one is read by :func:`hanoibot.run.grip_check.read_grip`) against what the
    world's fingers hold at that moment. ``held`` with nothing between them, or ``empty`` with a disk there, is a
    false verdict; ``unknown`` (no verdict: the host reads again or stops) and ``none`` (no sensor) are none."""

    def __init__(self) -> None:
        self.world: Any = None
        self.verdicts = 0
        self.false: list[str] = []

    def watch(self, world: Any) -> None:
        """Judge the verdicts about ``world`` from now on, counted afresh."""
        self.world, self.verdicts, self.false = world, 0, []

    def judge(self, status: Status) -> None:
        """Count ``status``'s grip word if it is a verdict, and keep it if the world says otherwise."""
        world = self.world
        if world is None or status.grip not in (Grip.HELD, Grip.EMPTY):
            return
        self.verdicts += 1
        disk = world.held_disk
        if (status.grip is Grip.HELD) != (disk is not None):
            what = "nothing" if disk is None else f"disk {disk}"
            self.false.append(f"{status.grip} (grip_raw {status.grip_raw}) with {what} in the fingers")


#: The one judge of the process's grip verdicts (:func:`judge_grips` puts it in the host's path).
GRIP_JUDGE = GripJudge()


def judge_grips() -> None:
    """Make every grip verdict the host reads in this process pass :data:`GRIP_JUDGE` (idempotent; a judge that
    another load of this script put there is replaced, not wrapped)."""
    read = grip_check.read_grip
    if getattr(read, "judge", None) is GRIP_JUDGE:
        return
    read = getattr(read, "unjudged", read)

    def judged(*args: Any, **kwargs: Any) -> Status:
        status = read(*args, **kwargs)
        GRIP_JUDGE.judge(status)
        return status

    judged.judge = GRIP_JUDGE  # type: ignore[attr-defined]
    judged.unjudged = read  # type: ignore[attr-defined]
    for module in (grip_check, recovery, release):  # every module that calls it by its own name
        module.read_grip = judged  # type: ignore[attr-defined]


class SimTarget:
    """``sim://``: the firmware core in this process on a virtual clock (a :class:`SimBoard`)."""

    name = "sim"

    def url(self, options: str) -> str:
        return f"sim://?{options}"

    def board(self, robot: Robot) -> Any:
        board = robot.sim_board
        assert board is not None and board.world is not None
        return board

    def world(self, board: Any) -> Any:
        return board.world

    def now_s(self, board: Any) -> float:
        return float(board.clock.now_s())

    def run_for(self, board: Any, duration_s: float) -> None:
        board.run_until(board.clock.now_s() + duration_s)

    def boot_mark(self, board: Any) -> Any:
        """Something that changes when the board reboots."""
        return board.boot_id

    def board_events(self, board: Any) -> list[dict[str, Any]]:
        """The board's own events (``executed`` and ``reset``) so far."""
        return list(board.events)

    def stoppers(self, job: Run, board: Any, world: Any) -> dict[str, Callable[[], None]]:
        """What each stop does at its moment (called between two control ticks of the board)."""

        def die() -> None:
            raise HostDied("the host died")

        return {
            "estop": board.controller.estop,
            "ctrl-c": job.request_pause,
            "kill -9": die,
            "board reset": lambda: board.reset("watchdog"),
            "rail loss": world.cut_servo_power,
        }

    def power_back(self, board: Any, world: Any) -> None:
        """The person switches the servo supply back on."""
        world.cut_servo_power(False)

    def close(self, board: Any) -> None:
        """Nothing to stop: the board lives in the port."""


class PicoTarget(SimTarget):
    """``vpico://``: the virtual Pico (stock MicroPython rp2 image, emulated RP2040) on chip time, in this process.

    Its world's ticks come from the emulator's reader thread, so a stop lands there: an ESTOP frame written onto
    the wire (the board takes it as it takes the host's), a pause asked, the reset button, the rail cut; a killed
    host's code stops when the chip's run in progress ends (:attr:`VirtualPico.after_run`).
    """

    name = "vpico"

    def url(self, options: str) -> str:
        """The chip's own PWM, or its servos on the virtual PCA9685 (``outputs=pca9685``); it has no LEDC."""
        options = options.replace("outputs=pca9685", "servo=pca9685")
        if "outputs=" in options:
            raise ValueError(
                "the virtual Pico drives its servos from its PWM slices or a PCA9685: outputs pwm or pca9685"
            )
        return f"vpico://?{options}"

    def board(self, robot: Robot) -> Any:
        pico = robot.session.port.pico  # type: ignore[attr-defined]
        if not hasattr(pico, "campaign_events"):
            pico.campaign_events = []

            def log(event: dict[str, Any]) -> None:
                if event.get("event") == "executed":
                    pico.campaign_events.append(event)
                elif event.get("event") == "boot":
                    pico.campaign_events.append({**event, "event": "reset"})

            pico.on_event = log
        return pico

    def world(self, board: Any) -> Any:
        return board.world

    def now_s(self, board: Any) -> float:
        return float(board.time_s)

    def run_for(self, board: Any, duration_s: float) -> None:
        board.run_until(board.time_s + duration_s)

    def boot_mark(self, board: Any) -> Any:
        return len(board.boots)

    def board_events(self, board: Any) -> list[dict[str, Any]]:
        return list(board.campaign_events)

    def stoppers(self, job: Run, board: Any, world: Any) -> dict[str, Callable[[], None]]:
        def die() -> None:
            def host_died() -> None:
                board.after_run = None
                raise HostDied("the host died")

            board.after_run = host_died

        return {
            "estop": lambda: board.write(protocol.encode(protocol.ESTOP, 0, 0, [])),
            "ctrl-c": job.request_pause,
            "kill -9": die,
            "board reset": board.press_reset,
            "rail loss": lambda: board.set_rail_powered(False),
        }

    def power_back(self, board: Any, world: Any) -> None:
        board.set_rail_powered(True)

    def close(self, board: Any) -> None:
        board.close()


TARGETS = {"sim": SimTarget(), "vpico": PicoTarget()}
#: The ``--outputs`` word for Feetech STS bus servos (``sim://?servo=sts``): no PWM output at all, each servo says
#: where it is, and the grip verdict comes from the gripper's load and position.
BUS_SERVOS = "sts"


@functools.cache
def robot_config(config: str | None = None) -> RobotConfig:
    """The robot config in the file ``config`` (None: the default robot's, hardware/robot.toml), read once per
    process: the host's plan and the world's build both come from it."""
    return load_config(config)


def world_options(
    seed: int,
    start: str,
    *,
    randomized: bool = True,
    speed: float = 1.0,
    rerun: int = 0,
    outputs: str = "pwm",
    config: str | None = None,
    grip_torque: int | None = None,
) -> str:
    """The URL options of the world of ``seed`` with the disks at ``start`` (``rerun`` > 0: that rerun's draws of
    the chip's and link's random numbers, the world the same; ``outputs``: the servo output of a sim:// board,
    ``pwm``, ``pca9685`` or ``ledc``, whose counts every pulse comes out in, or ``sts``: Feetech bus servos,
    ``servo=sts``, that report their positions and the gripper's load (``grip_torque``: its torque limit, 0.1 % of
    stall, None: the factory's); ``config``: the robot config file the
    world is built from, None for the default robot's)."""
    world = f"world=random&seed={seed}" if randomized else "world=1"
    options = f"{world}&board={start}&speed={speed}"
    if config is not None:
        options += f"&config={config}"
    if outputs == BUS_SERVOS:
        options += "&servo=sts" + ("" if grip_torque is None else f"&grip_torque={grip_torque}")
    elif outputs != "pwm":
        options += f"&outputs={outputs}"
    return options + (f"&rerun={rerun}" if rerun else "")


def play_world(
    seed: int,
    n_disks: int,
    *,
    speed: float = 1.0,
    randomized: bool = True,
    target: SimTarget = TARGETS["sim"],
    rerun: int = 0,
    outputs: str = "pwm",
    config: str | None = None,
    grip_torque: int | None = None,
) -> WorldResult:
    """One full run of the classic tower of ``n_disks`` on the randomized world of ``seed`` (``speed`` scales its
    servos' top speeds: below 1 they are slower than the config says, outside its tolerances); with
    ``randomized`` False on the nominal world, the robot exactly as configured (the baseline). ``config``: the
    robot config file of the arm (None: the default robot)."""
    plan = make_plan(n_disks)
    start = plan.start.to_string()
    options = world_options(
        seed,
        start,
        randomized=randomized,
        speed=speed,
        rerun=rerun,
        outputs=outputs,
        config=config,
        grip_torque=grip_torque,
    )
    robot = Robot(target.url(options), robot_config(config))
    robot.open()
    board = target.board(robot)
    try:
        world: Any = target.world(board)
        GRIP_JUDGE.watch(world)
        job = Run(robot, plan)
        phase = job.start()
        events = list(world.events)
        elapsed_s = target.now_s(board)
    finally:
        verdicts, false_grips = GRIP_JUDGE.verdicts, tuple(GRIP_JUDGE.false)
        GRIP_JUDGE.watch(None)
        robot.close()
        target.close(board)
    faults = [e for e in events if e["event"] == "fault"]
    collisions = [f"{e['t_s']:.2f} s: {e['detail']}" for e in faults if e["fault"] == "COLLISION"]
    drops = sum(1 for e in events if e["event"] == "drop")
    others = [e["fault"] for e in faults if e["fault"] not in ("COLLISION", "DROP")]
    seen = world_moves(events)
    exactly_once = phase is Phase.DONE and seen == list(plan) and world.state == plan.goal
    moves = len(seen or [])
    per_move_s = elapsed_s / max(moves, 1)
    return WorldResult(
        seed, phase.name, collisions, drops, others, exactly_once, moves, per_move_s, verdicts, false_grips
    )


#: Stops a world may play: the ESTOP frame, or a host that falls silent.
STOPS = ("estop", "silence")
#: Control tick of the simulated board, in s.
TICK_S = 0.01
#: The segments of a move played from the start pose, by (robot config, board, move): planned once per process.
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


def play_stop(
    seed: int,
    n_disks: int,
    index: int,
    *,
    outputs: str = "pwm",
    config: str | None = None,
    grip_torque: int | None = None,
) -> StopResult:
    """Stop number ``index`` of the world of ``seed``: a random move of the ``n_disks`` tower played from its
    start pose, stopped at a random moment by a random stop of :data:`STOPS`, then 2 s of the world (its board's
    servo ``outputs`` as :func:`world_options` says; ``config``: the arm's robot config file, None: the default)."""
    rng = random.Random(f"hanoibot-campaign-stop:{seed}:{index}")
    robot = robot_config(config)
    plan = make_plan(n_disks)
    moves = list(plan)
    k = rng.randrange(len(moves))
    state = plan.state_at(k)
    key = (robot, state, moves[k])
    if key not in _MOVE_SEGMENTS:  # planned once per process, as in plan_once
        _MOVE_SEGMENTS[key] = next(iter(segments_for_moves(robot, state, [moves[k]])))[1]
    segments = _MOVE_SEGMENTS[key]
    stop = rng.choice(STOPS)
    world: Any = make_random_world(robot, state, seed)
    bus = None
    if outputs == BUS_SERVOS:
        bus = BusSpec(ids=tuple(range(1, robot.channels + 1)), grip_torque=grip_torque or FULL_TORQUE)
    board = SimBoard(
        world=world,
        max_speed_us_per_s=world.max_speed_us_per_s,
        servo_traits=world.servo_traits,
        servo_driver=None if bus is not None else OUTPUT_DRIVERS[outputs],
        bus=bus,
    )
    seq = 0

    def send(kind: str, fields: list[Any]) -> None:
        nonlocal seq
        board.feed(protocol.encode(kind, seq, 0, fields))
        board.step()
        if kind not in protocol.IMMEDIATE_KINDS or kind == "SYNC":
            seq += 1

    send("SYNC", ["t"])
    fields: list[int] = []
    speeds = [round(rate) + 1 for rate in robot.max_speeds_us_s()]
    for low, high, pulse, speed in zip(
        robot.min_pulses_us(), robot.max_pulses_us(), robot.start_pulses_us(), speeds, strict=True
    ):
        fields += [low, high, pulse, speed]
    send("CONFIG", [*fields, robot.gripper.grip_threshold_u16])
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


#: How a recovered run is stopped and brought back: (stop, recovery). ``--board`` is the board as the person sees
#: it (the world's, after they put a fallen disk back on the peg it was picked from).
RECOVERIES = (
    ("estop", "home --clear, resume"),
    ("estop", "resume --clear"),
    ("ctrl-c", "continue"),
    ("ctrl-c", "stop, resume"),
    ("kill -9", "resume"),
    ("board reset", "resume --board"),
    ("board reset", "home, resume --board"),
    ("rail loss", "home --clear, resume --board"),
    ("rail loss", "resume --clear --board"),
)


class HostDied(Exception):
    """The host's code stops here, as a host killed mid-run would (raised from inside the simulated board's tick)."""


class RecoveryResult(NamedTuple):
    """What one stopped and recovered run came to; ``let_go``: disks the limp servos let fall clear of the pegs
    (a reset or a dead rail with a disk held: no board can keep it, so it counts as no failure), put back by the
    person."""

    seed: int
    stop: str
    recovery: str
    at_s: float
    collisions: list[str]
    drops: int
    exactly_once: bool
    detail: str
    home_said: str = ""
    let_go: int = 0
    held: bool | None = None  # whether the gripper held a disk when the stop came (None: it never came)
    grip_verdicts: int = 0
    false_grips: tuple[str, ...] = ()

    @property
    def failed(self) -> bool:
        """True if the world saw a collision or a drop, the recovered run did not make every move exactly once,
        or a grip verdict the host acted on was false (the world's fingers held otherwise)."""
        return bool(self.collisions or self.drops or not self.exactly_once or self.false_grips)


def real_moves(events: list[dict[str, Any]]) -> list[Move] | None:
    """The moves the world saw (:func:`world_moves`), as the arm made them: a disk the limp fingers let fall onto
    a peg and the move that took it on from there are one move, from where it was first picked to where it was
    put; a disk put back on the peg it was picked from is no move."""
    moves = moves_and_falls(events)
    if moves is None:
        return None
    made: list[Move] = []
    fell_onto: Move | None = None
    for move, fell in moves:
        if fell_onto is not None and move.disk == fell_onto.disk and move.src == fell_onto.dst:
            move = Move(move.disk, fell_onto.src, move.dst)  # the move the reset cut short, finished
        elif fell_onto is not None:
            made.append(fell_onto)  # it fell, and nothing took it on: the world's place stands
        fell_onto = move if fell else None
        if not fell:
            made.append(move)
    if fell_onto is not None:
        made.append(fell_onto)
    return [move for move in made if move.src != move.dst]


def stop_at(
    world: Any, at_s: float, stop: Callable[[], None], *, after_pick: tuple[int, float] | None = None
) -> Callable[[], None]:
    """At simulated time ``at_s`` (s), between two control ticks of the board, call ``stop``; with ``after_pick``
    (k, delay_s) instead ``delay_s`` after the world's k-th pick from now (or at once if the disk was placed
    first). Returns what takes it back (if it has not come yet)."""
    on_tick = world.on_tick
    seen = len(world.events)
    when_s = [at_s if after_pick is None else float("inf")]

    def tick_then_maybe_stop(t_s: float, pulses_us: Any) -> None:
        on_tick(t_s, pulses_us)
        if after_pick is not None and when_s[0] == float("inf"):
            picks = [e for e in world.events[seen:] if e["event"] == "pick"]
            if len(picks) >= after_pick[0]:
                when_s[0] = picks[after_pick[0] - 1]["t_s"] + after_pick[1]
        if t_s >= when_s[0] or (after_pick is not None and when_s[0] < float("inf") and world.held_disk is None):
            world.on_tick = on_tick
            stop()

    world.on_tick = tick_then_maybe_stop

    def disarm() -> None:
        world.on_tick = on_tick

    return disarm


def play_recovery(
    seed: int,
    n_disks: int,
    index: int,
    run_s: float,
    *,
    target: SimTarget = TARGETS["sim"],
    stops: Sequence[str] = (),
    rerun: int = 0,
    mid_carry: bool = False,
    outputs: str = "pwm",
    config: str | None = None,
    grip_torque: int | None = None,
) -> RecoveryResult:
    """Recovered run number ``index`` of the world of ``seed``: stopped at a random moment of its first ``run_s``
    (s, about a whole run's length; with ``mid_carry`` a random moment of a random move's carry: up to
    :data:`CARRY_S` after its pick) by a random stop of :data:`RECOVERIES` (of ``stops`` only, when given) and
    brought back as it says (``config``: the arm's robot config file, None: the default robot)."""
    rng = random.Random(f"hanoibot-campaign-recovery:{seed}:{index}")
    stop, recovery = rng.choice([pair for pair in RECOVERIES if not stops or pair[0] in stops])
    at_s = round(rng.uniform(0.5, run_s), 3)
    after_pick = None
    if mid_carry:
        after_pick = (rng.randint(1, 2**n_disks - 1), round(rng.uniform(0.05, CARRY_S), 3))
    return recover(
        seed,
        n_disks,
        stop,
        recovery,
        at_s,
        target=target,
        rerun=rerun,
        after_pick=after_pick,
        outputs=outputs,
        config=config,
        grip_torque=grip_torque,
    )


#: The longest a stop lands after the pick it follows with ``--mid-carry``, in s: within the shortest carry (lift,
#: travel, lower) of the default robot's moves, about 0.65 s; a stop drawn later than its carry lands as the disk is
#: placed (the result says whether a disk was held).
CARRY_S = 0.6


def no_command_twice(board_events: list[dict[str, Any]]) -> bool:
    """True if the board reported no command id DONE twice within one boot (a reset board counts afresh)."""
    seen: set[int] = set()
    for event in board_events:
        if event["event"] == "reset":
            seen = set()
        elif event["event"] == "executed":
            if event["cmd_id"] in seen:
                return False
            seen.add(event["cmd_id"])
    return True


def put_fallen_disks_back(world: Any, now_s: float) -> None:
    """The person puts each disk that fell clear of the pegs back on the peg it was last picked from."""
    picked_from = {e["disk"]: e["peg"] for e in world.events if e["event"] == "pick"}
    for disk in list(world.disks.loose_disks):
        world.put_back(now_s, disk, peg_index(picked_from[disk]))


def recover(
    seed: int,
    n_disks: int,
    stop: str,
    recovery: str,
    at_s: float,
    *,
    target: SimTarget = TARGETS["sim"],
    rerun: int = 0,
    after_pick: tuple[int, float] | None = None,
    outputs: str = "pwm",
    config: str | None = None,
    grip_torque: int | None = None,
) -> RecoveryResult:
    """The run of the ``n_disks`` tower on the world of ``seed``, stopped by ``stop`` ``at_s`` s after the link
    opened (or, with ``after_pick`` (k, delay_s), that long after the run's k-th pick) and brought back by
    ``recovery`` (one of :data:`RECOVERIES`); what came of it (``config``: the arm's robot config file, None: the
    default robot)."""
    plan = make_plan(n_disks)
    options = world_options(
        seed, plan.start.to_string(), rerun=rerun, outputs=outputs, config=config, grip_torque=grip_torque
    )
    robot = Robot(target.url(options), robot_config(config))
    detail = said = ""
    board: Any = None
    held_at_stop: list[bool] = []
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "run.journal"
        robot.open()
        try:
            board = target.board(robot)
            world: Any = target.world(board)
            GRIP_JUDGE.watch(world)
            with Journal.create(path) as journal:
                job = Run(robot, plan, journal=journal)
                boot = target.boot_mark(board)
                stopper = target.stoppers(job, board, world)[stop]

                def stop_now(stopper: Callable[[], None] = stopper) -> None:
                    held_at_stop.append(world.held_disk is not None)
                    stopper()

                disarm = stop_at(world, target.now_s(board) + at_s, stop_now, after_pick=after_pick)
                try:
                    end: RunState | None = job.start()
                    if end is Phase.PAUSED:  # the operator answers the pause question
                        end = job.go_on() if recovery == "continue" else job.stop()
                except HostDied:
                    end = None
                except BoardReset:  # the command stops with one line saying so
                    end = Phase.FAULT
                finally:
                    disarm()  # a stop that did not come while the run ran does not come at all
            if target.boot_mark(board) != boot:
                robot.session.resync()  # the next command is a new process: it meets the new boot afresh
            if recovery != "continue":
                # Each command is a process of its own: the port closes with the last one (a killed host's too),
                # the board runs on alone while the person looks, powers the rail and puts fallen disks back.
                robot.close()
                target.run_for(board, 2.0)
                target.power_back(board, world)
                put_fallen_disks_back(world, target.now_s(board))
                robot.open()
            if recovery.startswith("home"):
                result = home(robot, clear="--clear" in recovery.split(",")[0], journal_path=path)
                detail, said = result.failed or "", result.put_down
                robot.close()
                robot.open()
            if recovery != "continue":
                # A person says where the disks are (--board) when they all lie on pegs; with one still in the
                # fingers (a PCA9685 keeps pulsing through a reset) there is nothing to say: resume finds it held.
                board_said = "--board" in recovery and world.state is not None
                request = ResumeRequest(
                    path, clear="--clear" in recovery, board=world.state.to_string() if board_said else None
                )
                resumption = open_resume(request, robot=robot)
                if not isinstance(resumption, Finished):
                    with resumption.journal:
                        end = resumption.run().start(**resumption.start_options())
            detail = detail or ("" if end is Phase.DONE or end is None else f"run ended {end.name}")
            events = list(world.events)
            board_events = target.board_events(board)
            once = no_command_twice(board_events) and real_moves(events) == list(plan) and world.state == plan.goal
        except Exception as err:  # a recovery that fails is the campaign's finding, with its seed
            events = [] if board is None else list(target.world(board).events)
            once, detail = False, f"{type(err).__name__}: {err}"
        finally:
            verdicts, false_grips = GRIP_JUDGE.verdicts, tuple(GRIP_JUDGE.false)
            GRIP_JUDGE.watch(None)
            robot.close()
            if board is not None:
                target.close(board)
    faults = [e for e in events if e["event"] == "fault"]
    collisions = [f"{e['t_s']:.2f} s: {e['detail']}" for e in faults if e["fault"] == "COLLISION"]
    limp = {e["disk"] for e in events if e["event"] == "limp"}
    let_go = sum(1 for e in events if e["event"] == "drop" and e["disk"] in limp)
    drops = sum(1 for e in events if e["event"] == "drop") - let_go
    held = held_at_stop[0] if held_at_stop else None
    return RecoveryResult(
        seed, stop, recovery, at_s, collisions, drops, once, detail, said, let_go, held, verdicts, false_grips
    )


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
    recoveries: tuple[RecoveryResult, ...] = ()
    grip_verdicts: int = 0  # the grip verdicts the host acted on, whole runs and recovered runs
    false_grips: int = 0  # of those, the ones the world contradicts


def campaign(
    worlds: int,
    n_disks: int,
    first_seed: int = 0,
    *,
    speed: float = 1.0,
    stops: int = 0,
    recoveries: int = 0,
    target: SimTarget = TARGETS["sim"],
    stop_kinds: Sequence[str] = (),
    rerun: int = 0,
    whole: bool = True,
    mid_carry: bool = False,
    reruns: int = 1,
    outputs: str = "pwm",
    config: str | None = None,
    grip_torque: int | None = None,
) -> Summary:
    """Play ``worlds`` randomized worlds (seeds ``first_seed`` on) on ``target``, each whole (unless ``whole`` is
    False), then ``stops`` times stopped (sim:// only) and ``recoveries`` times stopped (by ``stop_kinds`` only,
    when given) and recovered, and sum up what they came to. ``config`` is the arm's robot config file (a preset
    written out, :func:`preset_config`; None: the default robot, hardware/robot.toml): the worlds are built from it
    within its own ``[tolerances]`` and the host plans with it."""
    plan_once()
    judge_grips()
    seeds = range(first_seed, first_seed + worlds)
    draws = range(rerun, rerun + reruns)  # each world played once per draw of the chip's and link's random numbers
    results = (
        [
            play_world(
                seed,
                n_disks,
                speed=speed,
                target=target,
                rerun=k,
                outputs=outputs,
                config=config,
                grip_torque=grip_torque,
            )
            for seed in seeds
            for k in draws
        ]
        if whole
        else []
    )
    nominal = play_world(0, n_disks, randomized=False, target=target, config=config)
    stopped = [
        play_stop(seed, n_disks, i, outputs=outputs, config=config, grip_torque=grip_torque)
        for seed in seeds
        for i in range(stops)
    ]
    run_s = nominal.seconds_per_move * nominal.moves
    recovered = [
        play_recovery(
            seed,
            n_disks,
            i,
            run_s,
            target=target,
            stops=stop_kinds,
            rerun=rerun,
            mid_carry=mid_carry,
            outputs=outputs,
            config=config,
            grip_torque=grip_torque,
        )
        for seed in seeds
        for i in range(recoveries)
    ]
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
        recoveries=tuple(recovered),
        grip_verdicts=sum(r.grip_verdicts for r in (*results, *recovered)),
        false_grips=sum(len(r.false_grips) for r in (*results, *recovered)),
    )


def preset_config(name: str, folder: Path) -> str:
    """The arm preset ``name`` written into ``folder`` as the robot config file ``hanoibot init --arm NAME`` writes;
    its path. ConfigError naming the preset if it is not a whole robot config (its servos, gripper, motion and
    tolerances) the campaign can play."""
    path = folder / f"{name}.toml"
    path.write_text(preset_text(name), encoding="utf-8")
    try:
        robot_config(str(path))
    except ConfigError as err:
        raise ConfigError(f"arm preset {name!r} is not a whole robot config yet: {err}") from None
    return str(path)


def whole_presets(folder: Path) -> dict[str, str]:
    """Every shipped arm preset that is a whole robot config, by name: the path of its file in ``folder``."""
    found = {}
    for name in PRESET_NAMES:
        try:
            found[name] = preset_config(name, folder)
        except ConfigError:
            continue
    return found


def arms(presets: Sequence[str], configs: Sequence[str], folder: Path) -> dict[str, str | None]:
    """The arms the campaign plays, by label: each preset of ``presets`` (``all``: every whole one) written into
    ``folder``, each robot config file of ``configs``; none named: the default robot (None). ConfigError names a
    preset or file that cannot be played."""
    chosen: dict[str, str | None] = {}
    for name in presets:
        if name == "all":
            chosen.update((f"preset {n}", path) for n, path in whole_presets(folder).items())
        else:
            chosen[f"preset {name}"] = preset_config(name, folder)
    for config in configs:
        robot_config(config)  # read now: a bad file is a one-line error before any world plays
        chosen[f"config {config}"] = config
    return chosen or {"": None}  # the default robot: the report's lines as before arms could be chosen


def report(summary: Summary, args: argparse.Namespace, arm: str) -> None:
    """Print what the campaign on ``arm`` (a label; empty for the default robot) came to."""
    runs = f" ({args.reruns} runs each, reruns {args.rerun}..)" if args.reruns > 1 else ""
    servos = "Feetech STS bus servos" if args.outputs == BUS_SERVOS else f"outputs {args.outputs}"
    if args.grip_torque is not None:
        servos += f", gripper torque limit {args.grip_torque / 10:g} %"
    where = f"{args.target} ({servos})" if args.target == "sim" else args.target
    named = f"{arm}: " if arm else ""
    worlds = f"{summary.worlds} randomized worlds on {where}{runs}"
    print(f"{named}{worlds}, {args.disks} disks each, seeds {args.first_seed}..")
    if not args.no_whole:  # the whole runs' own figures
        print(f"  collisions {summary.collisions}, drops {summary.drops}, other faults {summary.faults}")
        print(f"  runs not exactly once {summary.not_exactly_once}")
        ratio = summary.seconds_per_move / summary.nominal_seconds_per_move
        print(
            f"  time per move {summary.seconds_per_move:.3f} s (virtual); the nominal world, same run: "
            f"{summary.nominal_seconds_per_move:.3f} s; ratio {ratio:.3f}"
        )
    print(f"  grip verdicts {summary.grip_verdicts} (whole and recovered runs), false {summary.false_grips}")
    if summary.stops:
        kinds = ", ".join(f"{k} {sum(1 for r in summary.stops if r.stop == k)}" for k in STOPS)
        print(f"  stops {len(summary.stops)} ({kinds}), {sum(1 for r in summary.stops if r.held)} with a disk held")
        print(f"  stops with a collision or drop {sum(1 for r in summary.stops if r.failed)}")
        for stop in (r for r in summary.stops if r.failed):
            print(f"  FAILED stop: seed {stop.seed} {stop.stop} move {stop.move} at {stop.at_s} s: {stop.collisions}")
    if summary.recoveries:
        done = summary.recoveries
        kinds = ", ".join(
            f"{s} then {r} {sum(1 for x in done if (x.stop, x.recovery) == (s, r))}" for s, r in RECOVERIES
        )
        print(f"  recovered runs {len(done)} ({kinds})")
        failed = sum(1 for x in done if x.failed)
        print(f"  recovered runs with a collision or drop, a false grip verdict, or not every move once {failed}")
        print(f"  disks the limp servos let fall clear of the pegs (reset, rail loss) {sum(x.let_go for x in done)}")
        print(f"  stopped with a disk in the gripper {sum(1 for x in done if x.held)} of {len(done)}")
        for x in (x for x in done if x.failed):
            said = f"{x.collisions} {x.detail} {list(x.false_grips) if x.false_grips else ''}".rstrip()
            print(f"  FAILED recovery: seed {x.seed} {x.stop} at {x.at_s} s, {x.recovery}: {said}")
    for result in summary.runs_failed:
        faults = f"{result.collisions} drops {result.drops} {result.other_faults}"
        if result.false_grips:
            faults += f" false grip verdicts {list(result.false_grips)}"
        print(f"  FAILED seed {result.seed}: {result.phase} {faults}")


def failures(summary: Summary) -> int:
    """How many whole runs, stops and recovered runs of ``summary`` failed."""
    return (
        len(summary.runs_failed)
        + sum(1 for r in summary.stops if r.failed)
        + sum(1 for r in summary.recoveries if r.failed)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worlds", type=int, default=100, help="randomized worlds to play (default 100)")
    parser.add_argument("--disks", type=int, default=3, help="disks of the classic tower each world plays")
    parser.add_argument("--first-seed", type=int, default=0, help="seed of the first world (the others follow)")
    parser.add_argument(
        "--arm",
        action="append",
        default=[],
        choices=[*PRESET_NAMES, "all"],
        metavar="PRESET",
        help=f"play this arm preset ({', '.join(PRESET_NAMES)}, or all: every preset that is a whole robot config; "
        "repeat for several); default: the default robot (hardware/robot.toml)",
    )
    parser.add_argument(
        "--config", action="append", default=[], metavar="FILE", help="play the arm of this robot config file"
    )
    parser.add_argument("--stops", type=int, default=0, help="stops at random moments per world (default 0)")
    parser.add_argument(
        "--recoveries", type=int, default=0, help="runs stopped at random moments and recovered, per world (default 0)"
    )
    parser.add_argument(
        "--target", choices=sorted(TARGETS), default="sim", help="sim (default) or vpico: the virtual Pico, chip time"
    )
    parser.add_argument(
        "--stop",
        action="append",
        default=[],
        choices=sorted({s for s, _ in RECOVERIES}),
        metavar="KIND",
        help="recover only from this stop (repeat for several): estop, ctrl-c, kill -9, board reset, rail loss",
    )
    parser.add_argument("--rerun", type=int, default=0, help="the K-th rerun of the same worlds (other chip draws)")
    parser.add_argument(
        "--reruns", type=int, default=1, help="play each world whole this many times, reruns K, K+1, ... (default 1)"
    )
    parser.add_argument("--no-whole", action="store_true", help="play no whole runs, only the stops and recoveries")
    parser.add_argument(
        "--mid-carry", action="store_true", help="stop each recovered run while it carries a disk (after a pick)"
    )
    parser.add_argument(
        "--outputs",
        choices=[*sorted(OUTPUT_DRIVERS), BUS_SERVOS],
        default="pwm",
        help="the sim:// board's servo outputs, whose counts every pulse comes out in: pwm (an RP2040, 0.31 us, "
        "the default), pca9685 (4.88 us; it also keeps pulsing through a reset), ledc (an ESP32-S3, 2.44 us); "
        "or sts: Feetech STS bus servos (sim://?servo=sts), which report where they are and grip by load",
    )
    parser.add_argument(
        "--grip-torque",
        type=int,
        metavar="N",
        help="with --outputs sts: the gripper servo's torque limit in 0.1 %% of stall (lerobot's SO-101 set-up: 500)",
    )
    args = parser.parse_args(argv)
    if args.stops and args.target != "sim":
        parser.error("--stops plays raw segments into a sim:// board: use --recoveries on the virtual Pico")
    if (args.arm or args.config) and args.target != "sim":
        parser.error("--arm and --config play on sim:// only: the virtual Pico's campaign plays the default robot")
    if args.outputs == BUS_SERVOS and args.target != "sim":
        parser.error("--outputs sts plays on sim:// only (its simulated Feetech bus)")
    if args.grip_torque is not None and (args.outputs != BUS_SERVOS or not 1 <= args.grip_torque <= FULL_TORQUE):
        parser.error(f"--grip-torque {args.grip_torque}: expected 1..{FULL_TORQUE} with --outputs sts")
    started = time.perf_counter()
    failed = 0
    with tempfile.TemporaryDirectory() as folder:
        try:
            chosen = arms(args.arm, args.config, Path(folder))
        except ConfigError as err:
            print(f"campaign: {err}", file=sys.stderr)
            return 2
        for label, config in chosen.items():
            summary = campaign(
                args.worlds,
                args.disks,
                args.first_seed,
                stops=args.stops,
                recoveries=args.recoveries,
                target=TARGETS[args.target],
                stop_kinds=args.stop,
                rerun=args.rerun,
                whole=not args.no_whole,
                mid_carry=args.mid_carry,
                reruns=args.reruns,
                outputs=args.outputs,
                config=config,
                grip_torque=args.grip_torque,
            )
            report(summary, args, label)
            failed += failures(summary)
    print(f"  wall-clock {time.perf_counter() - started:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
