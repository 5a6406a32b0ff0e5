"""Append-only run journal for exactly-once resume.

One record per line: the record as compact JSON, a ``*`` and the CRC-32 of the JSON bytes as eight hex digits
(the same shape as a wire frame). Every append is flushed and fsync'd before :meth:`Journal.append` returns, so a
record that was written survives a host crash. A crash while writing leaves at most one torn last line; loading
ignores it (and :meth:`Journal.open_append` cuts it off before appending). Any other damaged line, or a file that
does not start with a journal header, is a :class:`~hanoibot.errors.JournalError`.

Records (``type`` field):

``header``  first line: format name and version.
``plan``    what is being run, enough to rebuild the plan (``spec``), the robot config hash and the board's boot
            id. A later ``plan`` record (after a board reset and a replan) replaces the earlier one; move indices
            of ``send``/``done`` records count from the latest ``plan`` record.
``boot``    the host (re)connected to a board with this boot id.
``send``    written before move ``k`` is sent: the move, the first/last command id of its segments and the phase
            of each segment. A later ``send`` for the same move (a retried pick) replaces the earlier one.
``done``    written when the board confirmed the last segment of move ``k`` done.
``end``     the run ended with ``status`` (done, fault, estopped, stopped).
``board``   after the run stopped, ``hanoibot home --journal`` put the disks (a held one put down) as ``state``
            says: no move is open any more, and ``resume`` replans from that state.
"""

from __future__ import annotations

import binascii
import fcntl
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from ..errors import JournalError
from ..motion.phases import MotionPhase
from ..puzzle import Move

FORMAT_NAME = "hanoibot-journal"
FORMAT_VERSION = 1

Record = dict[str, Any]


def encode_record(record: Record) -> bytes:
    """One journal line: compact JSON, ``*``, CRC-32 of the JSON as 8 hex digits, newline."""
    body = json.dumps(record, separators=(",", ":"), sort_keys=True).encode()
    return body + b"*%08x\n" % (binascii.crc32(body) & 0xFFFFFFFF)


def decode_record(line: bytes) -> Record | None:
    """The record on one line (without its newline), or None if the line is damaged or not a record."""
    body, star, crc_hex = line.rpartition(b"*")
    if not star or len(crc_hex) != 8 or crc_hex.strip(b"0123456789abcdef"):
        return None
    try:
        crc_ok = int(crc_hex, 16) == binascii.crc32(body) & 0xFFFFFFFF
        record = json.loads(body) if crc_ok else None
    except ValueError:
        return None
    return record if isinstance(record, dict) and isinstance(record.get("type"), str) else None


def read_records(path: str | Path) -> tuple[list[Record], int]:
    """Every intact record of the journal at ``path`` and the byte length they fill.

    A damaged last line is a torn write and is left out; a damaged line before it raises JournalError.
    """
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise JournalError(f"cannot read journal {str(path)!r}: {err.strerror or err}") from None
    records: list[Record] = []
    good_bytes = 0
    # The newline commits a record: the piece after the last newline is a torn write (or empty).
    lines = data.split(b"\n")[:-1]
    for number, line in enumerate(lines, start=1):
        record = decode_record(line)
        if record is None:
            if number == len(lines):
                break
            raise JournalError(
                f"line {number} of {str(path)!r} is not an intact journal record: expected JSON*CRC32 "
                "(the file is damaged or not a hanoibot journal)"
            )
        if number == 1 and (record.get("type") != "header" or record.get("format") != FORMAT_NAME):
            raise JournalError(f"{str(path)!r} is not a hanoibot journal: its first record is not a journal header")
        records.append(record)
        good_bytes += len(line) + 1
    return records, good_bytes


@dataclass
class MoveEntry:
    """What the journal knows about one move of the current plan: its command ids and whether it finished."""

    k: int
    move: Move
    first_cmd: int
    last_cmd: int
    phases: tuple[MotionPhase, ...]
    done: bool = False

    @property
    def first_phase(self) -> MotionPhase:
        """Phase of the first segment sent for this move (``approach``, or later when resumed half done)."""
        return self.phases[0]

    def phase_after(self, last_done_cmd: int) -> MotionPhase | None:
        """Phase of the first segment not finished when ``last_done_cmd`` is the board's last finished id."""
        index = max(last_done_cmd - self.first_cmd + 1, 0)
        return self.phases[index] if index < len(self.phases) else None


@dataclass
class JournalLog:
    """The run as the journal tells it, folded from its records (the latest plan wins)."""

    plan_spec: Record = field(default_factory=dict)
    config_hash: str = ""
    boot_id: str = ""
    port: str = ""
    config_path: str = ""
    moves: dict[int, MoveEntry] = field(default_factory=dict)
    last_cmd_id: int = 0
    end_status: str | None = None
    records: int = 0
    #: Where ``hanoibot home`` left the disks after the run stopped (a state string), None while the plan says.
    board: str | None = None

    @property
    def moves_done(self) -> int:
        """Number of moves of the current plan confirmed done, counted from its first move (all before too)."""
        k = 0
        while k in self.moves and self.moves[k].done:
            k += 1
        return k

    @property
    def open_move(self) -> MoveEntry | None:
        """The move that was sent but not confirmed done, if any (at most one after the done prefix)."""
        if self.board is not None:
            return None  # home put the moving disk down: the board record says where
        entry = self.moves.get(self.moves_done)
        return entry if entry is not None and not entry.done else None

    def fold(self, record: Record) -> None:
        """Apply one record to this view."""
        kind = record["type"]
        self.records += 1
        if kind == "plan":
            self.plan_spec = dict(record["spec"])
            self.config_hash = str(record.get("config_hash", ""))
            self.boot_id = str(record.get("boot_id", ""))
            self.port = str(record.get("port", self.port))
            self.config_path = str(record.get("config_path", self.config_path))
            self.moves = {}
            self.end_status = None
            self.board = None
        elif kind == "boot":
            self.boot_id = str(record["boot_id"])
        elif kind == "send":
            k = int(record["k"])
            self.moves[k] = MoveEntry(
                k,
                Move(*record["move"]),
                int(record["first_cmd"]),
                int(record["last_cmd"]),
                tuple(MotionPhase(phase) for phase in record["phases"]),
            )
            self.last_cmd_id = max(self.last_cmd_id, int(record["last_cmd"]))
        elif kind == "done":
            self.moves[int(record["k"])].done = True
        elif kind == "end":
            self.end_status = str(record["status"])
        elif kind == "board":
            self.board = str(record["state"])


