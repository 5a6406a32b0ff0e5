"""A session that owns its port: it stops when another program takes the board over, and it serves ``estop``
requests from other processes (over sim://, on the simulator's virtual clock)."""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Iterator

import pytest
from hanoibot.errors import BoardError, SessionTakenOver
from hanoibot.link.control import ESTOPPED, ask_estop
from hanoibot.link.port_lock import lock_path, read_holder
from hanoibot.link.session import Session
from hanoibot.sim.board import SimBoard
from hanoifw import protocol
from link_checks import configure_snake, snake_pose_us

BARE = "sim://?world=0"
#: Longest (in wall-clock s) a test here may run before it counts as hung: without the fix the link never gives up.
HUNG_S = 30


@contextlib.contextmanager
def fails_if_hung(seconds: int = HUNG_S) -> Iterator[None]:
    """Raise TimeoutError in the body after ``seconds`` of wall-clock time (a link that never gives up)."""

    def hung(signum: int, frame: object) -> None:
        raise TimeoutError(f"still waiting after {seconds} s: the session never gave up")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def board_of(session: Session) -> SimBoard:
    board: SimBoard = session.port.board  # type: ignore[union-attr]
    return board


def foreign_sync(session: Session) -> bytes:
    """A SYNC from another program: a seq far from anything this session sent."""
    seq = (session.core.sender.window.next_seq + 30000) % protocol.SEQ_MOD
    return protocol.encode(protocol.SYNC, seq, 0, ["other"])


@pytest.mark.parametrize("hello_seen", [True, False], ids=["hello-seen", "hello-read-by-the-other"])
def test_a_session_taken_over_stops_at_once_and_stays_stopped(hello_seen: bool) -> None:
    with Session(BARE) as session, fails_if_hung():
        configure_snake(session)
        session.send_move(1, snake_pose_us(1), 200)
        board = board_of(session)
        board.feed(foreign_sync(session))
        board.step()
        if not hello_seen:
            board.take_output()  # the other program read the board's HELLO
        began_s = session.clock.now_s()
        with pytest.raises(SessionTakenOver, match="another program started its own session"):
            for k in range(2, 40):
                session.send_move(k, snake_pose_us(k), 200)
            session.wait_done(39)
        assert session.clock.now_s() - began_s < 0.5  # in board time: a few round trips, not the silence bound
        assert all(cmd_id == 1 for cmd_id in board.executed_cmd_ids())  # nothing this session sent was taken
        with pytest.raises(SessionTakenOver):
            session.status()


def test_a_board_reset_is_still_a_reset_not_a_takeover() -> None:
    from hanoibot.errors import BoardReset

    with Session(BARE) as session, fails_if_hung():
        configure_snake(session)
        session.send_move(1, snake_pose_us(1), 200)
        board_of(session).reset("power")
        with pytest.raises(BoardReset):
            session.wait_done(1, timeout_s=5.0)


def estop_from_another_process(session: Session) -> tuple[BoardError, list[str | None]]:
    """Start a minute-long MOVE 1, have a client thread ask the port's control socket for an e-stop, and return the
    BoardError ``wait_done(1)`` raised and the client's answers."""
    holder = read_holder(lock_path(BARE))
    assert holder is not None and holder.control
    answers: list[str | None] = []
    client = threading.Thread(target=lambda: answers.append(ask_estop(holder.control, 10.0)))
    session.send_move(1, snake_pose_us(1), 60_000)  # a minute of motion: stopped long before its end
    client.start()
    time.sleep(0.3)  # let the client connect and ask: the session takes the request at its next poll
    with pytest.raises(BoardError) as stopped:
        session.wait_done(1)
    client.join(timeout=20)
    return stopped.value, answers


def test_the_port_owner_sends_estop_for_another_process_and_says_when_it_latched() -> None:
    with Session(BARE) as session, fails_if_hung():
        configure_snake(session)
        stopped, answers = estop_from_another_process(session)
        assert stopped.code == "ESTOP"
        assert "`hanoibot estop` from another process stopped the arm" in str(stopped)
        assert answers == [ESTOPPED]
        assert session.status().mode == "ESTOP"
        assert board_of(session).executed_cmd_ids() == []


def test_a_move_the_board_refuses_after_an_estop_for_another_process_names_that_estop() -> None:
    # The run keeps streaming while the request is served: the board refuses the next MOVE (ESTOPPED), and the
    # run's closing line must still say who stopped the arm, not only that the board refused.
    with Session(BARE) as session, fails_if_hung():
        configure_snake(session)
        _stopped, answers = estop_from_another_process(session)
        assert answers == [ESTOPPED]
        session.send_move(2, snake_pose_us(2), 200)
        with pytest.raises(BoardError) as refused:
            for _ in range(50):
                session.poll()
                time.sleep(0.01)
        assert refused.value.code == "ESTOPPED"
        assert str(refused.value) == "`hanoibot estop` from another process stopped the arm with command 2 pending"
