"""Session over sim://: exactly-once, in-order delivery under injected faults, resets, errors and time-outs.

Everything runs on the simulator's virtual clock, so 10 000 MOVEs (100 s of arm time) take seconds of CPU.
"""

from __future__ import annotations

import math
import types

import hanoibot.link.status
import pytest
from hanoibot.errors import (
    BadCommand,
    BoardError,
    BoardReset,
    ConfigError,
    LinkLost,
    LinkTimeout,
    PortError,
    ProtocolMismatch,
)
from hanoibot.link.core import LinkCore
from hanoibot.link.session import Session
from hanoibot.sim.board import SimBoard
from hanoifw import protocol
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from link_checks import (
    CHANNELS,
    MAX_US,
    MIN_US,
    MOVE_MS,
    assert_snake_executed,
    configure_snake,
    snake_pose_us,
    stream_snake,
)

BARE = "sim://?world=0"


def board_of(session: Session) -> SimBoard:
    board: SimBoard = session.port.board  # type: ignore[union-attr]
    return board


@pytest.mark.parametrize(
    "faults",
    [
        "",
        *(
            pytest.param(f, marks=pytest.mark.slow)
            for f in ("flip=1e-3", "flip=1e-2", "drop=1e-2", "insert=1e-3", "dup=0.01")
        ),
    ],
)
def test_ten_thousand_moves_arrive_exactly_once_in_order(faults: str) -> None:
    with Session(f"{BARE}&seed=11&{faults}") as session:
        configure_snake(session)
        stream_snake(session, 10_000)
        board = board_of(session)
        assert_snake_executed(board.servos.history, 10_000)
        assert board.executed_cmd_ids() == list(range(1, 10_001))
        if faults:
            assert session.retransmits > 0 or "dup" in faults
            assert any(event["event"] == "injected" for event in board.events)


def test_handshake_reads_the_board() -> None:
    with Session(BARE) as session:
        assert session.channels == CHANNELS
        assert session.queue_depth == 8
        assert session.boot_id == board_of(session).boot_id
        assert session.hello is not None and session.hello.proto == protocol.PROTOCOL_VERSION


def test_handshake_survives_noise_before_the_first_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    noise = [b"\x00\xffgarbage*12345678\nHELLO,1,2,3*deadbeef\n\x03\x04 line noise without end"]
    original = SimBoard.take_output

    def noisy(self: SimBoard) -> bytes:
        return (noise.pop() if noise else b"") + original(self)

    monkeypatch.setattr(SimBoard, "take_output", noisy)
    with Session(f"{BARE}&flip=0.01&seed=3") as session:
        configure_snake(session)
        stream_snake(session, 20)


def test_another_protocol_version_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # Make the host speak the next version; the board (the real firmware core) still speaks this one.
    newer = types.SimpleNamespace(**{**vars(protocol), "PROTOCOL_VERSION": protocol.PROTOCOL_VERSION + 1})
    monkeypatch.setattr(hanoibot.link.status, "protocol", newer)
    with pytest.raises(ProtocolMismatch, match=f"board speaks protocol version {protocol.PROTOCOL_VERSION}:") as info:
        Session(BARE).open()
    assert "\n" not in str(info.value)


def test_missing_port_is_one_clear_error() -> None:
    with pytest.raises(PortError, match="/dev/hanoibot-no-such-port") as info:
        Session("/dev/hanoibot-no-such-port").open()
    assert "\n" not in str(info.value)


def test_bad_sim_option_names_it() -> None:
    with pytest.raises(ConfigError, match="'flop'"):
        Session("sim://?flop=1").open()


def test_silent_board_is_link_lost_after_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    with Session(LinkCore(BARE, silence_s=0.5)) as session:
        configure_snake(session)
        monkeypatch.setattr(SimBoard, "take_output", lambda self: b"")
        start_s = session.clock.now_s()
        with pytest.raises(LinkLost, match=r"bound 0\.5 s"):
            session.status()
        assert 0.5 <= session.clock.now_s() - start_s <= 0.5 + 0.05


