"""Tests for the run journal: checksummed lines, fsync'd appends, torn last lines, damaged files."""

from __future__ import annotations

import binascii
import json
from pathlib import Path

import pytest
from hanoibot.errors import JournalError
from hanoibot.puzzle import Move
from hanoibot.run.journal import Journal, decode_record, encode_record, load_journal, read_records
from hypothesis import given, settings
from hypothesis import strategies as st

PHASES = ("approach", "descend", "grip", "lift", "travel", "lower", "release", "retreat")
SPEC = {"n_disks": 3, "pegs": 3, "topology": "any", "big_on_top": False, "start": "AAA", "goal": "CCC", "length": 7}


def write_run(path: Path, moves_done: int, *, open_last: bool) -> None:
    """A journal of a 3-disk run with ``moves_done`` finished moves and optionally one more sent but not done."""
    with Journal.create(path) as journal:
        journal.record_plan(SPEC, config_hash="abc", boot_id="b00t", port="sim://", config_path="robot.toml")
        for k in range(moves_done + int(open_last)):
            journal.record_send(k, Move(1, 0, 2), 8 * k + 1, 8 * k + 8, PHASES)
            if k < moves_done:
                journal.record_done(k)


def test_record_line_is_json_star_crc32_checked_independently() -> None:
    line = encode_record({"type": "done", "k": 4})
    body, crc_hex = line.rstrip(b"\n").split(b"*")
    assert json.loads(body) == {"type": "done", "k": 4}
    assert int(crc_hex, 16) == binascii.crc32(body)
    assert line.endswith(b"\n") and line.count(b"\n") == 1


@given(st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=8), max_size=4), st.text(max_size=6))
def test_any_record_round_trips(extra: dict[str, object], kind: str) -> None:
    record = {**extra, "type": kind}
    assert decode_record(encode_record(record).rstrip(b"\n")) == record


@given(st.integers(min_value=0, max_value=200), st.integers(min_value=0, max_value=7))
def test_a_single_flipped_bit_is_never_accepted(position: int, bit: int) -> None:
    line = bytearray(encode_record({"type": "send", "k": 12, "first_cmd": 97}).rstrip(b"\n"))
    line[position % len(line)] ^= 1 << bit
    assert decode_record(bytes(line)) is None


def test_fold_tracks_plan_moves_and_the_open_move(tmp_path: Path) -> None:
    path = tmp_path / "run.journal"
    write_run(path, 3, open_last=True)
    log = load_journal(path)
    assert log.plan_spec == SPEC and log.config_hash == "abc" and log.boot_id == "b00t"
    assert log.port == "sim://" and log.config_path == "robot.toml"
    assert log.moves_done == 3
    assert log.open_move is not None and (log.open_move.k, log.open_move.first_cmd, log.open_move.last_cmd) == (
        3,
        25,
        32,
    )
    assert log.last_cmd_id == 32


def test_a_new_plan_record_replaces_the_moves_of_the_old_one(tmp_path: Path) -> None:
    path = tmp_path / "run.journal"
    write_run(path, 2, open_last=False)
    with Journal.open_append(path) as journal:
        journal.record_boot("n3w")
        journal.record_plan({**SPEC, "start": "CAA"}, config_hash="abc", boot_id="n3w")
    log = load_journal(path)
    assert log.moves_done == 0 and log.open_move is None and log.plan_spec["start"] == "CAA"
    assert log.boot_id == "n3w" and log.last_cmd_id == 16, "command ids keep counting up across plans"


@settings(max_examples=60)
@given(st.integers(min_value=0, max_value=4), st.data())
def test_truncation_anywhere_in_the_last_record_never_breaks_loading(moves_done: int, data: st.DataObject) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "run.journal"
        write_run(path, moves_done, open_last=True)
        whole = path.read_bytes()
        records_before, _ = read_records(path)
        last_start = whole.rstrip(b"\n").rfind(b"\n") + 1
        cut = data.draw(st.integers(min_value=last_start, max_value=len(whole) - 1), label="cut")
        path.write_bytes(whole[:cut])
        records, good_bytes = read_records(path)
        assert records == records_before[:-1]
        assert good_bytes == last_start
        with Journal.open_append(path) as journal:
            journal.record_end("stopped")
        records_after, _ = read_records(path)
        assert records_after == [*records_before[:-1], {"type": "end", "status": "stopped"}]


