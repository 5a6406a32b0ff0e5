"""What ``hanoibot run`` and ``resume`` show while the arm works: a live progress bar and the ASCII board on a
terminal (rich), one plain line per move when the output is piped or in CI.

Times are robot time: the simulated clock on ``sim://`` (so a simulated run shows the seconds a real arm would
take, labelled "simulated"), the wall clock on a real board (labelled "elapsed"). The ETA is the measured mean
cycle time per move times the moves left; time spent paused at the prompt counts for neither.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Self, TextIO, TypeVar

from ..ops.person import read_line_while
from ..puzzle import Move, State, peg_letter
from ..puzzle.colours import COLOUR_LETTERS, COLOUR_NAMES
from ..render import render_board_ascii
from ..words import count_of

T = TypeVar("T")


def format_duration_s(seconds: float | None) -> str:
    """``seconds`` as ``h:mm:ss`` (or ``-:--:--`` when unknown)."""
    if seconds is None:
        return "-:--:--"
    whole = round(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


class RunView:
    """Progress of a run of ``total`` moves starting at move ``first_k`` from ``state``; a context manager.

    ``now_s`` reads robot time in seconds; ``simulated``: that clock is a simulation's (the label says so).
    ``live``: rich display (default: when ``out`` is a terminal). ``per_size`` > 1: the disks are a coloured set
    (:mod:`hanoibot.puzzle.colours`), named and drawn by size and colour.
    """

    def __init__(
        self,
        total: int,
        state: State,
        now_s: Callable[[], float],
        *,
        first_k: int = 0,
        live: bool | None = None,
        out: TextIO | None = None,
        simulated: bool = False,
        per_size: int = 1,
    ) -> None:
        self.total = total
        self.per_size = per_size
        self.first_k = first_k
        self.state = state
        self.now_s = now_s
        self.out = out if out is not None else sys.stdout
        self.live = self.out.isatty() if live is None else live
        self.start_s = now_s()
        self.simulated = simulated
        self.time_label = "simulated time" if simulated else "elapsed"
        self.paused_s = 0.0
        self.done = first_k
        self._last_move: Move | None = None
        self._live: Any = None
        self._progress: Any = None
        self._task: Any = None

    # --- numbers ------------------------------------------------------------------------------------
    def elapsed_s(self) -> float:
        """Robot time since the view started, in seconds."""
        return self.now_s() - self.start_s

    def active_s(self) -> float:
        """Robot time since the view started minus the time spent paused, in seconds."""
        return self.elapsed_s() - self.paused_s

    def eta_s(self) -> float | None:
        """Robot time still needed, from the mean cycle time of the moves run so far (None before the first)."""
        run = self.done - self.first_k
        if run <= 0:
            return None
        return self.active_s() / run * (self.total - self.done)

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """While inside, time does not count toward the cycle time and the ETA (the operator is being asked), and
        the live display stands still below its last frame, so the question asked inside stays the last thing on
        the screen (a redraw would wipe it: the operator would think the run hung)."""
        began_s = self.now_s()
        live = self._live
        if live is not None:
            live.stop()
        try:
            yield
        finally:
            self.paused_s += self.now_s() - began_s
            if live is not None and self._live is live:
                live.start(refresh=True)

    def disk_name(self, disk: int) -> str:
        """``disk 4``, or on a coloured set ``disk 4 (2 green)``: its size and colour."""
        if self.per_size == 1:
            return f"disk {disk}"
        return f"disk {disk} ({(disk - 1) // self.per_size + 1} {COLOUR_NAMES[(disk - 1) % self.per_size]})"

    def line(self) -> str:
        """One plain progress line for the last move."""
        move = self._last_move
        what = f"{self.disk_name(move.disk)} {peg_letter(move.src)} -> {peg_letter(move.dst)}" if move else "ready"
        return (
            f"move {self.done} of {self.total}: {what}  {self.time_label} {format_duration_s(self.elapsed_s())}"
            f"  eta {format_duration_s(self.eta_s())}"
        )

    # --- updates ------------------------------------------------------------------------------------
    def move_done(self, k: int, move: Move, state: State) -> None:
        """The board confirmed move ``k`` (0-based); ``state`` is the board after it."""
        self.done = k + 1
        self._last_move = move
        self.state = state
        if self._live is not None:
            self._refresh()
        else:
            print(self.line(), file=self.out, flush=True)

    def message(self, text: str) -> None:
        """A line for the operator (above the live display on a terminal)."""
        if self._live is not None:
            self._live.console.print(text)
        else:
            print(text, file=self.out, flush=True)

    def ask(self, question: str, keep_waiting: Callable[[], bool] | None = None) -> str | None:
        """Ask the operator ``question`` and return the answer line; the text is shown as is (no rich markup).

        With ``keep_waiting``, stdin is watched and ``keep_waiting()`` runs every :data:`ANSWER_POLL_S` s until a
        line comes; None as soon as it returns False. EOFError at the end of input."""
        if keep_waiting is None:
            if self._live is not None:
                from rich.text import Text

                answer: str = self._live.console.input(Text(question))
                return answer
            return input(question)
        if self._live is not None:
            from rich.text import Text

            self._live.console.print(Text(question), end="")
        else:
            print(question, end="", file=self.out, flush=True)
        return read_line_while(keep_waiting)

    def choose(
        self, question: str, answers: Mapping[str, T], keep_waiting: Callable[[], bool] | None = None
    ) -> T | None:
        """Ask the operator ``question`` until one of ``answers`` comes (:meth:`hanoibot.ops.person.Person.choose`:
        one key at a terminal, a line otherwise), shown as is; ``keep_waiting()`` runs every
        :data:`ANSWER_POLL_S` s meanwhile (None as soon as it returns False, and at the end of input)."""
        from ..ops.person import Person, never_stop

        return Person(keep_waiting or never_stop, out=self.out).choose(question, answers)

    def _refresh(self) -> None:
        from rich.console import Group
        from rich.text import Text

        move = self._last_move
        what = f"{self.disk_name(move.disk)} {peg_letter(move.src)} → {peg_letter(move.dst)}" if move else "ready"
        self._progress.update(
            self._task,
            completed=self.done,
            description=what,
            elapsed=format_duration_s(self.elapsed_s()),
            eta=format_duration_s(self.eta_s()),
        )
        board = Text(render_board_ascii(self.state, height=self.state.n_disks, per_size=self.per_size))
        if self.per_size > 1:
            for letter, name in zip(COLOUR_LETTERS, COLOUR_NAMES, strict=True):
                board.highlight_regex(rf"\[=*\d+{letter}=*\]", name)
        self._live.update(Group(self._progress, board))

    # --- lifetime -----------------------------------------------------------------------------------
    def __enter__(self) -> Self:
        if self.live:
            from rich.console import Console
            from rich.live import Live
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self._progress = Progress(
                TextColumn("move"),
                MofNCompleteColumn(),
                BarColumn(),
                TextColumn("{task.description}"),
                TextColumn(self.time_label + " {task.fields[elapsed]}  ETA {task.fields[eta]}"),
            )
            self._task = self._progress.add_task(
                "ready", total=self.total, completed=self.done, elapsed=format_duration_s(0), eta="-:--:--"
            )
            self._live = Live(console=Console(file=self.out), refresh_per_second=8, transient=False)
            self._live.__enter__()
            self._refresh()
        else:
            times = "; times are simulated (what a real arm would take)" if self.simulated else ""
            print(f"run: {count_of(self.total, 'move')} from {self.state}{times}", file=self.out, flush=True)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.__exit__(None, None, None)
            self._live = None
