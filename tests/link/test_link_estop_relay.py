"""``hanoibot estop`` relayed by the port holder (hanoibot.link.estop_relay): ESTOP at once for a request, again
each resend timeout while unconfirmed, and the client told once a STATUS after it shows the latch."""

from __future__ import annotations

from pathlib import Path

from hanoibot.link.control import ControlServer, ask_estop
from hanoibot.link.estop_relay import EstopRelay


class WallClock:
    def __init__(self) -> None:
        self.now_s = 0.0

    def __call__(self) -> float:
        return self.now_s


def test_a_request_sends_estop_again_until_a_later_status_confirms_it(tmp_path: Path) -> None:
    import threading

    wall = WallClock()
    relay = EstopRelay(poll_s=0.02, wall_now_s=wall)
    sent: list[float] = []
    answers: list[str | None] = []
    path = tmp_path / "control.sock"
    with ControlServer(path) as control:
        client = threading.Thread(target=lambda: answers.append(ask_estop(str(path), 5.0)))
        client.start()
        while not sent:
            wall.now_s += 0.02
            relay.serve(control, now_s=wall.now_s, statuses=3, resend_s=0.1, send_estop=lambda: sent.append(wall.now_s))
        assert relay.requests == 1
        relay.serve(control, now_s=sent[0] + 0.05, statuses=3, resend_s=0.1, send_estop=lambda: sent.append(-1.0))
        assert len(sent) == 1, "not yet a resend timeout"
        wall.now_s += 0.02
        relay.serve(control, now_s=sent[0] + 0.1, statuses=3, resend_s=0.1, send_estop=lambda: sent.append(-2.0))
        assert sent[1:] == [-2.0]
        relay.status_came(control, latched=True, statuses=3)  # not after our last ESTOP: no verdict yet
        assert control.is_waiting
        relay.status_came(control, latched=True, statuses=4)
        client.join(timeout=5)
    assert answers == ["estopped"]


def test_no_control_socket_no_relay() -> None:
    relay = EstopRelay()
    relay.serve(None, now_s=0.0, statuses=0, resend_s=0.1, send_estop=lambda: 1 / 0)
    assert relay.requests == 0
