"""Which recovery a stopped run needs (:func:`hanoibot.ops.resume.open_resume`), for the CLI and the console alike:
a new simulated board placed where the journal last saw the disks, the same board going on (an e-stop only with
``clear``), a reset board confirmed by the operator, and a finished run left alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from hanoibot.config import load_config
from hanoibot.errors import JournalError, RunFault
from hanoibot.ops.resume import Finished, ResumeRequest, Resumption, open_resume
from hanoibot.ops.start import RunRequest, open_run
from hanoibot.planner import make_plan
from hanoibot.puzzle import State
from hanoibot.run.robot import Robot
from hanoibot.run.sequencer import Phase

PLAN = make_plan(3, pegs=3, start=State.tower(3), goal=State.tower(3, peg=2))


def stopped_run(tmp_path: Path, *, estop: bool = False) -> tuple[Robot, Path]:
    """A journaled run on sim:// stopped after its second move (the board's e-stop, or a stop at a pause)."""
    path = tmp_path / "run.journal"
    started = open_run(RunRequest(PLAN, load_config(), journal_path=str(path)))
    job, board = started.job, started.robot.sim_board

    def after_move(k: int, move: object, state: object) -> None:
        if k == 2:
            if estop:
                board.controller.estop()
            else:
                job.request_pause()

    job.sequencer.on_move_done = after_move
    phase = job.start()
    if phase is Phase.PAUSED:
        phase = job.stop()
    assert phase in (Phase.ESTOPPED, Phase.DISCONNECTED)
    assert started.journal is not None
    started.journal.close()
    return started.robot, path


def test_on_sim_a_new_board_starts_where_the_journal_last_saw_the_disks(tmp_path: Path) -> None:
    robot, path = stopped_run(tmp_path)
    robot.close()  # the process ended: its simulated board is gone
    resumption = open_resume(ResumeRequest(path))
    assert isinstance(resumption, Resumption)
    try:
        last = PLAN.state_at(3)
        assert resumption.said.endswith(f"placed where the journal last saw them: {last}")
        assert resumption.robot.sim_board.world.state == last
        assert resumption.run().start(**resumption.start_options()) is Phase.DONE
        assert resumption.robot.sim_board.world.state == PLAN.goal
    finally:
        resumption.close()
    assert isinstance(open_resume(ResumeRequest(path)), Finished)


def test_the_same_board_goes_on_but_an_estop_only_with_clear(tmp_path: Path) -> None:
    robot, path = stopped_run(tmp_path, estop=True)
    done = robot.sim_board.executed_cmd_ids()
    with pytest.raises(RunFault, match="--clear"):
        open_resume(ResumeRequest(path), robot=robot)
    assert robot.sim_board.executed_cmd_ids() == done and robot.session.status().mode == "ESTOP"
    resumption = open_resume(ResumeRequest(path, clear=True), robot=robot)
    assert isinstance(resumption, Resumption) and resumption.point.same_boot
    assert resumption.run().start(**resumption.start_options()) is Phase.DONE
    assert robot.sim_board.world.state == PLAN.goal
    resumption.journal.close()
    robot.close()


def test_a_reset_board_nobody_confirms_names_board_and_the_last_known_state(tmp_path: Path) -> None:
    robot, path = stopped_run(tmp_path)
    robot.close()
    other = Robot(f"sim://?board={PLAN.state_at(3)}", load_config())  # another boot: the journal's ids mean nothing
    with pytest.raises(JournalError, match=rf"--board STATE \(last known: {PLAN.state_at(3)}"):
        open_resume(ResumeRequest(path), robot=other)
    asked: list[str] = []
    resumption = open_resume(ResumeRequest(path), lambda q: asked.append(q) or str(PLAN.state_at(3)), robot=other)
    assert isinstance(resumption, Resumption) and not resumption.point.same_boot and len(asked) == 1
    assert resumption.run().start(**resumption.start_options()) is Phase.DONE
    resumption.close()
