"""The recovery matrix, shared by its targets: however a run ends, the next command finishes within a bound and
the simulated board records no collision or drop.

Rows are the ways a run ends on an emulated board behind a pty (every command in its own process): done, fault
(the run is told a board the disks are not on: its first pick misses), stopped at the pause prompt (Ctrl-C with
nobody to answer), Ctrl-C twice in a row, e-stopped by ``hanoibot estop`` from a second process (the run holds the
port and latches the e-stop itself), and the host killed (SIGKILL). The four stopping rows stop the run once the
world has logged :attr:`Bench.stop_at_pick` picks: a disk is in the gripper, the hardest moment to recover from.
Columns are the command run next. Each must exit within :attr:`Bench.bound_s` with an expected code (0, except
``home`` or ``resume`` without ``--clear`` after an e-stop: exit 2 with the line that names ``--clear``, the
board finishing no command; ``resume --clear`` then goes on), and the emulator's log must show no COLLISION or
DROP from the start of the row's run on (the virtual Pico's world cannot latch a fault in its firmware, so a
collision there would not stop the run: the log is the judge). ``run`` starts from where the world's log says
the disks are (done, fault); ``resume`` goes on from the row's journal.

:func:`check_cell` is the one test body; a :class:`Bench` says where it runs (which emulator, where its disks
are, the bound), so the CPython emulator and the virtual Pico run the very same steps.
"""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from cli_runner import HANOIBOT, ArmedCommand, hanoibot
from hanoibot.sim.spawn import EmulatorProcess
from hanoibot.sim.vpico.attach import ChipTimeControl
from world_events import bad_events, disks_after

ROWS = ("done", "fault", "stopped", "ctrl-c twice", "estopped", "killed")
COLUMNS = ("status", "home", "home --clear", "estop", "run", "resume")
#: Rows after which the test knows where the disks are, so a new ``run`` can be told; after a stop only the
#: journal knows (``resume``), and a disk may be in the gripper.
KNOWN_BOARD_ROWS = ("done", "fault")
CELLS = [(row, column) for row in ROWS for column in COLUMNS if column != "run" or row in KNOWN_BOARD_ROWS]
#: How each row's run process exits.
ROW_EXIT = {"done": 0, "fault": 1, "stopped": 130, "ctrl-c twice": 130, "estopped": 1, "killed": -signal.SIGKILL}
PEGS = "ABC"
#: On chip time, a stopping row stops the run this long after the pick it waits for (s of the chip's time): the disk
#: is lifted off its peg.
HOLD_AFTER_PICK_S = 0.2


@dataclass
class Bench:
    """Where a cell runs: ``emulator`` (its port and event log), ``disks`` (where the disks are as the cell
    starts: a peg letter per disk, smallest first), ``bound_s`` (wall-clock bound on every command, in s),
    ``stop_at_pick`` (the stopping rows stop the run once the world has logged that many picks), ``config``
    (the robot config file the emulator and every command use; None: the default robot) and ``chip_time`` (the
    emulator is a virtual Pico on chip time, ``--chip-time``: a stopping row holds the run at the pick in the
    chip's time, then stops it there, the same moment on every run)."""

    emulator: EmulatorProcess
    disks: str
    bound_s: float
    stop_at_pick: int
    config: str | None = None
    chip_time: bool = False

    @property
    def port_args(self) -> list[str]:
        """The options that point a command at this bench's board: ``--port`` (and ``--config``)."""
        config = [] if self.config is None else ["--config", self.config]
        return ["--port", self.emulator.port_path, *config]


def fault_board(disks: str) -> str:
    """The board a fault row's run is told: disk 1 on the peg of disk 2 (one level higher than it is, so the
    fingers close above the disk there), or with one disk on the next peg (so they close on nothing)."""
    told = PEGS[(PEGS.index(disks) + 1) % len(PEGS)] if len(disks) == 1 else disks[1] + disks[1:]
    assert told != disks, f"disk 1 is on the peg of disk 2 already on {disks}: no fault board for it"
    return told


def goal_for(board: str, preferred: str) -> str:
    """``preferred`` peg as the goal tower, or when every disk is there already, the first of A and C that is not."""
    return next(peg for peg in (preferred, "A", "C") if set(board) != {peg})


def last_done_command(bench: Bench) -> int:
    """The id of the last command the board finished, from ``hanoibot status --json``."""
    status = hanoibot("status", "--json", *bench.port_args, timeout_s=bench.bound_s)
    assert status.returncode == 0, status.stderr
    return int(json.loads(status.stdout)["last_done_cmd"])


def wait_for_picks(bench: Bench, seen: int, count: int, run: subprocess.Popen[str]) -> None:
    """Wait (at most ``bench.bound_s``) until the world logged ``count`` picks after its first ``seen`` events;
    fails at once, with what it said, if the ``run`` process ends first."""
    deadline_s = time.monotonic() + bench.bound_s
    while time.monotonic() < deadline_s:
        if sum(1 for e in bench.emulator.events()[seen:] if e.get("event") == "pick") >= count:
            return
        if run.poll() is not None:
            raise AssertionError(f"the run ended (exit {run.returncode}) before {count} picks: {run.communicate()[1]}")
        time.sleep(0.02)
    raise AssertionError(f"the run did not pick {count} disks within {bench.bound_s:g} s")