def load_journal(path: str | Path) -> JournalLog:
    """Read and fold the journal at ``path``; JournalError if it is not a journal or holds no plan."""
    records, _ = read_records(path)
    if not records:
        raise JournalError(f"journal {str(path)!r} holds no complete record: no run was started with it")
    log = JournalLog()
    try:
        for record in records[1:]:
            log.fold(record)
    except (KeyError, TypeError, ValueError) as err:
        raise JournalError(f"journal {str(path)!r} has a record with a missing or bad field ({err})") from None
    if not log.plan_spec:
        raise JournalError(f"journal {str(path)!r} records no plan: nothing to resume")
    return log


class Journal:
    """Writer for one journal file; a context manager. Every append is fsync'd before it returns."""

    def __init__(self, path: str | Path, *, _file: Any) -> None:
        self.path = Path(path)
        self._file = _file

    @classmethod
    def create(cls, path: str | Path) -> Self:
        """Start a new journal at ``path`` (JournalError if a file is already there)."""
        try:
            handle = open(path, "xb")  # noqa: SIM115 - kept open for the life of the journal
        except FileExistsError:
            raise JournalError(
                f"journal {str(path)!r} already exists: use `hanoibot resume --journal {path}` or a new file name"
            ) from None
        except OSError as err:
            raise JournalError(f"cannot create journal {str(path)!r}: {err.strerror or err}") from None
        journal = cls(path, _file=handle)
        journal._lock()
        journal.append({"type": "header", "format": FORMAT_NAME, "version": FORMAT_VERSION})
        _fsync_dir(Path(path))
        return journal

    @classmethod
    def open_append(cls, path: str | Path) -> Self:
        """Open an existing journal to continue it, cutting off a torn last line first."""
        records, good_bytes = read_records(path)
        if not records:
            raise JournalError(f"journal {str(path)!r} holds no complete record: no run was started with it")
        handle = open(path, "r+b")  # noqa: SIM115 - kept open for the life of the journal
        journal = cls(path, _file=handle)
        journal._lock()
        handle.truncate(good_bytes)
        handle.seek(good_bytes)
        return journal

    def _lock(self) -> None:
        """Hold an exclusive lock on the file while it is open: two hosts must never write one journal."""
        try:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._file.close()
            raise JournalError(
                f"journal {str(self.path)!r} is in use by another hanoibot process: stop that one first"
            ) from None

    def append(self, record: Record) -> None:
        """Write one record and force it to disk."""
        self._file.write(encode_record(record))
        self._file.flush()
        os.fsync(self._file.fileno())

    def record_plan(
        self, spec: Record, *, config_hash: str, boot_id: str, port: str = "", config_path: str = ""
    ) -> None:
        """Record the plan being run (see :func:`hanoibot.run.runner.plan_spec`), robot config and board."""
        self.append(
            {
                "type": "plan",
                "spec": spec,
                "config_hash": config_hash,
                "boot_id": boot_id,
                "port": port,
                "config_path": config_path,
            }
        )

    def record_boot(self, boot_id: str) -> None:
        """Record that the host is now talking to the board with ``boot_id``."""
        self.append({"type": "boot", "boot_id": boot_id})

    def record_send(self, k: int, move: Move, first_cmd: int, last_cmd: int, phases: Sequence[MotionPhase]) -> None:
        """Record, before sending, that move ``k`` goes out as command ids ``first_cmd``..``last_cmd``.

        ``phases`` names the phase of each of those segments, in order.
        """
        if len(phases) != last_cmd - first_cmd + 1:
            raise JournalError(f"{len(phases)} phases for command ids {first_cmd}..{last_cmd}: expected one per id")
        self.append(
            {
                "type": "send",
                "k": k,
                "move": list(move),
                "first_cmd": first_cmd,
                "last_cmd": last_cmd,
                "phases": [str(phase) for phase in phases],
            }
        )

    def record_done(self, k: int) -> None:
        """Record that the board confirmed move ``k`` finished."""
        self.append({"type": "done", "k": k})

    def record_end(self, status: str, *, frame_trace: Sequence[str] = ()) -> None:
        """Record how the run ended (done, fault, estopped, stopped), with the last frames on the wire when the
        link failed (``frame_trace``, see :mod:`hanoibot.link.trace`)."""
        record: Record = {"type": "end", "status": status}
        if frame_trace:
            record["frame_trace"] = list(frame_trace)
        self.append(record)

    def record_board(self, state: str) -> None:
        """Record that the disks now stand as ``state`` (a state string), put there after the run stopped."""
        self.append({"type": "board", "state": state})

    def close(self) -> None:
        """Close the file (every record is already on disk)."""
        self._file.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _fsync_dir(path: Path) -> None:
    """Force the directory entry of a new file to disk, so the file itself survives a crash."""
    try:
        fd = os.open(path.resolve().parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
