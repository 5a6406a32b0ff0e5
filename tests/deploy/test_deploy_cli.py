"""``hanoibot deploy`` bad input: exit 2 and one line naming the bad value."""

from __future__ import annotations

import pytest
from hanoibot.cli import main


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["deploy", "--port", "/dev/no-such-port-here"], "'/dev/no-such-port-here'"),
        (["deploy", "--port", "nosuchscheme://x"], "'nosuchscheme://x'"),
        (["deploy", "--port", "/dev/null", "--hello-timeout-s", "0"], "--hello-timeout-s"),
        (["deploy"], "--port"),
        (["deploy", "--port", "sim://"], "'sim://' is the simulator"),
    ],
)
def test_bad_input_exits_2_with_one_line(argv: list[str], named: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        raise SystemExit(main(argv))
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and named in err


def test_help_has_examples(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["deploy", "--help"])
    out = capsys.readouterr().out
    assert "hanoibot deploy --port /dev/ttyACM0 --dry-run" in out and "MicroPython 1.20 or newer" in out
