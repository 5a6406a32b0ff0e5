"""A noisy line spoils the board's answers. A damaged line still shows the board is alive and as quick as its
round trips say, so the resend timeout is not doubled for it: lost frames are resent a measured resend timeout
apart, and enough of them fit in the silence bound (a doubled timeout let only about five through, and a long
noisy run ended in "no valid frame")."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hanoibot.errors import LinkLost
from hanoibot.link.core import LinkCore
from hanoifw import protocol


def resend_times_with_every_answer_damaged(core: LinkCore) -> list[float]:
    """Send one reliable frame and spoil every line the board sends back from then on; the session times (s) at
    which the frame was written, until the link gives up."""
    port: Any = core.port
    written_s: list[float] = []
    original_write, original_read = port.write, port.read

    def write(data: bytes) -> int:
        if bytes(data).startswith(protocol.RESUME.encode()):
            written_s.append(core.clock.now_s())
        return int(original_write(data))

    def read(size: int = 1) -> bytes:
        return bytes(original_read(size)).replace(b"*", b"#")  # every line arrives; none passes its CRC check

    port.write, port.read = write, read
    core.send_reliable(protocol.RESUME)
    start_s = core.clock.now_s()
    with pytest.raises(LinkLost):
        while core.clock.now_s() - start_s < 5.0:
            core.service(wait=True)
    return written_s


def test_a_frame_whose_acks_are_all_damaged_is_resent_without_back_off() -> None:
    core = LinkCore("sim://?world=0&seed=5")
    core.open()
    try:
        written_s = resend_times_with_every_answer_damaged(core)
    finally:
        core.close()
    gaps_s = [b - a for a, b in itertools.pairwise(written_s)]
    assert len(written_s) >= 15, gaps_s
    assert max(gaps_s) <= 2 * min(gaps_s) + 0.01, gaps_s
