"""The ``hanoibot`` dispatcher: argparse's own usage errors are one line with exit code 2, like all bad input."""

from __future__ import annotations

import pytest
from hanoibot.cli import main


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["solve", "-n"], "hanoibot solve: error: argument -n/--disks: expected one argument"),
        (["count", "-n", "3", "--bogus"], "unrecognized arguments: --bogus"),
        (["resume"], "hanoibot resume: error: the following arguments are required: --journal"),
        (["frob"], "invalid choice: 'frob'"),
        ([], "the following arguments are required: COMMAND"),
    ],
)
def test_usage_errors_are_one_line_and_exit_code_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and err.endswith("--help)\n"), err


def test_help_still_shows_the_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["count", "--help"])
    assert stop.value.code == 0 and capsys.readouterr().out.startswith("usage: hanoibot count")
