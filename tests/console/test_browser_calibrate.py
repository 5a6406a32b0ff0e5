"""The console's calibration panel in Chromium: the three pegs calibrated from the page on ``hanoibot emulate`` at a
person's pace (seconds between clicks, the link served meanwhile), each saved into the robot config as the command
line saves it; the grip point jogged by keys moves by the step the page shows (judged from the board's own pulses
through the arm's kinematics); axe-core finds no serious or critical violation on the panel."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from hanoibot.cli import main
from hanoibot.config import default_config_path, load_config
from hanoibot.sim.spawn import EmulatorProcess
from test_browser_axe import AXE, serious_violations

# In a real browser each: in `make test-long` and CI, not in the fast `make check` loop.
pytestmark = pytest.mark.slow

#: Longest wait for the arm, in ms of wall time.
ARM_WAIT_MS = 60_000
#: A person's pace: the seconds between two clicks (the board's host watchdog counts in fractions of a second).
PERSON_PAUSE_S = (2.5, 4.0, 3.0)
#: How far peg A is said to stand from where it does, in mm along x (the calibration must find it again).
PEG_A_OFF_MM = 4.0


def shifted_config(folder: Path, name: str = "mine.toml") -> Path:
    """The shipped robot with peg A said to stand :data:`PEG_A_OFF_MM` further out along x than it does."""
    document: Any = tomlkit.parse(default_config_path().read_text())
    document["board"]["pegs"][0]["x_mm"] = float(document["board"]["pegs"][0]["x_mm"]) + PEG_A_OFF_MM
    path = folder / name
    path.write_text(tomlkit.dumps(document))
    return path


def pegs_mm(path: Path) -> list[tuple[float, float]]:
    """Each peg's (x_mm, y_mm) as the file ``path`` holds them."""
    pegs: Any = tomlkit.parse(path.read_text())["board"]["pegs"]
    return [(float(peg["x_mm"]), float(peg["y_mm"])) for peg in pegs]


def open_page(browser: Any, url: str) -> Any:
    """A tab on the console at ``url``, once the page says it is ready."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("body[data-ready=true]", timeout=15_000)
    return page


def robot_state(page: Any) -> dict[str, Any]:
    """The newest robot state the page received."""
    return page.evaluate("() => window.__robot.state")  # type: ignore[no-any-return]


def settled(page: Any, test: str = "true") -> dict[str, Any]:
    """Wait until the worker is idle (no command running) and ``test`` (JS over ``s``, the state) holds."""
    page.wait_for_function(
        f"() => {{ const s = window.__robot.state; return !!s && s.busy === '' && ({test}); }}", timeout=ARM_WAIT_MS
    )
    return robot_state(page)


def connect_and_begin(page: Any) -> None:
    """Connect the arm, open a calibration."""
    page.click("#r-connect")
    settled(page, "s.connected")
    page.click("#c-begin")
    page.wait_for_selector("body[data-calibrating=true]", timeout=ARM_WAIT_MS)


def go_to_peg(page: Any, letter: str) -> dict[str, Any]:
    """Click Go to peg ``letter`` and wait until the arm is there."""
    page.click(f"#c-peg-{letter}")
    index = "ABCDEFGH".index(letter)
    return settled(page, f"s.calibration && s.calibration.peg === {index} && s.message.startsWith('at the foot')")


def save_peg(page: Any, letter: str) -> None:
    """Save the peg the arm is at, and wait until the page says it is saved."""
    page.click("#c-confirm")
    page.wait_for_function(
        f"() => (document.body.dataset.calibrationSaved || '').includes('{letter}')", timeout=ARM_WAIT_MS
    )


def test_three_pegs_calibrated_from_the_page_at_a_persons_pace_on_emulate(
    browser: Any,
    console_factory: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    mine = shifted_config(tmp_path)
    pauses = iter(PERSON_PAUSE_S * 4)
    with EmulatorProcess("--speed", "4") as emulator:
        console = console_factory("--port", emulator.port_path, "--config", str(mine))
        page = open_page(browser, console.url)
        connect_and_begin(page)
        time.sleep(next(pauses))
        go_to_peg(page, "A")
        for _ in range(2):  # peg A stands 4 mm nearer than the config says: two steps of 2 mm along -x
            time.sleep(next(pauses))
            page.click("#c-pad [data-axis=x][data-direction='-1']")
            page.wait_for_function("() => window.__robot.state.busy === 'calibrating'", timeout=ARM_WAIT_MS)
            settled(page)
        time.sleep(next(pauses))
        save_peg(page, "A")
        saved_a = pegs_mm(mine)
        assert saved_a[1:] == pegs_mm(default_config_path())[1:], "only peg A is saved so far"
        for letter in ("B", "C"):
            time.sleep(next(pauses))
            go_to_peg(page, letter)
            time.sleep(next(pauses))
            save_peg(page, letter)
        state = settled(page, "s.calibration.done")
        assert "every peg is saved" in page.inner_text("#c-message")
        assert state["fault_names"] == [] and state["mode"] != "ESTOP", state  # the board never went unserved
        assert not [e for e in emulator.events() if e.get("event") in ("error", "reset")]
        page.context.close()

    true_pegs = pegs_mm(default_config_path())
    page_pegs = pegs_mm(mine)
    assert saved_a[0] == page_pegs[0], "peg A was in the file as soon as it was saved"
    for (x, y), (true_x, true_y) in zip(page_pegs, true_pegs, strict=True):
        assert abs(x - true_x) <= 0.5 and abs(y - true_y) <= 0.5, (page_pegs, true_pegs)
    assert "# Wooden dowel pegs standing on the board." in mine.read_text(), "comments are kept"
    load_config(mine)  # still a valid robot config

    # The command line, given the same jogs, writes the same peg entries.
    theirs = shifted_config(tmp_path, "cli.toml")
    monkeypatch.setattr("sys.stdin", io.StringIO("x--sss"))  # the grip step finds the input ended: pegs stay saved
    main(["calibrate", "--port", "sim://", "--config", str(theirs)])
    capsys.readouterr()
    for (x, y), (cli_x, cli_y) in zip(page_pegs, pegs_mm(theirs), strict=True):
        assert abs(x - cli_x) <= 0.15 and abs(y - cli_y) <= 0.15, (page_pegs, pegs_mm(theirs))


def grip_point(config: Any, state: dict[str, Any]) -> tuple[float, float, float]:
    """The grip point (mm) of the pulses the board reported in ``state``, through the arm's kinematics."""
    point = config.grip_point(state["pulses_us"])
    return point.x_mm, point.y_mm, point.z_mm


