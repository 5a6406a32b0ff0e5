"""Going home from anywhere: an e-stop at a random moment of a run on ``sim://``, then ``home --clear`` with the
run's journal, then ``resume``, must reach the goal with every planned move made once and nothing hitting a peg
or falling (the simulated board's own disk physics and collision checks are the judge).

The e-stop is the board's own (its e-stop latch set at a chosen simulated time, as the button or a Ctrl-C on the
board does), so the host learns of it the way it would on a real arm. Everything runs in one process on one
simulated board, so a trial costs about as much as the run itself.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from hanoibot.config import load_config
from hanoibot.errors import RunFault
from hanoibot.motion.phases import PHASES, MotionPhase
from hanoibot.ops.home import home
from hanoibot.planner import make_plan
from hanoibot.planner.base import Plan
from hanoibot.puzzle import Move, State, peg_index
from hanoibot.run.journal import Journal, load_journal
from hanoibot.run.recovery import check_journal, recorded_board, resume_after_reset, resume_same_boot
from hanoibot.run.robot import Robot
from hanoibot.run.runner import Run
from hanoibot.run.sequencer import Phase
from hanoibot.sim.board import TICK_S

#: Disks of the trial's puzzle (all on A to all on C: 2**N - 1 moves, the only optimal solution).
N_DISKS = 3
#: E-stop moments: three in each of the eight phases, each in a random segment of that phase at a random time.
TRIALS = 24
SEED = 20261130
#: Events of the simulated world that must never happen.
BAD = ("fault", "drop")


def go_home(robot: Robot, **options: Any) -> str:
    """:func:`hanoibot.ops.home.home`: what it did with a held disk; fails the test when the arm is not home."""
    result = home(robot, **options)
    assert result.is_home, result.failed
    return result.put_down


def estop_at(robot: Robot, t_estop_s: float) -> None:
    """Latch the board's e-stop at simulated time ``t_estop_s`` (s), as its button would."""
    board = robot.sim_board
    world = board.world
    on_tick = world.on_tick
    fired: list[float] = []

    def tick_then_maybe_stop(t_s: float, pulses_us: Any) -> None:
        on_tick(t_s, pulses_us)
        if not fired and t_s >= t_estop_s:
            fired.append(t_s)
            board.controller.estop()

    world.on_tick = tick_then_maybe_stop


def moves_made(events: list[dict[str, Any]]) -> list[Move]:
    """The moves the simulated disks really made (pick/place pairs); a disk put back where it was is no move."""
    moves, picked = [], None
    for event in events:
        if event["event"] == "pick":
            assert picked is None, f"picked {event} while holding {picked}"
            picked = event
        elif event["event"] == "place":
            assert picked is not None and picked["disk"] == event["disk"], f"placed {event} without picking it"
            if picked["peg"] != event["peg"]:
                moves.append(Move(event["disk"], peg_index(picked["peg"]), peg_index(event["peg"])))
            picked = None
    assert picked is None, "a disk is still in the gripper"
    return moves


def resume(robot: Robot, path: Path) -> Phase:
    """What ``hanoibot resume --journal PATH`` does, on the same (in-process) board."""
    log = load_journal(path)
    plan = check_journal(log, robot.config.config_hash, str(path))
    board = recorded_board(log)
    with Journal.open_append(path) as journal:
        if board is None and robot.boot_id == log.boot_id:
            point = resume_same_boot(log, plan, robot, journal)
        else:
            assert board is not None
            point = resume_after_reset(log, plan, robot, board)
        end = point.run(robot, journal).start(**point.start_options())
    assert isinstance(end, Phase)
    return end


def stopped_phase(path: Path, robot: Robot) -> str:
    """The phase of the open move the e-stop caught ("between moves" if none), by the journal and the board."""
    log = load_journal(path)
    entry = log.open_move
    if entry is None:
        return "between moves"
    phase = entry.phase_after(int(robot.session.status().last_done_cmd))
    return "between moves" if phase is None else str(phase)


