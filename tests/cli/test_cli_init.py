"""``hanoibot init`` and the user's defaults: a robot config and board wiring of one's own, the port remembered,
``HANOIBOT_PORT`` / ``HANOIBOT_CONFIG``; ``--port`` / ``--config`` given on the command line always win."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import tomlkit
from hanoibot.cli import main
from hanoibot.config import default_config_path
from hanoibot.firmware_source import shipped_firmware
from hanoibot.sim_url import SimSpec


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty user config home; no hanoibot environment variables."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("HANOIBOT_PORT", raising=False)
    monkeypatch.delenv("HANOIBOT_CONFIG", raising=False)
    return tmp_path / "config" / "hanoibot"


def status_port(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The port ``hanoibot status --json`` used, without the robot config a simulated board is given with it (the
    command's own, so the simulated arm is the config's)."""
    capsys.readouterr()
    assert main(["status", "--json", *argv]) == 0, capsys.readouterr().err
    used = str(json.loads(capsys.readouterr().out)["port"])
    spec = SimSpec.from_url(used)
    return used if spec is None else spec.without("config").to_url()


def four_peg_config(folder: Path) -> Path:
    """The shipped robot with a fourth peg (the README's 4-peg layout)."""
    document = tomlkit.parse(default_config_path().read_text())
    pegs = document["board"]["pegs"]  # type: ignore[index]
    for table, y_mm in zip(pegs, (-135.0, -45.0, 45.0), strict=True):  # type: ignore[arg-type]
        table["y_mm"] = y_mm
    fourth = tomlkit.table()
    fourth["x_mm"], fourth["y_mm"] = 160.0, 135.0
    pegs.append(fourth)  # type: ignore[union-attr]
    path = folder / "four.toml"
    path.write_text(tomlkit.dumps(document))
    return path


def test_init_writes_the_users_robot_and_wiring_and_remembers_the_port(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", "--port", "sim://?seed=7"]) == 0
    assert (home / "robot.toml").read_bytes() == default_config_path().read_bytes()
    assert (home / "board_config.py").read_bytes() == shipped_firmware().board_config_py.read_bytes()
    assert status_port(capsys) == "sim://?seed=7"  # no --port typed
    assert status_port(capsys, "--port", "sim://?seed=8") == "sim://?seed=8"


def test_init_keeps_the_users_files_unless_forced(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init"]) == 0
    mine = (home / "robot.toml").read_text().replace("grip_threshold_u16 = 32768", "grip_threshold_u16 = 30000")
    (home / "robot.toml").write_text(mine)
    assert main(["init", "--port", "sim://?seed=9"]) == 0
    assert (home / "robot.toml").read_text() == mine, "the calibration stays"
    assert "kept" in capsys.readouterr().out
    assert main(["init", "--force"]) == 0
    assert (home / "robot.toml").read_bytes() == default_config_path().read_bytes()


def test_the_environment_comes_before_the_remembered_port(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["init", "--port", "sim://?seed=7"]) == 0
    monkeypatch.setenv("HANOIBOT_PORT", "sim://?seed=11")
    assert status_port(capsys) == "sim://?seed=11"


def test_hanoibot_config_names_the_robot(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    run = ["run", "-n", "2", "--pegs", "4", "--plain"]
    assert main(run) == 2  # the shipped robot has 3 pegs
    monkeypatch.setenv("HANOIBOT_CONFIG", str(four_peg_config(tmp_path)))
    capsys.readouterr()
    assert main(run) == 0, capsys.readouterr().err
    monkeypatch.setenv("HANOIBOT_CONFIG", str(tmp_path / "missing.toml"))
    capsys.readouterr()
    assert main(run) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "HANOIBOT_CONFIG" in err and "missing.toml" in err


def test_calibrate_writes_the_users_robot_without_options(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["init"]) == 0
    before = (home / "robot.toml").read_text()
    monkeypatch.setattr("sys.stdin", io.StringIO("x+s s s\nskip\n"))  # peg A saved 2 mm further out
    assert main(["calibrate"]) == 0, capsys.readouterr().err
    pegs = tomlkit.parse((home / "robot.toml").read_text())["board"]["pegs"]
    assert abs(float(pegs[0]["x_mm"]) - 162.0) <= 0.5  # type: ignore[index]
    assert (home / "robot.toml").read_text() != before and default_config_path().read_text() == before


def test_a_damaged_settings_file_is_one_line(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home.mkdir(parents=True)
    (home / "settings.toml").write_text("port = \n")
    assert main(["status"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "settings.toml" in err


def test_deploy_takes_the_users_board_wiring(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hanoibot.commands.deploy import users_firmware
    from hanoibot.deploy.steps import files_to_deploy

    shipped = {f.board_path: f.source for f in files_to_deploy(users_firmware())}
    assert shipped["board_config.py"] == shipped_firmware().board_config_py  # no wiring of one's own yet
    assert main(["init"]) == 0
    wiring = {f.board_path: f.source for f in files_to_deploy(users_firmware())}
    assert wiring["board_config.py"] == home / "board_config.py" and wiring["main.py"] == shipped["main.py"]


def test_a_board_that_never_says_hello_points_to_deploy(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["status", "--port", "loop://"]) == 2  # echoes our SYNC back: nothing hanoibot answers
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no HELLO" in err and "hanoibot deploy --port loop://" in err