def press_and_settle(page: Any, key: str) -> dict[str, Any]:
    """Press ``key`` (the focus in the calibration panel) and wait until the move is done."""
    before = json.dumps(robot_state(page)["pulses_us"], separators=(",", ":"))
    page.keyboard.press(key)
    return settled(page, f"JSON.stringify(s.pulses_us) !== '{before}'")


def test_jogging_by_keys_moves_the_grip_point_by_the_step_shown(
    browser: Any, console_factory: Any, tmp_path: Path
) -> None:
    mine = shifted_config(tmp_path)
    config = load_config(mine)
    console = console_factory("--port", "sim://?speed=4", "--config", str(mine))
    page = open_page(browser, console.url)
    connect_and_begin(page)
    go_to_peg(page, "B")
    page.locator("#c-confirm").focus()
    tolerance_mm = 0.3  # a pulse is whole microseconds: a fraction of a degree at each joint
    # Small moves about the foot of the peg (the open fingers stand around it), the step changed by keys between them.
    for key, axis, sign, then in (("+", 2, 1, "]"), ("+", 2, 1, "["), ("ArrowUp", 1, 1, "["), ("ArrowLeft", 0, -1, "]"),
                                  ("ArrowRight", 0, 1, "["), ("ArrowDown", 1, -1, "[")):  # fmt: skip
        step_mm = float(page.inner_text("#c-step-text").removesuffix(" mm"))
        before = grip_point(config, robot_state(page))
        state = press_and_settle(page, key)
        assert "stopped" not in state["message"], state["message"]
        moved = [b - a for a, b in zip(before, grip_point(config, state), strict=True)]
        wanted = [0.0, 0.0, 0.0]
        wanted[axis] = sign * step_mm
        assert all(abs(m - w) <= tolerance_mm for m, w in zip(moved, wanted, strict=True)), (key, moved, wanted)
        page.keyboard.press(then)  # ] doubles the step, [ halves it, and the page shows the new step
        new_mm = step_mm * (2 if then == "]" else 0.5)
        page.wait_for_function(f"() => document.getElementById('c-step-text').textContent === '{new_mm:g} mm'")
    assert page.get_attribute("#c-pad [data-axis=x][data-direction='1']", "aria-label") == (
        "+x →: move the grip point +x by 0.5 mm (key Right arrow)"
    )
    page.keyboard.press("-")
    page.wait_for_function("() => window.__robot.state.busy === '' && window.__robot.state.message === '-z 0.5 mm'")


def test_the_calibration_panel_has_no_serious_accessibility_violation(
    browser: Any, console_factory: Any, tmp_path: Path
) -> None:
    assert AXE.is_file(), f"{AXE} is missing: the shared node_modules should hold axe-core"
    console = console_factory("--port", "sim://?speed=4", "--config", str(shifted_config(tmp_path)))
    page = open_page(browser, console.url)
    page.locator("#calibrate").scroll_into_view_if_needed()
    assert serious_violations(page) == []  # before Connect: every control disabled
    connect_and_begin(page)
    go_to_peg(page, "A")
    page.locator("#calibrate").scroll_into_view_if_needed()
    assert serious_violations(page) == []  # at a peg: every control live
    names = page.evaluate(
        """() => [...document.querySelectorAll('#calibrate button, #calibrate select')].map((e) =>
            [e.id || e.textContent, (e.getAttribute('aria-label') || e.labels?.[0]?.textContent || e.textContent)
            .trim()])"""
    )
    assert all(name for _id, name in names), names
