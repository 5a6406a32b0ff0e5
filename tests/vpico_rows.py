"""The boards of the recovery matrix on the virtual Pico (tests/hil/test_recovery_matrix_vpico*.py): one virtual Pico
per row of the table on chip time, handed from cell to cell while they pass.

To fit CI, the runs are tiny (one disk) and one board serves all the cells of a row: before each cell after the
first, unless the previous cell's command left the board idle, fault-free and empty-handed (``home``, ``home
--clear``, ``run`` or ``resume`` exiting 0), ``hanoibot home --clear --journal`` (of the previous cell) makes it so;
where the disk is comes from the world's own log. A cell that fails leaves its board behind: the next cell boots a
fresh one.
"""

from __future__ import annotations

from pathlib import Path

from cli_runner import hanoibot
from hanoibot.sim.spawn import EmulatorProcess
from recovery_matrix import Bench
from world_events import bad_events, disks_after

#: Longest any command may take in the chip's own time, in s (a 1-disk run is about 3 s of it).
CHIP_BOUND_S = 15.0
#: Wall time the emulator may take per second of chip time (a busy chip runs at 0.1-0.4x real time).
WALL_PER_CHIP_S = 10.0
#: Wall-clock time a ``hanoibot`` process needs beyond the chip's time (Python start-up on a loaded machine), s.
HOST_S = 15.0
#: Servo speed factor of the simulated world (as on the CPython emulator).
SPEED = "20"
#: Commands that, when they exit 0, leave the board idle, fault-free and empty-handed for the next cell's run.
READY_AFTER = ("home", "home --clear", "run", "resume")
#: Where the one disk starts on each row's board.
START = "A"
#: Longest the virtual Pico may take to boot to the firmware's HELLO, in s of wall time (a loaded machine).
BOOT_S = 120.0


class RowBoards:
    """One virtual Pico per row, handed from cell to cell while they pass: ``hanoibot emulate --pico --chip-time``
    with ``options`` (the default: the default robot on PWM servos, its world's servos :data:`SPEED` times as
    fast) and every command told ``config`` (None: the default robot)."""

    def __init__(self, options: tuple[str, ...] = ("--speed", SPEED), config: str | None = None) -> None:
        self.options = options
        self.config = config
        self.row: str | None = None
        self.emulator: EmulatorProcess | None = None
        self.journal: Path | None = None
        self.ready = False
        self.bound_s = HOST_S + WALL_PER_CHIP_S * CHIP_BOUND_S

    def bench(self, row: str) -> Bench:
        """The board for a cell of ``row``: the row's board made ready again, or a freshly booted one."""
        journal, self.journal = self.journal, None  # handed on again only once this cell passed
        if self.emulator is not None and row == self.row and journal is not None:
            ready = self._make_ready(self.emulator, journal)
            return Bench(self.emulator, ready, self.bound_s, stop_at_pick=1, config=self.config, chip_time=True)
        self.close()
        self.emulator = EmulatorProcess(
            "--pico", "--chip-time", *self.options, "--board", START, "--seed", "1", startup_s=BOOT_S
        )
        self.emulator.start()
        self.row = row
        return Bench(self.emulator, START, self.bound_s, stop_at_pick=1, config=self.config, chip_time=True)

    def passed(self, journal: Path, column: str, returncode: int) -> None:
        """The cell passed: its board may serve the row's next cell (``journal``: its run's journal; ``column``
        and ``returncode``: the command it ended with and how)."""
        self.journal = journal
        self.ready = returncode == 0 and column in READY_AFTER

    def close(self) -> None:
        """Stop the current board."""
        if self.emulator is not None:
            self.emulator.close()
        self.emulator = None

    def _make_ready(self, emulator: EmulatorProcess, journal: Path) -> str:
        """Bring the board back to idle, fault-free and empty-handed; returns where the disk is."""
        disks = disks_after(START, emulator.events())
        if not self.ready or disks is None:
            seen = len(emulator.events())
            config = [] if self.config is None else ["--config", self.config]
            port = ["--port", emulator.port_path, *config]
            home = hanoibot("home", "--clear", "--journal", str(journal), *port, timeout_s=self.bound_s)
            assert home.returncode == 0, f"home --clear after the previous cell: {home.stderr}"
            assert bad_events(emulator.events()[seen:]) == [], "home --clear after the previous cell collided"
            disks = disks_after(START, emulator.events())
        assert disks is not None, "the disk is still in the gripper after home --clear"
        return disks
