"""A board reset in the middle of a run (`sim://?reset_after=K`): the run stops safely in fault, and after homing
and a confirmation of where the disks are it is replanned from there and finishes on the goal.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hanoibot.config import load_config
from hanoibot.errors import BoardReset
from hanoibot.journal import Journal, load_journal
from hanoibot.planner import make_plan
from hanoibot.puzzle import Move, peg_index
from hanoibot.recovery import check_journal, resume_after_reset
from hanoibot.robot import Robot
from hanoibot.runner import Run
from hanoibot.sequencer import Phase


def world_moves(events: list[dict[str, Any]]) -> list[Move]:
    """Pick/place pairs the simulated world saw, as moves (a pick with no place ends the list)."""
    moves, picked = [], None
    for event in events:
        if event["event"] == "pick":
            picked = event
        elif event["event"] == "place" and picked is not None:
            moves.append(Move(event["disk"], peg_index(picked["peg"]), peg_index(event["peg"])))
            picked = None
    return moves


@pytest.mark.parametrize("reset_after", [150, 400])
def test_a_reset_board_stops_the_run_then_homing_and_confirmation_finish_it(reset_after: int, tmp_path: Path) -> None:
    plan = make_plan(4)
    path = tmp_path / "run.journal"
    robot = Robot(f"sim://?board=AAAA&reset_after={reset_after}", load_config())
    robot.open()
    board = robot.sim_board
    with Journal.create(path) as journal:
        job = Run(robot, plan, journal=journal)
        assert job.start() is Phase.FAULT
        assert isinstance(job.sequencer.error, BoardReset), job.sequencer.reason
        assert 0 < job.sequencer.moves_done < plan.length
        sent_before_reset = job.sequencer.source.next_cmd_id
    old_boot = load_journal(path).boot_id

    robot.session.resync()  # the operator reconnects to the rebooted board
    assert robot.boot_id != old_boot
    confirmed = board.world.state  # the operator looks at the board and confirms it
    assert confirmed is not None, "the reset must not have thrown a disk off the pegs"
    log = load_journal(path)
    with Journal.open_append(path) as journal:
        point = resume_after_reset(log, check_journal(log, robot.config.config_hash, str(path)), robot, confirmed)
        assert (point.first_k, point.same_boot, point.board_state) == (0, False, confirmed)
        assert point.first_cmd_id >= sent_before_reset, "command ids never go back"
        rest = Run(robot, point.plan, journal=journal, board_state=confirmed, first_cmd_id=point.first_cmd_id)
        assert rest.start(home=True, configure=True, record_plan=True) is Phase.DONE, rest.sequencer.reason
    robot.close()

    assert board.world.state == plan.goal
    assert not [e for e in board.world.events if e["event"] in ("drop", "fault")]
    assert world_moves(board.world.events)[-point.plan.length :] == list(point.plan)
    replanned = load_journal(path)
    assert replanned.plan_spec["start"] == confirmed.to_string() and replanned.end_status == "done"
    assert replanned.boot_id == robot.boot_id
