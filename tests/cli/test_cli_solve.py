"""``hanoibot solve``: formats, --start/--limit, methods, bad input (exit 2, one line), pipes, lean start-up."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from collections.abc import Iterator

import pytest
from hanoibot.cli import main
from hypothesis import given, settings
from hypothesis import strategies as st


def run_cli(*argv: str) -> tuple[int, str, str]:
    """Run ``hanoibot`` in-process; returns (exit code, stdout, stderr). Stdout has a real byte buffer."""
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    err = io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = main(list(argv))
    finally:
        sys.stdout, sys.stderr = saved
    out.flush()
    return code, out.buffer.getvalue().decode(), err.getvalue()  # type: ignore[attr-defined]


def textbook(n: int, src: str = "A", dst: str = "C") -> Iterator[str]:
    """``DISK FROM TO`` lines of the textbook recursion (independent oracle)."""
    if n:
        aux = ({"A", "B", "C"} - {src, dst}).pop()
        yield from textbook(n - 1, src, aux)
        yield f"{n} {src} {dst}"
        yield from textbook(n - 1, aux, dst)


@pytest.mark.parametrize("method", ["recursive", "iterative", "gray", "bits", "turing"])
def test_plain_prints_the_textbook_lines(method: str) -> None:
    code, out, _ = run_cli("solve", "-n", "6", "--format", "plain", "--method", method)
    assert code == 0
    assert out.splitlines() == list(textbook(6))


def test_towers_on_other_pegs_by_letter_or_state() -> None:
    assert run_cli("solve", "-n", "4", "--from", "C", "--to", "B", "--format", "plain")[1].splitlines() == list(
        textbook(4, "C", "B")
    )
    assert run_cli("solve", "--from", "BBB", "--to", "AAA", "--format", "plain")[1].splitlines() == list(
        textbook(3, "B", "A")
    )


@settings(max_examples=40)
@given(n=st.integers(1, 9), data=st.data())
def test_start_and_limit_print_a_slice(n: int, data: st.DataObject) -> None:
    lines = list(textbook(n))
    start = data.draw(st.integers(1, len(lines)))
    limit = data.draw(st.integers(0, len(lines) + 2))
    fmt = data.draw(st.sampled_from(["plain", "json", "text"]))
    code, out, _ = run_cli("solve", "-n", str(n), "--format", fmt, "--start", str(start), "--limit", str(limit))
    assert code == 0
    printed = out.splitlines()[0 if fmt == "plain" else 1 :]
    expected = lines[start - 1 : start - 1 + limit]
    if fmt == "json":
        printed = [f"{m['disk']} {m['from']} {m['to']}" for m in map(json.loads, printed)]
    elif fmt == "text":
        printed = [re.sub(r"^ +\d+  disk (\d+)  (\w) -> (\w)$", r"\1 \2 \3", line) for line in printed]
    assert printed == expected


def test_64_disks_from_move_ten_to_the_nineteenth_is_instant() -> None:
    code, out, _ = run_cli("solve", "-n", "64", "--start", "10000000000000000000", "--limit", "3", "--format", "plain")
    assert code == 0
    frame = "ACB"  # the published bit formula moves an even tower from its peg 0 to its peg 1
    expected = [
        f"{(m & -m).bit_length()} {frame[(m & (m - 1)) % 3]} {frame[((m | (m - 1)) + 1) % 3]}"
        for m in range(10**19, 10**19 + 3)
    ]
    assert out.splitlines() == expected


def test_text_format_is_numbered_with_a_header() -> None:
    code, out, _ = run_cli("solve", "-n", "3")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 8
    assert "7 moves" in lines[0] and "optimal" in lines[0] and "method recursive" in lines[0]
    assert lines[5] == "  5  disk 1  B -> A"


def test_one_move_is_singular() -> None:
    code, out, _ = run_cli("solve", "-n", "1")
    assert code == 0 and out.startswith("A -> C in 1 move, ")


def test_text_numbers_are_padded_to_the_width_of_what_is_printed() -> None:
    code, out, _ = run_cli("solve", "-n", "1000", "--limit", "12")
    lines = out.splitlines()[1:]
    assert code == 0 and len(lines) == 12
    assert lines[0] == "   1  disk 1  A -> B" and lines[9].startswith("  10  disk ")
    assert max(map(len, lines)) < 30
    code, out, _ = run_cli("solve", "-n", "4", "--start", "14")
    assert out.splitlines()[1:] == ["  14  disk 2  A -> C", "  15  disk 1  B -> C"]


def test_json_header_and_moves() -> None:
    code, out, _ = run_cli("solve", "-n", "2", "--format", "json")
    header, *moves = map(json.loads, out.splitlines())
    assert code == 0
    assert header["length"] == 3 and header["optimal"] is True and header["method"] == "recursive"
    assert "optimal" in header["note"]
    assert moves == [
        {"k": 1, "disk": 1, "from": "A", "to": "B"},
        {"k": 2, "disk": 2, "from": "A", "to": "C"},
        {"k": 3, "disk": 1, "from": "B", "to": "C"},
    ]


def test_turing_reports_machine_steps_without_soiling_stdout() -> None:
    code, out, err = run_cli("solve", "-n", "2", "--method", "turing", "--format", "plain")
    assert code == 0 and out.splitlines() == list(textbook(2))
    assert err == "hanoibot: Turing machine: 6 steps\n"  # hand-traced in test_planner_turing
    code, out, err = run_cli("solve", "-n", "2", "--method", "turing")
    assert out.splitlines()[-1] == "Turing machine: 6 steps" and err == ""
    code, out, err = run_cli(
        "solve", "-n", "2", "--method", "turing", "--format", "json", "--start", "2", "--limit", "1"
    )
    assert code == 0 and len(out.splitlines()) == 2
    assert re.fullmatch(r"hanoibot: Turing machine: \d+ steps for moves 2 to 2\n", err)


def test_turing_from_the_seeds_shuffled_tape_says_it_never_halts() -> None:
    code, out, err = run_cli("solve", "--method", "turing", "--from", "ACABC")
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "does not halt from ACABC: after 6 moves (12 steps) the tape reads ACABC again" in err
    _, nearest, _ = run_cli("count", "--from", "ACABC", "--to", "any")
    assert f"is {nearest.strip()} moves away" in err


def test_turing_from_a_shuffled_tape_that_halts_prints_its_moves() -> None:
    # BCA is the tower run A -> B after two moves: the table finishes that run
    code, out, _ = run_cli("solve", "--method", "turing", "--from", "BCA", "--format", "plain")
    assert code == 0 and out.splitlines() == list(textbook(3, "A", "B"))[2:]


def test_all_optimal_prints_the_unique_classic_plan_once() -> None:
    code, out, _ = run_cli("solve", "-n", "3", "--all-optimal", "--format", "plain")
    assert code == 0 and out.splitlines() == list(textbook(3))


def test_all_optimal_beyond_three_classic_pegs_prints_every_plan() -> None:
    code, out, _ = run_cli(
        "solve", "--pegs", "4", "--rules", "linear", "--from", "BB", "--to", "C", "--all-optimal", "--format", "plain"
    )
    plans = out.strip().split("\n\n")
    assert code == 0 and len(plans) == 2, out  # B->A->... and B->C->D->...: checked by brute force in the planner
    assert sorted(plans) == ["1 B A\n2 B C\n1 A B\n1 B C", "1 B C\n1 C D\n2 B C\n1 D C"]


def test_all_optimal_refuses_where_the_sweep_cannot_go() -> None:
    code, out, err = run_cli("solve", "-n", "10", "--pegs", "4", "--all-optimal", "--max-states", "1000")
    assert code == 2 and out == "" and "--all-optimal needs an exact sweep of more than 1000 states" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-n", "0"], "-n 0 is too small: expected a number of at least 1"),
        (["-n", "-3"], "-n -3 is too small"),
        (["-n", "abc"], "-n 'abc' is not a whole number"),
        ([], "no disk count given: expected -n N"),
        (["-n", "3", "--from", "AAD"], "unknown peg 'D': expected one of ABC"),
        (["-n", "3", "--from", "A1A"], "bad character '1' at position 2"),
        (["-n", "3", "--from", "AA"], "state 'AA' has 2 disks but 3 were asked for"),
        (["-n", "3", "--to", "ABCA"], "has 4 disks but 3"),
        (["-n", "3", "--from", "B", "--to", "B"], "the start BBB already is the goal BBB"),
        (["-n", "3", "--to", "A"], "the tower on A (3 disks) already is the goal AAA"),
        (["-n", "3", "--rules", "linear", "--to", "A"], "already is the goal AAA"),
        (["-n", "3", "--pegs", "4", "--to", "A"], "already is the goal AAA"),
        (["--from", "ABC", "--to", "ABC"], "the start ABC already is the goal ABC"),
        (["--from", "CCC", "--to", "any"], "the start CCC already is a goal (--to any"),
        (["--from", "A:1,1/B:2/C:"], "disk 1 appears more than once"),
        (["--from", "A:3/B:1/C:"], "disk 2 is missing"),
        (["--from", "A:x/B:/C:"], "bad disk list 'x' for peg A"),
        (["-n", "3", "--start", "8"], "--start 8 is past the end: the plan has 7 moves"),
        (["-n", "3", "--start", "0"], "--start 0 is too small"),
        (["-n", "3", "--to", "any", "--start", "2"], "the tower on A (3 disks) already is a goal (--to any"),
        (["-n", "99999999999999999999"], "-n 99999999999999999999 is too large: expected a number from 1 to"),
        (["-n", "3", "--to", "D"], "--to: unknown peg 'D'"),
        (["-n", "3", "--limit", "-1"], "--limit -1 is too small"),
        (["-n", "3", "--format", "xml"], "unknown format 'xml': expected one of text, plain, json"),
        (["-n", "3", "--method", "magic"], "unknown method 'magic'"),
        (["-n", "3", "--rules", "odd"], "unknown rules 'odd'"),
        (["-n", "3", "--pegs", "2"], "--pegs 2 is too small: expected a number of at least 3"),
        (["-n", "3", "--pegs", "27"], "peg count 27 is not supported: expected 3 to 26"),
        (["-n", "3", "--max-states", "0"], "--max-states 0 is too small"),
        (["-n", "3", "--to", "A:/B:2,3/C:1"], "is unreachable from AAA: disk 3 rests on smaller disk 2"),
        (["-n", "12", "--rules", "cyclic", "--from", "ABCABCABCABC", "--max-states", "500"], "more than 500 states"),
        (
            ["--rules", "linear", "--from", "A:9,8,7,6,5,4,3,1,2/B:/C:", "--to", "C", "--max-states", "500"],
            "only under --rules classic",
        ),
        (["-n", "3", "--rules", "big-on-top", "--to", "ABC"], "big-on-top rules end in the ordered tower"),
        (["--from", "A:"], "--from: state 'A:' names no disks"),
        (["--from", "A:/B:/C:"], "names no disks"),
        (["--from", "any"], "--from 'any' is not a start: 'any' is a goal only (--to any)"),
        (["--from", "A:1/B:2/D:3"], "unknown peg 'D': expected one of ABC (or give --pegs 4)"),
        (["--from", "A:1/B:2/C:3", "--to", "ABE"], "unknown peg 'E': expected one of ABC (or give --pegs 5)"),
        (["-n", "1", "--start", "3"], "--start 3 is past the end: the plan has 1 move (expected 1 to 1)"),
    ],
)
def test_bad_input_exits_2_with_one_line(argv: list[str], message: str) -> None:
    code, out, err = run_cli("solve", *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("hanoibot: error: ")
    assert message in err


def _cli(*argv: str) -> list[str]:
    return [sys.executable, "-m", "hanoibot", *argv]


@pytest.mark.parametrize("fmt", ["plain", "text", "json"])
def test_broken_pipe_is_quiet(fmt: str) -> None:
    proc = subprocess.Popen(_cli("solve", "-n", "64", "--format", fmt), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    stderr = proc.stderr.read()
    assert proc.wait(timeout=20) == 0
    assert first and stderr == b""


#: Modules `solve -n 3` must not import: the arm's stack, and what costs start-up (dataclasses pulls in inspect;
#: typing, shutil, the general planners, the other sub-commands).
HEAVY = ("rich", "serial", "transitions", "dataclasses", "inspect", "typing", "shutil", "hanoibot.planner.general")


#: Our own modules whose loading the start-up test lists: the sub-commands and what they share.
OURS = ("hanoibot.commands.", "hanoibot.cli_support.")


def test_start_up_stays_lean() -> None:
    probe = (
        "import sys; from hanoibot.cli import main; main(['solve', '-n', '3']);"
        f"print(sorted(m for m in sys.modules if m.startswith({HEAVY!r} + {OURS!r})))"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    shared = [".move_lines", ".plan_options", ".solve_output"]  # count_of is the base's (hanoibot.words)
    expected = [f"hanoibot.cli_support{name}" for name in shared] + ["hanoibot.commands.solve"]
    assert result.stdout.splitlines()[-1] == str(expected)


def test_help_has_examples(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["solve", "--help"])
    assert exit_info.value.code == 0
    assert "examples:" in capsys.readouterr().out
