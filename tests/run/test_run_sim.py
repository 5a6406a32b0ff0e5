"""End-to-end runs on the simulated robot (sim://), checked from the simulated board's own logs.

The simulated world logs every pick and place the arm really made (disk physics, not the host's belief) and the
board logs every command id it executed. A run is right when the world ends in the goal state and the picks and
places, paired up, are exactly the planned moves, each once, in order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import tomlkit
from hanoibot.config import default_config_path, load_config
from hanoibot.planner import make_plan
from hanoibot.puzzle import Move, State, peg_index
from hanoibot.run.robot import Robot
from hanoibot.run.runner import Run
from hanoibot.run.segment_queue import Item
from hanoibot.run.sequencer import Phase
from robot_configs import edited


def four_peg_config(folder: Path) -> Path:
    """The default robot with a fourth peg: pegs 90 mm apart in a row, as hardware/robot.toml suggests."""
    document = tomlkit.parse(default_config_path().read_text(encoding="utf-8"))
    pegs: Any = document["board"]["pegs"]
    pegs.append(tomlkit.table())
    for table, y_mm in zip(pegs, (-135.0, -45.0, 45.0, 135.0), strict=True):
        table["x_mm"] = 160.0
        table["y_mm"] = y_mm
    path = folder / "robot4.toml"
    path.write_text(tomlkit.dumps(document), encoding="utf-8")
    return path


def moves_seen_by_the_world(world_events: list[dict[str, Any]]) -> list[Move]:
    """Pick/place pairs of the simulated disks as moves; fails on a drop or an unpaired pick."""
    moves, picked = [], None
    for event in world_events:
        assert event["event"] in ("pick", "place"), f"the world saw {event}"
        if event["event"] == "pick":
            assert picked is None, f"picked {event} while holding {picked}"
            picked = event
        else:
            assert picked is not None and picked["disk"] == event["disk"], f"placed {event} without picking it"
            moves.append(Move(event["disk"], peg_index(picked["peg"]), peg_index(event["peg"])))
            picked = None
    assert picked is None, "the run ended with a disk in the gripper"
    return moves


def run_on_sim(start: State, goal: State, *, flip: float, config_path: Path | None) -> tuple[Any, Any, Run]:
    plan = make_plan(start.n_disks, pegs=start.pegs, start=start, goal=goal)
    url = f"sim://?board={start.to_string()}&flip={flip}&seed=7"
    if config_path is not None:
        url += f"&config={config_path}"
    robot = Robot(url, load_config(config_path))
    robot.open()
    job = Run(robot, plan)
    assert job.start() is Phase.DONE, job.sequencer.reason
    board = robot.sim_board
    robot.close()
    return plan, board, job


CASES = [
    # disks, pegs, start, flip
    (3, 3, "AAA", 0.0),
    (4, 3, "ACAB", 1e-2),
    (5, 4, "AAAAA", 0.0),
    (6, 4, "BDACAB", 1e-2),
    pytest.param(7, 3, "CBACABA", 0.0, marks=pytest.mark.slow),
    (8, 4, "AAAAAAAA", 1e-2),
    # shuffled towers: a larger disk already sits on a smaller one
    (4, 3, "A:3,1,2/B:4/C:", 1e-2),
    (5, 4, "A:5,2/B:1,4/C:3/D:", 0.0),
]


@pytest.mark.parametrize(("n_disks", "pegs", "start_text", "flip"), CASES)
def test_a_run_reaches_the_goal_with_every_planned_move_exactly_once(
    n_disks: int, pegs: int, start_text: str, flip: float, tmp_path: Path
) -> None:
    start = State.parse(start_text, pegs=pegs)
    goal = State.tower(n_disks, pegs - 1, pegs)
    plan, board, job = run_on_sim(start, goal, flip=flip, config_path=four_peg_config(tmp_path) if pegs == 4 else None)
    assert board.world.state == goal
    assert board.world.faults() == [], "the blended paths stay clear of the board, on a noisy wire too"
    assert moves_seen_by_the_world(board.world.events) == list(plan)
    executed = [e["cmd_id"] for e in board.events if e["event"] == "executed"]
    assert executed == sorted(set(executed)), "a command id ran twice or out of order"
    report = job.report()
    assert (report.status, report.moves_done, report.final) == ("done", plan.length, goal.to_string())
    if flip:
        injected = [e for e in board.events if e["event"] == "injected"]
        assert injected, "the noisy wire injected no fault: the test would prove nothing"


@pytest.mark.slow
def test_eight_disks_on_three_pegs_255_moves(tmp_path: Path) -> None:
    start, goal = State.tower(8), State.tower(8, 2)
    plan, board, _ = run_on_sim(start, goal, flip=1e-2, config_path=None)
    assert board.world.state == goal
    assert moves_seen_by_the_world(board.world.events) == list(plan)


def faster_servos(folder: Path, factor: float) -> Path:
    """The default robot with every servo (the four joints and the gripper) ``factor`` times faster, as a file."""

    def change(document: Any) -> None:
        for table in (*(document["arm"][j] for j in ("base", "shoulder", "elbow", "wrist")), document["gripper"]):
            table["max_speed_deg_s"] = table["max_speed_deg_s"] * factor

    path = folder / f"robot_x{factor:g}.toml"
    path.write_bytes(edited(change))
    return path


@pytest.mark.parametrize("factor", [4.0, 8.0])
def test_servos_four_and_eight_times_faster_pick_every_disk_first_time(factor: float, tmp_path: Path) -> None:
    # Short gripper moves leave the trailing servo short of the disk when the command arrives: the settle hold
    # after them (and after the travel, over the destination peg) is what lets the fingers shut before the lift.
    start, goal = State.tower(4), State.tower(4, 2)
    plan, board, _ = run_on_sim(start, goal, flip=0.0, config_path=faster_servos(tmp_path, factor))
    assert [e for e in board.world.events if e["event"] == "missed_pick"] == []
    assert board.world.state == goal
    assert moves_seen_by_the_world(board.world.events) == list(plan)


def test_each_approach_starts_while_the_retreat_before_it_comes_to_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    plan = make_plan(3)
    robot = Robot("sim://?board=AAA", load_config())
    robot.open()
    job = Run(robot, plan)
    sent: list[Item] = []
    take = job.sequencer.source.pop

    def pop() -> Item:
        sent.append(take())
        return sent[-1]

    monkeypatch.setattr(job.sequencer.source, "pop", pop)
    assert job.start() is Phase.DONE, job.sequencer.reason
    board = robot.sim_board
    robot.close()
    approaches = [item for i, item in enumerate(sent) if i == 0 or sent[i - 1].k != item.k]
    assert [item.phase for item in approaches] == ["approach"] * plan.length
    assert approaches[0].blend_ms == 0, "the first approach starts from rest"
    assert sum(1 for item in approaches[1:] if item.blend_ms > 0) >= 2, "later ones blend into the retreat"
    assert board.world.faults() == [] and board.world.state == plan.goal
    assert moves_seen_by_the_world(board.world.events) == list(plan)