def run_trial(tmp_path: Path, t_estop_s: float, plan: Plan) -> tuple[str, str, list[Move], Robot]:
    """E-stop a run at ``t_estop_s``, home with --clear and the journal, resume; returns where the stop came, what
    home said, the moves the disks made and the robot (closed)."""
    url = f"sim://?board={plan.start.to_string()}&seed=5"
    robot = Robot(url, load_config())
    robot.open()
    estop_at(robot, t_estop_s)
    path = tmp_path / f"run-{t_estop_s:.3f}.journal"
    with Journal.create(path) as journal:
        # An e-stop while the run homes ends it in fault, later in estopped: the board latched ESTOP either way.
        assert Run(robot, plan, journal=journal).start() in (Phase.ESTOPPED, Phase.FAULT)
    assert "ESTOP" in robot.session.status().faults
    where = stopped_phase(path, robot)
    said = go_home(robot, clear=True, journal_path=path)
    world = robot.sim_board.world
    assert world.held_disk is None, f"{where}: home kept disk {world.held_disk}"
    assert resume(robot, path) is Phase.DONE
    events = list(world.events)
    robot.close()
    assert [e for e in events if e["event"] in BAD] == [], f"e-stop in {where}"
    assert world.state == plan.goal, f"e-stop in {where}"
    executed = robot.sim_board.executed_cmd_ids()
    assert len(executed) == len(set(executed)), f"e-stop in {where}: a command ran twice"
    return where, said, moves_made(events), robot


class Window(NamedTuple):
    """One segment of a run without a stop: simulated time span (s), its move's index and its phase."""

    start_s: float
    end_s: float
    k: int
    phase: MotionPhase


def segment_windows(plan: Plan, tmp_path: Path) -> list[Window]:
    """When each pick-and-place segment runs in a run of ``plan`` without a stop (the board's DONE times)."""
    path = tmp_path / "dry-run.journal"
    robot = Robot(f"sim://?board={plan.start.to_string()}&seed=5", load_config())
    with robot, Journal.create(path) as journal:
        assert Run(robot, plan, journal=journal).start() is Phase.DONE
        done_s = [(e["cmd_id"], e["t_s"]) for e in robot.sim_board.events if e["event"] == "executed"]
    phase_of = {}
    for entry in load_journal(path).moves.values():
        for offset, phase in enumerate(entry.phases):
            phase_of[entry.first_cmd + offset] = (entry.k, phase)
    windows = []
    for (_, before_s), (cmd_id, end_s) in itertools.pairwise(done_s):
        if cmd_id in phase_of and end_s > before_s:
            windows.append(Window(before_s, end_s, *phase_of[cmd_id]))
    return windows


def plan_of(n_disks: int) -> Plan:
    """All ``n_disks`` from A to C, classic rules."""
    return make_plan(n_disks, pegs=3, start=State.tower(n_disks), goal=State.tower(n_disks, peg=2))


@pytest.mark.slow
def test_home_clear_then_resume_after_an_estop_at_random_moments(tmp_path: Path) -> None:
    plan = plan_of(N_DISKS)
    windows = segment_windows(plan, tmp_path)
    rng = random.Random(SEED)
    caught: set[str] = set()
    put_down = 0
    for i in range(TRIALS):
        phase = PHASES[i % len(PHASES)]  # every phase as often: the moments are spread over all of them
        window = rng.choice([w for w in windows if w.phase is phase])
        # The board steps the controller before the world at each tick, so an e-stop at the tick that ends a segment
        # comes after it: the last moment that stops this segment is one tick before its end.
        t_estop_s = rng.uniform(window.start_s, window.end_s - TICK_S)
        where, said, moves, _ = run_trial(tmp_path, t_estop_s, plan)
        caught.add(where)
        put_down += bool(said)
        # The only optimal solution, each move once: nothing repeated, nothing skipped, nothing extra.
        assert moves == list(plan) and len(moves) == 2**N_DISKS - 1, f"e-stop in {where} at {t_estop_s:.3f} s"
    # The moments hit the phases that matter: a disk held in the air, and the fingers closing or opening on one.
    wanted = {MotionPhase.LIFT, MotionPhase.TRAVEL, MotionPhase.LOWER, MotionPhase.GRIP, MotionPhase.RELEASE}
    assert {str(phase) for phase in wanted} <= caught, caught
    assert put_down >= 9, put_down  # lift, travel and lower hold a disk: 3 moments each at least


@pytest.mark.parametrize("phase", [MotionPhase.LIFT, MotionPhase.TRAVEL, MotionPhase.LOWER])
def test_a_held_disk_goes_back_to_its_peg_and_the_journal_says_so(tmp_path: Path, phase: MotionPhase) -> None:
    plan = plan_of(N_DISKS)
    window = next(w for w in segment_windows(plan, tmp_path) if w.k == 1 and w.phase is phase)
    robot = Robot(f"sim://?board={plan.start.to_string()}&seed=5", load_config())
    robot.open()
    estop_at(robot, (window.start_s + window.end_s) / 2)
    path = tmp_path / "run.journal"
    with Journal.create(path) as journal:
        assert Run(robot, plan, journal=journal).start() is Phase.ESTOPPED
    world = robot.sim_board.world
    assert world.held_disk == 2  # the second move: disk 2 from A to B
    said = go_home(robot, clear=True, journal_path=path)
    assert said == "put disk 2 back on peg A"
    assert world.held_disk is None and world.state == plan.state_at(1)
    assert [e for e in world.events if e["event"] in BAD] == []
    assert recorded_board(load_journal(path)) == plan.state_at(1)
    status = robot.session.status()
    assert tuple(status.pulses_us) == robot.config.start_pulses_us() and status.grip == "empty"
    robot.close()