def release_after_a_moment(control: ChipTimeControl | None) -> None:
    """Let a held run go on (chip time), once the signal just sent to it has surely been taken (wall time)."""
    if control is not None:
        time.sleep(0.3)
        control.release()


def end_run(bench: Bench, row: str, journal: Path) -> None:
    """Play a journaled run from ``bench.disks`` (told another board for ``fault``) and end it as ``row`` says."""
    board = fault_board(bench.disks) if row == "fault" else bench.disks
    argv = [
        "run",
        "--from",
        board,
        "--to",
        goal_for(board, "C"),
        "--plain",
        *bench.port_args,
        "--journal",
        str(journal),
    ]
    seen = len(bench.emulator.events())
    # The e-stop's process is armed ahead, so that it lands while the disk is carried however loaded the machine.
    estop = ArmedCommand("estop", *bench.port_args, timeout_s=bench.bound_s) if row == "estopped" else None
    control = None
    if bench.chip_time and row not in ("done", "fault"):
        control = ChipTimeControl(bench.emulator.link_path)
        control.hold("pick", bench.stop_at_pick, after_s=HOLD_AFTER_PICK_S)
    process = subprocess.Popen(
        [*HANOIBOT, *argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        if control is not None:
            control.wait_held(bench.bound_s, alive=lambda: process.poll() is None)
        elif row not in ("done", "fault"):
            wait_for_picks(bench, seen, bench.stop_at_pick, process)
        if row == "ctrl-c twice":
            process.send_signal(signal.SIGINT)
            release_after_a_moment(control)
            time.sleep(0.1)
            process.send_signal(signal.SIGINT)
        elif estop is not None:
            # The run relays the e-stop between its link reads: a held run reads again only once released.
            releasing = threading.Timer(0.5, release_after_a_moment, (control,)) if control is not None else None
            if releasing is not None:
                releasing.start()
            stopped = estop.fire()
            if releasing is not None:
                releasing.join()
            assert stopped.returncode == 0 and f"(pid {process.pid}) stopped the arm" in stopped.stdout, stopped
        elif row == "stopped":
            process.send_signal(signal.SIGINT)
            release_after_a_moment(control)
        elif row == "killed":
            process.send_signal(signal.SIGKILL)  # held or not: the host dies at that moment of the chip's time
        _out, err = process.communicate(timeout=bench.bound_s)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
        if estop is not None:
            estop.close()
        if control is not None:
            control.close()
    assert process.returncode == ROW_EXIT[row], f"{row}: exit {process.returncode}: {err}"
    if row == "done":
        goal = goal_for(board, "C") * len(board)
        assert disks_after(bench.disks, bench.emulator.events()) == goal, "the world's disks are not on the goal"


def check_cell(bench: Bench, row: str, column: str, journal: Path) -> int:
    """End a run as ``row`` says, run ``column`` next: it exits in time with the expected code, and nothing
    collides or drops from the start of the row's run on; returns the column's exit code."""
    started = len(bench.emulator.events())
    end_run(bench, row, journal)
    events = bench.emulator.events()
    port = bench.port_args
    bound_s = bench.bound_s
    if column == "run":
        now = disks_after(bench.disks, events)
        assert now is not None, "a run that ended done or in fault left a disk in the air"
        result = hanoibot("run", "--plain", "--from", now, "--to", goal_for(now, "A"), *port, timeout_s=bound_s)
        assert result.returncode == 0, result.stderr
    elif (row, column) == ("estopped", "resume"):
        # An e-stop is released only when asked to: resume refuses (nothing moves), resume --clear goes on.
        done_before = last_done_command(bench)
        result = hanoibot("resume", "--journal", str(journal), "--plain", *port, timeout_s=bound_s)
        assert result.returncode == 2 and "--clear" in result.stderr, result.stderr
        assert last_done_command(bench) == done_before, "resume moved the arm before the e-stop was released"
        result = hanoibot("resume", "--journal", str(journal), "--plain", "--clear", *port, timeout_s=bound_s)
        assert result.returncode == 0, result.stderr
    elif column == "resume":
        result = hanoibot("resume", "--journal", str(journal), "--plain", *port, timeout_s=bound_s)
        if row == "fault":
            assert result.returncode in (0, 1), result.stderr  # the disks still are not where the plan says
        else:
            assert result.returncode == 0, result.stderr
    elif (row, column) == ("estopped", "home"):
        result = hanoibot(*column.split(), "--journal", str(journal), *port, timeout_s=bound_s)
        assert result.returncode == 2 and "hanoibot home --clear" in result.stderr, result.stderr
    elif column.startswith("home"):
        # The journal tells home which disk a stopped run left in the gripper, so it can put it down first.
        result = hanoibot(*column.split(), "--journal", str(journal), *port, timeout_s=bound_s)
        assert result.returncode == 0, result.stderr
    else:
        result = hanoibot(*column.split(), *port, timeout_s=bound_s)
        assert result.returncode == 0, result.stderr
    bad = bad_events(bench.emulator.events()[started:])
    assert bad == [], json.dumps(bad)
    return result.returncode