def test_a_damaged_line_before_the_last_is_an_error_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "run.journal"
    write_run(path, 2, open_last=False)
    lines = path.read_bytes().split(b"\n")
    lines[2] = lines[2].replace(b'"k":0', b'"k":9')
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(JournalError, match="line 3 of"):
        load_journal(path)


@pytest.mark.parametrize(
    "content",
    [b"[robot]\nname = 'x'\nspeed = 3\n", b"\x00\x01\x02\xff" * 50, b""],
    ids=["toml", "binary", "empty"],
)
def test_a_file_that_is_not_a_journal_is_one_clear_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "other.txt"
    path.write_bytes(content)
    with pytest.raises(JournalError, match=r"not a hanoibot journal|no complete record|not an intact"):
        load_journal(path)


def test_a_checksummed_file_without_a_header_is_not_a_journal(tmp_path: Path) -> None:
    path = tmp_path / "other.txt"
    path.write_bytes(encode_record({"type": "done", "k": 0}) * 2)
    with pytest.raises(JournalError, match="not a hanoibot journal"):
        load_journal(path)


def test_create_refuses_to_overwrite_and_missing_files_are_named(tmp_path: Path) -> None:
    path = tmp_path / "run.journal"
    write_run(path, 0, open_last=False)
    with pytest.raises(JournalError, match="already exists"):
        Journal.create(path)
    with pytest.raises(JournalError, match="cannot read journal"):
        load_journal(tmp_path / "missing.journal")


def test_a_journal_with_only_a_header_records_no_plan(tmp_path: Path) -> None:
    path = tmp_path / "run.journal"
    Journal.create(path).close()
    with pytest.raises(JournalError, match="records no plan"):
        load_journal(path)


def test_every_append_reaches_the_file_before_close(tmp_path: Path) -> None:
    path = tmp_path / "run.journal"
    journal = Journal.create(path)
    journal.record_plan(SPEC, config_hash="abc", boot_id="b")
    journal.record_send(0, Move(1, 0, 2), 1, 8, PHASES)
    assert load_journal(path).open_move is not None, "the send record must be on disk while the journal is open"
    journal.close()


def test_fsync_is_called_for_every_record(tmp_path: Path, mocker) -> None:  # type: ignore[no-untyped-def]
    fsync = mocker.patch("hanoibot.run.journal.os.fsync")
    with Journal.create(tmp_path / "run.journal") as journal:
        calls_after_header = fsync.call_count
        journal.record_send(0, Move(1, 0, 2), 1, 8, PHASES)
        journal.record_done(0)
    assert fsync.call_count == calls_after_header + 2


def test_the_phase_after_a_finished_command_id_comes_from_the_recorded_phases(tmp_path: Path) -> None:
    path = tmp_path / "run.journal"
    write_run(path, 0, open_last=True)
    entry = load_journal(path).moves[0]
    assert entry.first_phase == "approach"
    assert [entry.phase_after(cmd) for cmd in range(0, 10)] == [*PHASES, None, None]


def test_a_send_record_needs_one_phase_per_command_id(tmp_path: Path) -> None:
    expected = r"3 phases for command ids 1\.\.8"
    with Journal.create(tmp_path / "j") as journal, pytest.raises(JournalError, match=expected):
        journal.record_send(0, Move(1, 0, 2), 1, 8, PHASES[:3])


def test_a_journal_in_use_by_another_writer_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "run.journal"
    write_run(path, 1, open_last=False)
    with Journal.open_append(path), pytest.raises(JournalError, match="in use by another"):
        Journal.open_append(path)
    with Journal.open_append(path) as journal:
        journal.record_end("done")
    assert load_journal(path).end_status == "done"
