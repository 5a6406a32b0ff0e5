"""Lines of text for many moves at C speed, from the runs of moves a plan hands out (:meth:`Plan.runs_from`).

Lines are ASCII bytes, for the binary buffer under the text stream. Each distinct move's line is made once. A long
run (a plan's memoised block comes back as the same tuple object every time its sub-tower recurs) is joined into
one bytes string once and kept by identity; numbered lines keep the line numbers out of that string as ``%d``
fields, so a recurring block costs one ``%`` format (a C loop) with the numbers as a ``tuple(range(...))``. Short
runs are gathered into batches first, so a plan of many single moves does not pay a format call per move.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

from ..puzzle import Move

#: Runs of at least this many moves are kept by identity once their text is made.
SHARED_RUN = 256
#: How many such runs' texts are kept (the plans recur a handful of blocks; each text is up to ~200 kB).
KEPT_RUNS = 32
#: Moves of short runs gathered before they are formatted together.
BATCH_MOVES = 4096
#: Moves per chunk of numbered output: each chunk pads its numbers to the width of its own last number.
CHUNK_MOVES = 8192

MoveRun = Sequence[Move]


class RunText:
    """The text of runs of moves, each move's line made once by ``line(move)``; texts of long runs kept by
    identity."""

    def __init__(self, line: Callable[[Move], bytes]) -> None:
        self._lines = _Lines(line)
        self._kept: dict[int, tuple[MoveRun, bytes]] = {}

    def of(self, run: MoveRun) -> bytes:
        """The lines of ``run`` joined (from the kept text when ``run`` is a long run seen before)."""
        if len(run) < SHARED_RUN:
            return b"".join(map(self._lines.__getitem__, run))
        kept = self._kept.get(id(run))
        if kept is not None and kept[0] is run:
            return kept[1]
        text = b"".join(map(self._lines.__getitem__, run))
        if len(self._kept) >= KEPT_RUNS:
            del self._kept[next(iter(self._kept))]
        self._kept[id(run)] = (run, text)  # the run is kept too, so its id cannot be reused while its text is
        return text


class _Lines(dict[Move, bytes]):
    """Each distinct move's line, made by ``make`` on first use."""

    def __init__(self, make: Callable[[Move], bytes]) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, move: Move) -> bytes:
        line = self[move] = self.make(move)
        return line


class RunStream:
    """Runs of moves taken a given number of moves at a time; a run cut at the end of a take is finished by the
    next take."""

    def __init__(self, runs: Iterable[MoveRun]) -> None:
        self._runs = iter(runs)
        self._rest: MoveRun = ()

    def take(self, count: int) -> Iterator[MoveRun]:
        """The next runs, ``count`` moves in all (fewer when the runs end first); short runs gathered into
        batches of about :data:`BATCH_MOVES`, long runs handed on whole where they fit."""
        batch: list[Move] = []
        while count > 0:
            run: MoveRun | None = self._rest
            self._rest = ()
            if not run:
                run = next(self._runs, None)
                if run is None:
                    break
            if len(run) > count:
                run, self._rest = run[:count], run[count:]
            count -= len(run)
            if len(run) >= SHARED_RUN:
                if batch:
                    yield batch
                    batch = []
                yield run
            else:
                batch.extend(run)
                if len(batch) >= BATCH_MOVES:
                    yield batch
                    batch = []
        if batch:
            yield batch


def width_spans(lo: int, hi: int) -> Iterator[tuple[int, int]]:
    """(end, width) in order: moves up to index ``end`` (0-based, exclusive) are numbered with ``width`` digits.

    Output is padded chunk by chunk (:data:`CHUNK_MOVES` moves from ``lo``) to the digits of the chunk's last
    number (1-based), so the width follows what is printed; it changes only where that number gains a digit.
    """
    start = lo
    while start < hi:
        last = min(start + CHUNK_MOVES, hi)  # the 1-based number of the chunk's last move
        width = len(str(last))
        end = hi
        if hi >= 10**width:  # the first chunk whose last number reaches 10**width starts the next span
            end = lo + (-(-(10**width - lo) // CHUNK_MOVES) - 1) * CHUNK_MOVES
        yield end, width
        start = end


def numbered_lines(
    runs: Iterable[MoveRun], lo: int, hi: int, head: str, tail: Callable[[Move], str]
) -> Iterator[bytes]:
    """Text of moves ``lo`` .. ``hi - 1`` from ``runs`` (which start at move ``lo``), one ``head % k`` + ``tail(move)``
    line each, k the 1-based move number; a ``*`` in ``head`` is the padding width (see :func:`width_spans`). Pieces
    of up to a few thousand lines, in order."""
    stream = RunStream(runs)
    k = lo
    for end, width in width_spans(lo, hi):
        text = RunText(_line_format(head.replace("*", str(width)), tail))
        for run in stream.take(end - k):
            yield text.of(run) % tuple(range(k + 1, k + 1 + len(run)))
            k += len(run)


def _line_format(head: str, tail: Callable[[Move], str]) -> Callable[[Move], bytes]:
    """A move's numbered line as a bytes ``%`` format: ``head`` (with its number field), then ``tail(move)``
    escaped."""

    def line(move: Move) -> bytes:
        return (head + tail(move).replace("%", "%%")).encode()

    return line