def stopped_in(plan: Plan, k: int, phase: MotionPhase, tmp_path: Path) -> tuple[Robot, Path]:
    """A robot whose run of ``plan`` (journaled at the returned path) the e-stop caught in move ``k``'s ``phase``."""
    window = next(w for w in segment_windows(plan, tmp_path) if w.k == k and w.phase is phase)
    robot = Robot(f"sim://?board={plan.start.to_string()}&seed=5", load_config())
    robot.open()
    estop_at(robot, (window.start_s + window.end_s) / 2)
    path = tmp_path / "run.journal"
    with Journal.create(path) as journal:
        assert Run(robot, plan, journal=journal).start() is Phase.ESTOPPED
    return robot, path


def test_a_held_disk_nobody_can_name_stays_in_the_gripper_and_nothing_moves(tmp_path: Path) -> None:
    robot, _ = stopped_in(plan_of(N_DISKS), 1, MotionPhase.TRAVEL, tmp_path)
    world = robot.sim_board.world
    before_us = tuple(robot.session.status().pulses_us)
    with pytest.raises(RunFault, match=r"no journal .* --journal FILE"):
        go_home(robot, clear=True)  # no journal, nobody to ask
    assert world.held_disk == 2 and tuple(robot.session.status().pulses_us) == before_us
    assert robot.session.status().mode == "ESTOP", "home released the e-stop although it could not go on"
    assert [e for e in world.events if e["event"] in BAD] == []
    robot.close()


def test_the_operator_names_a_held_disk_when_there_is_no_journal(tmp_path: Path) -> None:
    robot, _ = stopped_in(plan_of(N_DISKS), 1, MotionPhase.LOWER, tmp_path)
    questions: list[str] = []

    def answer(question: str) -> str:
        questions.append(question)
        return "CAA 2"  # disk 2 came off A, where disk 3 stays; disk 1 is on C (the classic first move)

    assert go_home(robot, clear=True, ask=answer) == "put disk 2 back on peg A"
    world = robot.sim_board.world
    assert len(questions) == 1 and world.held_disk is None and world.state == State.parse("CAA")
    assert [e for e in world.events if e["event"] in BAD] == []
    robot.close()


def test_resume_after_home_without_the_journal_asks_where_the_disks_are(tmp_path: Path) -> None:
    plan = plan_of(N_DISKS)
    robot, path = stopped_in(plan, 1, MotionPhase.APPROACH, tmp_path)
    assert go_home(robot, clear=True) == ""  # the fingers were empty: home, but the journal was not told
    with pytest.raises(RunFault, match=r"--board STATE \(last known: CAA; disk 2 was on its way from A to B\)"):
        resume(robot, path)
    robot.close()


def test_a_disk_that_may_not_go_back_goes_to_another_legal_peg_and_resume_replans(tmp_path: Path) -> None:
    start = State.parse("A:3,1,2/B:/C:4")  # disk 2 lies on smaller disk 1: it may not be put back there
    plan = make_plan(4, pegs=3, start=start, goal=State.tower(4, peg=2))
    assert plan.move_at(0) == Move(2, 0, 1)  # the shuffled tower's first move takes disk 2 off A
    robot, path = stopped_in(plan, 0, MotionPhase.TRAVEL, tmp_path)
    said = go_home(robot, clear=True, journal_path=path)
    world = robot.sim_board.world
    assert said.startswith("put disk 2 on peg ") and world.state is not None
    assert world.state.peg_of(2) != 0 and world.state.stacks[0] == (3, 1)
    assert recorded_board(load_journal(path)) == world.state
    assert resume(robot, path) is Phase.DONE and world.state == plan.goal
    assert [e for e in world.events if e["event"] in BAD] == []
    robot.close()


def test_a_new_run_does_not_carry_a_held_disk_home(tmp_path: Path) -> None:
    plan = plan_of(N_DISKS)
    robot, _ = stopped_in(plan, 1, MotionPhase.TRAVEL, tmp_path)
    robot.session.clear()  # the latch released by hand, the disk still in the gripper
    before_us = tuple(robot.session.status().pulses_us)
    with pytest.raises(RunFault, match=r"the gripper holds a disk .*put it down with hanoibot home --clear"):
        Run(robot, plan_of(N_DISKS)).start()
    world = robot.sim_board.world
    assert world.held_disk == 2 and tuple(robot.session.status().pulses_us) == before_us
    robot.close()
