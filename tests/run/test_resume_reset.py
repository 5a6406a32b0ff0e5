"""A board reset in the middle of a run (`sim://?reset_after=K`): the run stops safely in fault, and after homing
and a confirmation of where the disks are it is replanned from there and finishes on the goal.

The reset points are chosen by construction: a clean dry run of the same plan records, for every frame the board
receives, whether the simulated gripper holds a disk then (sim:// is deterministic), and the test resets once while
the gripper is empty and once mid-carry. Mid-carry the reset stops the PWM and the limp gripper lets go of the disk:
the operator puts it back on its peg before confirming the board, as a user would. A disk stays in the gripper
through a reset only where the outputs keep pulsing (a PCA9685: ``outputs=pca9685``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hanoibot.config import load_config
from hanoibot.errors import BoardReset, RunFault
from hanoibot.planner import make_plan
from hanoibot.puzzle import Move, peg_index
from hanoibot.run.journal import Journal, load_journal
from hanoibot.run.recovery import check_journal, resume_after_reset
from hanoibot.run.robot import Robot
from hanoibot.run.runner import Run
from hanoibot.run.sequencer import Phase
from hanoibot.sim.wire import FaultyWire

N_DISKS = 4


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


def held_disk_per_frame(monkeypatch: pytest.MonkeyPatch, options: str = "") -> list[int | None]:
    """A clean run of the plan (on ``sim://`` with ``options`` too): for each frame the board received (1st, 2nd,
    ...), the disk held at that moment."""
    held: list[int | None] = []
    original = FaultyWire.write

    def write(wire: FaultyWire, data: bytes) -> None:
        original(wire, data)
        world = wire.board.world
        held.extend([world.held_disk if world is not None else None] * data.count(b"\n"))

    with monkeypatch.context() as patch:
        patch.setattr(FaultyWire, "write", write)
        robot = Robot(f"sim://?board={'A' * N_DISKS}{options}", load_config())
        robot.open()
        with robot:
            assert Run(robot, make_plan(N_DISKS)).start() is Phase.DONE
    return held


def reset_frame(held: list[int | None], *, holding: bool) -> int:
    """A frame number K (1-based) past the first third of the run at which a disk is held, or none is."""
    start = len(held) // 3
    return next(k + 1 for k in range(start, len(held)) if (held[k] is not None) == holding)


@pytest.mark.parametrize("holding", [False, True], ids=["gripper-empty", "mid-carry"])
def test_a_reset_board_stops_the_run_then_homing_and_confirmation_finish_it(
    holding: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan = make_plan(N_DISKS)
    reset_after = reset_frame(held_disk_per_frame(monkeypatch), holding=holding)
    path = tmp_path / "run.journal"
    robot = Robot(f"sim://?board={'A' * N_DISKS}&reset_after={reset_after}", load_config())
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
    # The reset stopped the PWM: the limp gripper let go of a carried disk (onto the table, or down the peg it
    # was threaded on); with the gripper empty nothing fell.
    limp = [e["disk"] for e in board.world.events if e["event"] == "limp"]
    assert board.world.held_disk is None
    assert len(limp) == (1 if holding else 0), "a reset drops nothing unless a disk was being carried"
    loose = list(board.world.disks.loose_disks)
    if loose:  # the operator takes the fallen disk and puts it back where it came from
        move = plan.move_at(load_journal(path).moves_done)
        assert move.disk == loose[0] == limp[0]
        board.world.put_back(board.clock.now_s(), move.disk, move.src)
    confirmed = board.world.state  # the operator looks at the board and confirms it
    assert confirmed is not None
    log = load_journal(path)
    with Journal.open_append(path) as journal:
        point = resume_after_reset(log, check_journal(log, robot.config.config_hash, str(path)), robot, confirmed)
        assert (point.first_k, point.same_boot, point.board_state) == (0, False, confirmed)
        assert point.first_cmd_id >= sent_before_reset, "command ids never go back"
        rest = Run(robot, point.plan, journal=journal, board_state=confirmed, first_cmd_id=point.first_cmd_id)
        assert rest.start(home=True, configure=True, record_plan=True) is Phase.DONE, rest.sequencer.reason
    robot.close()

    assert board.world.state == plan.goal
    dropped = [e for e in board.world.events if e["event"] == "drop"]
    assert len(dropped) == len(loose), "no disk lost but the one the reset let fall"
    assert not [e for e in board.world.events if e["event"] == "fault"], "no collision"
    assert world_moves(board.world.events)[-point.plan.length :] == list(point.plan)
    replanned = load_journal(path)
    assert replanned.plan_spec["start"] == confirmed.to_string() and replanned.end_status == "done"
    assert replanned.boot_id == robot.boot_id


@pytest.mark.parametrize("servos", ["outputs=pca9685", "servo=sts"], ids=["pca9685", "bus-servos"])
def test_a_disk_left_in_the_gripper_by_a_reset_stops_resume_before_anything_moves(
    servos: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Servos that keep their pose through a reset of the board: a PCA9685's, bus servos (their own power)."""
    plan = make_plan(N_DISKS)
    reset_after = reset_frame(held_disk_per_frame(monkeypatch, f"&{servos}"), holding=True)
    path = tmp_path / "run.journal"
    robot = Robot(f"sim://?board={'A' * N_DISKS}&reset_after={reset_after}&{servos}", load_config())
    robot.open()
    board = robot.sim_board
    with Journal.create(path) as journal:
        assert Run(robot, plan, journal=journal).start() is Phase.FAULT
    robot.session.resync()
    log = load_journal(path)
    carried = plan.move_at(log.moves_done)
    assert board.world.held_disk == carried.disk
    # the operator confirms the board as the journal last saw it, forgetting the disk in the gripper
    believed = plan.state_at(log.moves_done)
    events_before = len(board.world.events)
    history_before = len(board.servos.history)
    with pytest.raises(RunFault, match=f"gripper still holds disk {carried.disk}"):
        resume_after_reset(log, check_journal(log, robot.config.config_hash, str(path)), robot, believed)
    robot.close()
    assert board.world.held_disk == carried.disk, "the disk stays in the gripper: never dropped"
    assert board.world.events[events_before:] == []
    gripper = [pulse for _t, ch, pulse in board.servos.history[history_before:] if ch == 4]
    closed_us = robot.config.gripper.closed_us
    assert gripper and gripper[-1] == closed_us, "driven closed"
    assert gripper == sorted(gripper) if closed_us > gripper[0] else gripper == sorted(gripper, reverse=True), (
        "from the pulse the servo kept straight to closed, never opening"
    )


