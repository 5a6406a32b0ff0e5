"""A slow board (``sim://?slow=4``, a quarter of a Pico's speed): the idle link asks no faster than it should."""

from __future__ import annotations

import itertools

from hanoibot.link.core import LinkCore
from hanoifw import protocol


def test_an_idle_link_to_a_quarter_speed_board_sends_heartbeats_75_to_100_ms_apart() -> None:
    core = LinkCore("sim://?world=0&slow=4&seed=3")
    core.open()
    port = core.port
    assert port is not None
    sent_s: list[float] = []
    original_write = port.write

    def write(data: bytes) -> int:
        if data.split(b",")[0] in (protocol.PING.encode(), protocol.STATUS.encode()):
            sent_s.append(core.clock.now_s())
        return original_write(data)

    port.write = write  # type: ignore[method-assign]
    start_s = core.clock.now_s()
    while core.clock.now_s() - start_s < 3.0:
        core.service(wait=True)
    gaps_s = [b - a for a, b in itertools.pairwise(sent_s)]
    assert len(gaps_s) >= 25
    assert min(gaps_s) >= 0.075 - 1e-9
    assert max(gaps_s) <= 0.1
    assert core.retransmits == 0
    core.close()
