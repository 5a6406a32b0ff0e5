"""The e-stop, for a front end that may or may not hold the port: it reaches the board, or says why not.

:func:`estop` is what an e-stop does, for every front end (the console's button, ``hanoibot estop``): latch ESTOP
on the board now (which drops the board's queue), through whoever holds the port if this process does not; a run
waiting paused ends e-stopped, its journal saying so. A run that streams is stopped by its link's fast path
(:func:`stop_fast`, within one control period) or by the board's latch, and ends e-stopped in its journal by
itself. What a front end had queued is flushed by its :class:`~hanoibot.ops.gate.StopGate`.
:func:`estop_robot` latches it on a board this process drives. :func:`estop_port` is for a front end that does not
hold the port (``hanoibot estop``, the console before Connect): another hanoibot process that holds it is asked over
its control socket (:mod:`hanoibot.link.control`) to send ESTOP itself; a free port is opened and latched. Every
process on ``sim://`` runs a simulated board of its own: each of them is asked (all of this user's simulated arms
stop), and when none runs, there is no board to stop, and that is said. A latch is claimed only when the board (or the
port's holder, after its board did) confirmed it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import HanoiError, PortBusy
from ..link.status import Mode
from ..run.robot import Robot
from .board import open_robot
from .gate import StopGate

if TYPE_CHECKING:
    from .follow import Follow

#: Longest the holder of the port gets to confirm the e-stop, in s.
ANSWER_WAIT_S = 3.0


@dataclass(frozen=True)
class EstopResult:
    """How an e-stop went: ``latched`` only when a board confirmed it; ``text`` says what happened and what next;
    ``no_arm`` when there was no arm to stop (nothing was sent); ``opened`` when no program held the port and
    this one opened it to latch the e-stop."""

    latched: bool
    text: str
    no_arm: bool = False
    opened: bool = False


def estop(
    port_name: str,
    config_path: str | None = None,
    *,
    robot: Robot | None = None,
    follow: Follow | None = None,
    reason: str = "e-stop",
) -> EstopResult:
    """E-stop the arm on ``port_name`` (as the person named it): on ``robot`` when this process drives it (a run
    ``follow`` waiting paused there ends e-stopped, ``reason`` journaled), else through :func:`estop_port`."""
    if robot is None:
        return estop_port(port_name, config_path)
    if follow is not None and follow.is_paused:
        follow.estop(reason)  # latched by the run's sequencer, which journals how it ended
    return estop_robot(robot, port_name=port_name)


def stop_fast(robot: Robot, gate: StopGate, reason: str, on_tick: Callable[[], object] | None = None) -> None:
    """Make ``robot``'s link act on ``gate``'s e-stop within one control period while a run streams (latch, then
    BoardError(``reason``), which ends the run e-stopped); ``on_tick()`` runs between link reads meanwhile (see
    :meth:`hanoibot.link.session.Session.stop_when`)."""
    robot.session.stop_when(gate.wanted, reason, on_tick)


def estop_robot(robot: Robot, *, port_name: str | None = None) -> EstopResult:
    """Latch the e-stop on the board ``robot`` drives (ESTOP repeated until a STATUS confirms it); the result names
    the port as ``port_name`` (default the robot's URL; a front end passes the port as the person gave it, not
    the simulator's inner URL with its board and config)."""
    port = port_name or robot.port_url
    robot.session.estop()
    mode = robot.session.status().mode
    if mode is not Mode.ESTOP:
        return EstopResult(False, f"sent ESTOP to {port} but the board reports mode {mode}")
    return EstopResult(True, f"e-stop latched on {port}: the arm holds its pose")


def estop_port(port_url: str, config_path: str | None = None, *, answer_wait_s: float = ANSWER_WAIT_S) -> EstopResult:
    """E-stop the arm on ``port_url`` from a process that does not hold it (see the module doc)."""
    from ..link.port_lock import in_process_holders, is_in_process, port_key

    if is_in_process(port_url):
        holders = in_process_holders(port_url)
        if not holders:
            return EstopResult(
                False,
                f"no arm connected: no program runs a simulated board on {port_key(port_url)} (one lives only as "
                "long as the command that started it, and the next command starts a fresh one); nothing was sent",
                no_arm=True,
            )
        results = [estop_through_holder(port_key(port_url), holder, answer_wait_s) for holder in holders]
        return EstopResult(all(result.latched for result in results), "; ".join(result.text for result in results))
    try:
        robot = open_robot(port_url, config_path)
    except PortBusy as busy:
        return estop_through_holder(port_url, busy.holder, answer_wait_s)
    except (HanoiError, OSError) as err:
        return EstopResult(False, f"no arm connected: {err}", no_arm=True)
    with robot:
        result = estop_robot(robot)
    if not result.latched:
        return result
    return EstopResult(True, f"nothing held {port_url}: opened it and latched the e-stop", opened=True)


def estop_through_holder(port: str, holder: Any, answer_wait_s: float = ANSWER_WAIT_S) -> EstopResult:
    """Ask the process holding ``port`` to e-stop the arm; without its answer, write ESTOP to the device."""
    from ..link.control import CLOSED, ESTOPPED, ask_estop

    who = f"`{holder.command}` (pid {holder.pid})" if holder is not None else "the program holding the port"
    answer = ask_estop(holder.control, answer_wait_s) if holder is not None and holder.control else None
    if answer == ESTOPPED:
        return EstopResult(True, f"{who} stopped the arm: e-stop latched on {port}")
    if answer == CLOSED:
        return EstopResult(
            False, f"{who} let go of {port} before the board confirmed; run `hanoibot estop --port {port}` again"
        )
    if "://" not in port and write_estop_frame(port):
        return EstopResult(
            False,
            f"{who} did not answer within {answer_wait_s:g} s: sent ESTOP straight to {port} (not confirmed); check "
            f"with `hanoibot status --port {port}` once it has ended, or cut servo power",
        )
    return EstopResult(
        False,
        f"{who} did not answer within {answer_wait_s:g} s and {port} cannot be reached around it: press Ctrl-C in "
        "its terminal, or cut servo power with the hardware e-stop",
    )


def write_estop_frame(device: str) -> bool:
    """Write one ESTOP frame to the serial device ``device`` without taking the port (the board acts on ESTOP
    whatever its session); False if the device cannot be opened or written."""
    from hanoifw import protocol

    from ..link.codes import Kind

    try:
        fd = os.open(device, os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        os.write(fd, protocol.encode(Kind.ESTOP, 0, 0, []))  # seq 0: the board acts on ESTOP whatever its seq
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
