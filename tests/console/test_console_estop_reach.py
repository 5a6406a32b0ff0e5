"""The page's E-STOP always reaches the arm, or says that it cannot: with the console not connected, a run of
another hanoibot process that holds the port is e-stopped through that process's control socket (as
``hanoibot estop`` does); with nothing holding the port the page says no arm is connected and claims no latch."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
from cli_runner import HANOIBOT
from console_bench import bench_on
from hanoibot.ops.journals import list_runs

pytestmark = pytest.mark.slow
#: Longest wait for the other process's run to journal a move, in s (its simulated arm runs at wall speed).
RUN_WAIT_S = 30.0


def test_estop_with_no_arm_connected_says_so_and_claims_no_latch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with bench_on("sim://", str(tmp_path), monkeypatch) as bench:
        page = bench.page()
        page.send("estop")
        said = page.wait_for(lambda s: bool(s["error"] or s["message"]), "an answer")
        assert "no arm connected" in said["error"] and "nothing was sent" in said["error"], said
        assert "latched" not in said["message"] and not said["connected"]
        assert bench.boards == [], "the console made a simulated board to stop"


def test_estop_reaches_a_run_of_another_process_through_its_control_socket(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = subprocess.Popen(
        [*HANOIBOT, "run", "-n", "3", "--plain", "--port", "sim://?realtime=1"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline_s = time.monotonic() + RUN_WAIT_S
        while not (list_runs() and list_runs()[0].moves_done >= 1):
            assert run.poll() is None, run.communicate()[1]
            assert time.monotonic() < deadline_s, "the other process's run journaled no move in time"
            time.sleep(0.05)
        with bench_on("sim://", str(tmp_path), monkeypatch) as bench:
            page = bench.page()
            page.send("estop")
            said = page.wait_for(lambda s: bool(s["error"] or s["message"]), "an answer")
            assert f"(pid {run.pid}) stopped the arm: e-stop latched" in said["message"], said
        _, err = run.communicate(timeout=RUN_WAIT_S)
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()
    assert run.returncode == 1 and "run e-stopped" in err, err
    assert list_runs()[0].ended == "e-stopped"


def test_estop_of_another_process_reaches_the_consoles_arm_and_the_page_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with bench_on("sim://", str(tmp_path), monkeypatch) as bench:
        page = bench.page()
        page.send("connect", state="AAA", pegs=3)
        page.wait_for(lambda s: s["connected"] and s["busy"] == "", "connected")
        stopped = subprocess.run(
            [*HANOIBOT, "estop", "--port", "sim://"], capture_output=True, text=True, timeout=RUN_WAIT_S
        )
        assert stopped.returncode == 0 and "stopped the arm: e-stop latched" in stopped.stdout, stopped
        said = page.wait_for(lambda s: s["mode"] == "ESTOP" and "latched" in s["message"], "the latch shown")
        assert "press Clear" in said["message"]


def test_a_run_that_fails_in_its_start_leaves_the_arm_e_stoppable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hanoibot.errors import ProtocolMismatch
    from hanoibot.run.runner import Run

    def start_fails(self: Run, **options: bool) -> None:
        raise ProtocolMismatch("the board answered in another protocol version")

    with bench_on("sim://", str(tmp_path), monkeypatch) as bench:
        page = bench.page()
        page.send("connect", state="AAA", pegs=3)
        page.wait_for(lambda s: s["connected"] and s["busy"] == "", "connected")
        monkeypatch.setattr(Run, "start", start_fails)
        page.send("run", rules="classic", goal="CCC", pegs=3)
        failed = page.wait_for(lambda s: bool(s["error"]) and s["busy"] == "", "the failed start")
        assert "another protocol version" in failed["error"] and failed["phase"] == "idle", failed
        page.send("estop")
        said = page.wait_for(lambda s: s["busy"] == "" and s["mode"] == "ESTOP", "the latch")
        assert "e-stop latched" in said["message"] and not said["error"], said