def test_board_refuses_out_of_limit_move_and_never_outputs_it() -> None:
    with Session(BARE) as session:
        configure_snake(session)
        session.send_move(1, snake_pose_us(1), MOVE_MS)
        bad = (MAX_US[0] + 1, *snake_pose_us(2)[1:])
        with pytest.raises(BoardError) as info:
            session.send_move(2, bad, MOVE_MS)
            session.wait_done(2, timeout_s=1.0)
        assert info.value.code == protocol.E_LIMIT
        assert info.value.cmd_id == 2
        history = board_of(session).servos.history
        assert all(MIN_US[ch] <= pulse <= MAX_US[ch] for _t, ch, pulse in history if pulse is not None)


@pytest.mark.parametrize(
    ("cmd_id", "pulses", "duration_ms", "word"),
    [
        (1, (1500,) * (CHANNELS - 1), MOVE_MS, "4 values"),
        (0, (1500,) * CHANNELS, MOVE_MS, "cmd_id 0"),
        (1, (1500,) * CHANNELS, 0, "duration 0 ms"),
    ],
)
def test_bad_commands_are_refused_before_sending(
    cmd_id: int, pulses: tuple[int, ...], duration_ms: int, word: str
) -> None:
    with Session(BARE) as session:
        configure_snake(session)
        with pytest.raises(BadCommand, match=word):
            session.send_move(cmd_id, pulses, duration_ms)


def test_wait_done_for_a_command_never_sent_is_refused() -> None:
    with Session(BARE) as session, pytest.raises(BadCommand, match="never sent"):
        session.wait_done(5)


def test_wait_done_times_out_on_a_held_queue() -> None:
    with Session(BARE) as session:
        configure_snake(session)
        session.hold()
        session.send_move(1, snake_pose_us(1), MOVE_MS)
        with pytest.raises(LinkTimeout, match=r"command 1 not done within 0\.5 s"):
            session.wait_done(1, timeout_s=0.5)
        session.resume()
        session.wait_done(1, timeout_s=1.0)  # the outputs are on, and the last one settled, 1.0 s after CONFIG


def test_estop_latches_until_clear() -> None:
    with Session(BARE) as session:
        configure_snake(session)
        session.estop()
        assert session.status().mode == "ESTOP"
        session.send_move(1, snake_pose_us(1), MOVE_MS)
        with pytest.raises(BoardError, match="ESTOP"):
            session.wait_done(1, timeout_s=1.0)
        session.clear()
        stream_snake(session, 3, first_cmd_id=2)


def test_an_estop_asked_for_in_this_process_stops_a_wait_within_a_control_period() -> None:
    # The console's E-STOP button sets the event from another thread; here one tick of the wait sets it.
    import threading

    wanted = threading.Event()
    ticks: list[float] = []
    with Session(BARE) as session:
        configure_snake(session)

        def tick() -> None:
            ticks.append(session.clock.now_s())
            if len(ticks) == 3:
                wanted.set()

        session.stop_when(wanted, "pressed on the page", tick)
        session.send_move(1, snake_pose_us(1), 5000)
        with pytest.raises(BoardError, match="pressed on the page"):
            session.wait_done(1)
        stopped_s = session.clock.now_s()
        assert session.status().mode == "ESTOP" and session.last_done_cmd < 1
        assert stopped_s - ticks[2] < 0.1  # ESTOP went out on the next read, confirmed within a round trip
        with pytest.raises(BoardError, match="pressed on the page"):
            session.send_move(2, snake_pose_us(2), MOVE_MS)  # nothing more is sent while the e-stop is wanted
        wanted.clear()  # the front end saw the latch confirmed
        session.clear()
        stream_snake(session, 3, first_cmd_id=2)


def test_status_reports_the_pose() -> None:
    with Session(BARE) as session:
        configure_snake(session)
        stream_snake(session, 5)
        status = session.status()
        assert status.pulses_us == snake_pose_us(5)
        assert status.last_done_cmd == 5
        assert status.faults == ()
        assert session.ping() >= 0.0