def world_state_per_frame(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A clean run of the plan: for each frame the board received, where the world's disks were then ('' while one
    is off the pegs)."""
    states: list[str] = []
    original = FaultyWire.write

    def write(wire: FaultyWire, data: bytes) -> None:
        original(wire, data)
        state = wire.board.world.state
        states.extend([state.to_string() if state is not None else ""] * data.count(b"\n"))

    with monkeypatch.context() as patch:
        patch.setattr(FaultyWire, "write", write)
        robot = Robot(f"sim://?board={'A' * N_DISKS}", load_config())
        robot.open()
        with robot:
            assert Run(robot, make_plan(N_DISKS)).start() is Phase.DONE
    return states


@pytest.mark.slow
def test_after_a_reset_the_run_knows_where_the_disks_are_or_which_disk_it_does_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A reset at each frame from a release to the next pick: the run's board is where the world's disks lie, or
    the run names the one move whose disk it cannot place (it was let go between its pegs). The console resumes
    from that board, so a stale one sends the arm to pick a disk that is no longer there."""
    states = world_state_per_frame(monkeypatch)
    middle = len(states) // 3
    put_down = next(k for k in range(middle, len(states)) if states[k] and not states[k - 1])  # 0-based frame
    next_pick = next(k for k in range(put_down, len(states)) if not states[k])
    plan = make_plan(N_DISKS)
    sure = unsure = 0
    for reset_after in range(put_down - 2, next_pick + 2):
        robot = Robot(f"sim://?board={'A' * N_DISKS}&reset_after={reset_after}", load_config())
        robot.open()
        with robot:
            job = Run(robot, plan)
            assert job.start() is Phase.FAULT
            assert isinstance(job.sequencer.error, BoardReset), job.sequencer.reason
            believed, move = job.sequencer.board_state, job.sequencer.unsure_move
            world = robot.sim_board.world
            assert believed is not None
            if move is None:
                assert world.held_disk is None and not world.disks.loose_disks, f"reset after frame {reset_after}"
                assert believed == world.state, f"reset after frame {reset_after}"
                sure += 1
            else:
                lies = world.state if world.held_disk is None and not world.disks.loose_disks else None
                assert lies is None or lies in (believed, believed.apply(move)), f"reset after frame {reset_after}"
                unsure += 1
    assert sure >= 3 and unsure >= 1, (sure, unsure)
