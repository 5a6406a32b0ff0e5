"""The console's robot worker on the simulated arm: runs through the CLI's Run, e-stop, clear, home, one move."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hanoibot.console.robot_worker import RobotWorker
from hanoibot.puzzle import State
from worker_snapshots import Snapshots

# In a real browser (or a running arm) each: in `make test` and CI, not in the fast `make check` loop.
pytestmark = pytest.mark.slow


@pytest.fixture
def worker_on() -> Iterator[Callable[..., tuple[RobotWorker, Snapshots]]]:
    made: list[RobotWorker] = []

    def make(port_url: str, journal_dir: str | None = None) -> tuple[RobotWorker, Snapshots]:
        snapshots = Snapshots()
        worker = RobotWorker(port_url, None, snapshots, journal_dir=journal_dir)
        made.append(worker)
        return worker, snapshots

    yield make
    for worker in made:
        worker.close()


def test_run_from_the_page_plays_the_plan_with_live_progress(
    worker_on: Callable[[str], tuple[RobotWorker, Snapshots]],
) -> None:
    worker, snapshots = worker_on("sim://?realtime=0")
    worker.submit("connect", state="AAA", pegs=3)
    snapshots.wait_for(lambda s: s["connected"] and s["phase"] == "idle", "connected")
    worker.submit("run", rules="classic", goal="CCC", pegs=3)
    done = snapshots.wait_for(lambda s: s["message"].startswith("done"), "the run done")
    assert (done["moves_done"], done["moves_total"]) == (7, 7)
    assert done["board_text"] == "CCC" and done["mode"] in ("IDLE", "HELD")
    progress = {s["moves_done"] for s in snapshots.seen if s["phase"] not in ("idle", "offline")}
    assert {1, 2, 3, 4, 5, 6} <= progress, f"live progress seen: {sorted(progress)}"
    assert any(s["arm_mm"] for s in snapshots.seen)


def test_estop_during_a_run_latches_estop_then_clear_and_home_recover(
    worker_on: Callable[[str], tuple[RobotWorker, Snapshots]],
) -> None:
    worker, snapshots = worker_on("sim://?speed=8")
    worker.submit("connect", state="AAA", pegs=3)
    snapshots.wait_for(lambda s: s["connected"], "connected")
    worker.submit("run", rules="classic", goal="CCC", pegs=3)
    snapshots.wait_for(lambda s: s["moves_done"] >= 1 and s["phase"] not in ("idle", "done"), "a run under way")
    pressed_s = time.monotonic()
    worker.estop()
    stopped = snapshots.wait_for(lambda s: s["mode"] == "ESTOP" and s["phase"] != "running", "ESTOP mode")
    assert time.monotonic() - pressed_s < 1.0
    assert stopped["moves_done"] < 7
    assert any("E-stop latched" in text for text in stopped["faults"])
    worker.submit("clear")
    snapshots.wait_for(lambda s: s["mode"] != "ESTOP" and "cleared" in s["message"], "cleared")
    worker.submit("home")
    home = snapshots.wait_for(lambda s: s["message"].startswith("the arm is home"), "homed")
    assert not home["faults"]


def test_play_my_move_moves_one_disk_and_refuses_a_move_off_the_arms_board(
    worker_on: Callable[[str], tuple[RobotWorker, Snapshots]],
) -> None:
    worker, snapshots = worker_on("sim://?realtime=0")
    worker.submit("connect", state="AAA", pegs=3)
    snapshots.wait_for(lambda s: s["connected"], "connected")
    worker.submit("play_move", disk=2, src=0, dst=1, rules="classic")
    refused = snapshots.wait_for(lambda s: bool(s["error"]), "an error")
    assert "disk 2 is not on top of peg A" in refused["error"]
    worker.submit("play_move", disk=1, src=0, dst=2, rules="classic")
    done = snapshots.wait_for(lambda s: s["message"].startswith("done"), "the move done")
    assert done["board_text"] == State.parse("CAA").to_string()


def test_commands_before_connect_say_what_to_do(
    worker_on: Callable[[str], tuple[RobotWorker, Snapshots]],
) -> None:
    worker, snapshots = worker_on("sim://")
    worker.submit("home")
    assert "press Connect first" in snapshots.wait_for(lambda s: bool(s["error"]), "an error")["error"]


def test_pause_continue_and_stop_a_run_from_the_page(
    worker_on: Callable[[str], tuple[RobotWorker, Snapshots]],
) -> None:
    worker, snapshots = worker_on("sim://?speed=8")
    worker.submit("connect", state="AAA", pegs=3)
    snapshots.wait_for(lambda s: s["connected"], "connected")
    worker.submit("run", rules="classic", goal="CCC", pegs=3)
    snapshots.wait_for(lambda s: s["moves_done"] >= 1 and s["busy"] == "running", "a run under way")
    worker.submit("pause")
    paused = snapshots.wait_for(lambda s: s["phase"] == "paused", "paused")
    assert paused["mode"] == "HELD" and paused["moves_done"] < 7
    worker.submit("continue")
    snapshots.wait_for(lambda s: s["busy"] == "running" and s["phase"] != "paused", "running again")
    worker.submit("stop")
    stopped = snapshots.wait_for(lambda s: s["message"].startswith("stopped after"), "stopped")
    assert stopped["phase"] == "idle" and 1 <= stopped["moves_done"] < 7 and stopped["mode"] == "HELD"
    worker.estop()
    snapshots.wait_for(lambda s: s["mode"] == "ESTOP", "ESTOP")
    worker.submit("run", rules="classic", goal="CCC", pegs=3)  # refused: the e-stop is latched until a Clear
    assert "latched ESTOP" in snapshots.wait_for(lambda s: bool(s["error"]), "a refusal")["error"]
    worker.submit("clear")
    snapshots.wait_for(lambda s: "cleared" in s["message"] and s["mode"] == "IDLE", "cleared and let go")
    worker.submit("home")
    snapshots.wait_for(lambda s: s["message"].startswith("the arm is home"), "homed")
    snapshots.seen.clear()
    worker.submit("run", rules="classic", goal="CCC", pegs=3)  # a new run from where the arm's board is now
    done = snapshots.wait_for(lambda s: s["message"].startswith("done"), "the second run done")
    assert done["board_text"] == "CCC"


def test_a_stopped_run_resumes_from_the_page_and_its_journal_resumes_with_the_cli(
    worker_on: Callable[..., tuple[RobotWorker, Snapshots]], tmp_path: Path
) -> None:
    from hanoibot.run.journal import load_journal

    worker, snapshots = worker_on("sim://?speed=8", str(tmp_path))
    worker.submit("connect", state="AAA", pegs=3)
    snapshots.wait_for(lambda s: s["connected"], "connected")
    worker.submit("run", rules="classic", goal="CCC", pegs=3)
    snapshots.wait_for(lambda s: s["moves_done"] >= 2 and s["busy"] == "running", "a run under way")
    worker.submit("stop")
    stopped = snapshots.wait_for(lambda s: s["message"].startswith("stopped after"), "stopped")
    assert "Resume finishes the run" in stopped["message"]
    (journal_path,) = tmp_path.glob("*.journal")
    assert stopped["journal"] == str(journal_path)
    assert load_journal(journal_path).end_status == "stopped"
    worker.submit("resume")
    done = snapshots.wait_for(lambda s: s["message"].startswith("done"), "the resumed run done")
    assert done["board_text"] == "CCC" and (done["moves_done"], done["moves_total"]) == (7, 7)
    log = load_journal(journal_path)
    assert log.end_status == "done" and log.moves_done == 7
    worker.submit("resume")
    assert "no stopped run" in snapshots.wait_for(lambda s: bool(s["error"]), "nothing to resume")["error"]


def test_journal_of_a_page_run_resumes_with_the_cli(
    worker_on: Callable[..., tuple[RobotWorker, Snapshots]], tmp_path: Path
) -> None:
    worker, snapshots = worker_on("sim://?speed=8", str(tmp_path))
    worker.submit("connect", state="AAA", pegs=3)
    snapshots.wait_for(lambda s: s["connected"], "connected")
    worker.submit("run", rules="classic", goal="CCC", pegs=3)
    snapshots.wait_for(lambda s: s["moves_done"] >= 2 and s["busy"] == "running", "a run under way")
    worker.submit("pause")
    worker.submit("stop")
    stopped = snapshots.wait_for(lambda s: s["message"].startswith("stopped after"), "stopped")
    worker.close()
    (journal_path,) = tmp_path.glob("*.journal")
    board = stopped["board_text"] if stopped["held"] is None else None
    assert board is not None
    result = subprocess.run(
        [sys.executable, "-m", "hanoibot", "resume", "--journal", str(journal_path), "--board", board,
         "--port", "sim://?realtime=0", "--plain"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    # a new process is a new simulated board: the rest is replanned from the confirmed board
    assert re.search(r"^done: (\d+) of \1 moves, board CCC$", result.stdout, re.MULTILINE), result.stdout


@pytest.mark.parametrize("command", ["run", "play_move"])
def test_a_coloured_puzzle_on_the_arm_points_to_the_command_line(
    worker_on: Callable[[str], tuple[RobotWorker, Snapshots]], command: str
) -> None:
    worker, snapshots = worker_on("sim://")
    options = {"goal": "ABABAB", "pegs": 3} if command == "run" else {"disk": 1, "src": 0, "dst": 2}
    worker.submit(command, rules="bicolor", **options)
    error = snapshots.wait_for(lambda s: bool(s["error"]), "an error")["error"]
    assert "hanoibot run --puzzle bicolor" in error


#: The page's one way back from an e-stop (hanoibot.console.robot_view.ESTOP_RECOVERY).
ESTOP_RECOVERY = "Look at the arm, press Clear, then Home or Resume."


def test_after_an_estop_the_page_says_e_stopped_once_in_its_own_words(
    worker_on: Callable[[str], tuple[RobotWorker, Snapshots]],
) -> None:
    worker, snapshots = worker_on("sim://?speed=8")
    worker.submit("connect", state="AAA", pegs=3)
    snapshots.wait_for(lambda s: s["connected"], "connected")
    worker.submit("run", rules="classic", goal="CCC", pegs=3)
    snapshots.wait_for(lambda s: s["moves_done"] >= 1 and s["busy"] == "running", "a run under way")
    worker.estop()
    stopped = snapshots.wait_for(lambda s: s["mode"] == "ESTOP" and "latched" in s["message"], "the latch said")
    assert stopped["phase"] == "e-stopped" and stopped["latched"], stopped  # not "idle": nothing moves until Clear
    said = [stopped["message"], *stopped["faults"]]
    assert all(ESTOP_RECOVERY in text for text in said), said  # one way back, in the same words everywhere
    assert "e-stop latched on sim://?speed=8:" in stopped["message"], stopped["message"]  # the port as given
    assert "board=" not in stopped["message"] and "realtime=" not in stopped["message"]
    worker.submit("run", rules="classic", goal="CCC", pegs=3)
    refused = snapshots.wait_for(lambda s: bool(s["error"]), "the run refused")["error"]
    assert "latched ESTOP" in refused and ESTOP_RECOVERY in refused, refused
    assert "hanoibot " not in refused, "the page's way back is its own buttons, not a terminal command"


def test_the_eta_stands_still_while_paused_and_continue_ends_the_pause_message(
    worker_on: Callable[[str], tuple[RobotWorker, Snapshots]],
) -> None:
    worker, snapshots = worker_on("sim://?speed=2")
    worker.submit("connect", state="AAA", pegs=3)
    snapshots.wait_for(lambda s: s["connected"], "connected")
    worker.submit("run", rules="classic", goal="CCC", pegs=3)
    snapshots.wait_for(lambda s: s["moves_done"] >= 1 and s["busy"] == "running", "a run under way")
    worker.submit("pause")
    paused = snapshots.wait_for(lambda s: s["phase"] == "paused" and s["eta_s"] is not None, "paused")
    time.sleep(2.0)  # the operator thinks; the page keeps polling the board meanwhile
    later = snapshots.seen[-1]
    assert later["phase"] == "paused" and later is not paused, later
    assert abs(later["eta_s"] - paused["eta_s"]) <= 0.2, (paused["eta_s"], later["eta_s"])
    seen = len(snapshots.seen)
    worker.submit("continue")
    snapshots.wait_for(lambda s: s["message"].startswith("done"), "the run done")
    running = [s for s in snapshots.seen[seen:] if s["busy"] == "running"]
    assert running and not any(s["message"].startswith("paused") for s in running), running[:1]


def test_connect_says_when_it_gives_the_arm_another_board_than_the_one_it_knew(
    worker_on: Callable[[str], tuple[RobotWorker, Snapshots]],
) -> None:
    worker, snapshots = worker_on("sim://?realtime=0")
    worker.submit("connect", state="AAA", pegs=3)
    snapshots.wait_for(lambda s: s["connected"], "connected")
    worker.submit("run", rules="classic", goal="CCC", pegs=3)
    snapshots.wait_for(lambda s: s["message"].startswith("done"), "the run done")
    worker.submit("connect", state="AAA", pegs=3)  # the Play board still shows the start
    again = snapshots.wait_for(lambda s: s["connected"] and "Connect gave it" in s["message"], "the change said")
    assert "The arm's board was CCC: Connect gave it the Play board's AAA instead." in again["message"]
    assert again["board_text"] == "AAA"


def test_a_missed_pick_says_what_to_do(worker_on: Callable[[str], tuple[RobotWorker, Snapshots]]) -> None:
    worker, snapshots = worker_on("sim://?board=CAA&speed=8")  # disk 1 stands on C, the page says A
    worker.submit("connect", state="AAA", pegs=3)
    snapshots.wait_for(lambda s: s["connected"], "connected")
    worker.submit("run", rules="classic", goal="CCC", pegs=3)
    stopped = snapshots.wait_for(lambda s: s["message"].startswith("stopped by a fault"), "the fault")
    error = stopped["error"]
    assert "disk 1" in error and "Look at the arm and the disks: put a disk that is not where" in error, error
    assert error.endswith("then Home, and Resume to finish the run"), error