def test_status_is_never_the_answer_to_an_earlier_request_still_on_its_way() -> None:
    """A heartbeat's STATUS request is answered, and the answer is on the wire unread, when something happens on the
    board that the host learns of another way (a rail it switched off, outputs it saw stop): the STATUS asked for
    then must be made after the board read that request, not the older answer (the vpico rail-loss test read
    'rail on, no POWER_LOST' after the outputs had stopped, and took it for a reboot)."""
    with Session(f"{BARE}&slow=6") as session:  # the chip takes time for each frame: answers come later
        board = board_of(session)
        session.core.ask_status()  # as a heartbeat does
        while board.next_frame_done_s != math.inf:  # the board answers it (and whatever else waits): all on the wire
            board.run_until(board.next_frame_done_s)
        board.controller.latch_fault("COLLISION")
        status = session.status()
        assert "COLLISION" in status.faults, f"session.status() gave an answer made before it asked: {status}"
        assert session.status().faults == status.faults  # and again, with nothing on its way


@settings(max_examples=12, suppress_health_check=[HealthCheck.too_slow])
@given(reset_after=st.integers(3, 120), seed=st.integers(0, 1000), noisy=st.booleans())
def test_reset_is_reported_within_a_second_and_nothing_is_replayed(reset_after: int, seed: int, noisy: bool) -> None:
    faults = "&flip=1e-2" if noisy else ""
    with Session(f"{BARE}&reset_after={reset_after}&seed={seed}{faults}") as session:
        board = board_of(session)
        assume(not any(event["event"] == "reset" for event in board.events))  # not already during the handshake
        sent: list[int] = []
        with pytest.raises(BoardReset) as info:
            configure_snake(session)
            for k in range(1, 201):
                session.send_move(k, snake_pose_us(k), MOVE_MS)
                sent.append(k)
            session.wait_done(200, timeout_s=10.0)
        raised_s = session.clock.now_s()
        reset_index, reset = next((i, e) for i, e in enumerate(board.events) if e["event"] == "reset")
        assert raised_s - reset["t_s"] <= 1.0
        assert info.value.new_boot_id == board.boot_id != info.value.old_boot_id
        # The unknown ones are exactly those sent and not yet reported done; all ran before the reset or never.
        executed_before = [e["cmd_id"] for e in board.events[:reset_index] if e["event"] == "executed"]
        assert executed_before == list(range(1, len(executed_before) + 1))
        unknown = info.value.unknown_cmd_ids
        if unknown:
            assert unknown == tuple(range(unknown[0], sent[-1] + 1))
        assert set(sent) - set(unknown) <= set(executed_before)
        # Nothing reaches the new boot until the host starts over, and then only new commands run.
        session.resync()
        configure_snake(session)
        stream_snake(session, 3, first_cmd_id=1_000)
        after = [e["cmd_id"] for e in board.events[reset_index:] if e["event"] == "executed"]
        assert after == [1_000, 1_001, 1_002]


def test_a_new_port_is_a_new_board_and_reopening_keeps_it() -> None:
    with Session(BARE) as first, Session(BARE) as second:
        assert first.boot_id != second.boot_id
        boot_id = first.boot_id
        first.reconnect()
        assert first.boot_id == boot_id
        assert first.reconnects == 1


def test_a_long_wait_on_a_noisy_line_is_not_mistaken_for_silence() -> None:
    # At flip 1e-2 a third of heartbeat round trips fail; a minute of waiting must still see the board alive.
    with Session(f"{BARE}&flip=1e-2&seed=5") as session:
        configure_snake(session)
        session.hold()
        session.send_move(1, snake_pose_us(1), MOVE_MS)
        with pytest.raises(LinkTimeout) as info:
            session.wait_done(1, timeout_s=60.0)
        assert not isinstance(info.value, LinkLost)


def test_board_refusals_name_the_command_to_run_not_protocol_words() -> None:
    with Session(BARE) as session:
        configure_snake(session)
        session.estop()
        session.send_move(1, snake_pose_us(1), MOVE_MS)
        with pytest.raises(BoardError) as err:
            session.wait_done(1, timeout_s=1.0)
        message = str(err.value)
        assert "send CLEAR" not in message
        assert "hanoibot home --clear" in message, message
