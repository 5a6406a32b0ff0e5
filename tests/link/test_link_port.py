"""Opening and reading ports: pyserial errors become one-line PortErrors; reads never block without need."""

from __future__ import annotations

from typing import Any

import pytest
import serial
from hanoibot.errors import PortError
from hanoibot.link.port import close_quietly, open_port, read_available, reopen_port


@pytest.mark.parametrize("url", ["/dev/hanoibot-missing", "nosuchscheme://x"])
def test_a_port_that_cannot_be_opened_is_one_line_naming_it(url: str) -> None:
    with pytest.raises(PortError) as info:
        open_port(url)
    message = str(info.value)
    assert url in message
    assert "\n" not in message


def test_read_available_returns_what_came_and_does_not_block_when_told() -> None:
    port = open_port("loop://")
    try:
        assert read_available(port, wait=False) == b""
        port.write(b"HELLO\n")
        assert read_available(port, wait=True) == b"HELLO\n"
        close_quietly(port)
        reopen_port(port, "loop://")
        assert port.is_open
    finally:
        close_quietly(port)
    close_quietly(None)


def test_a_port_opens_with_dtr_asserted_and_rts_released(monkeypatch: pytest.MonkeyPatch) -> None:
    """RTS resets esp32 boards (EN) and DTR alone does not; rp2 USB CDC only talks once DTR is asserted."""
    real = serial.serial_for_url
    seen: list[tuple[bool, bool]] = []

    def recording(url: str, *args: Any, **kwargs: Any) -> serial.SerialBase:
        port = real(url, *args, **{**kwargs, "do_not_open": True})
        original_open = port.open

        def open_and_record() -> None:
            seen.append((port.dtr, port.rts))
            original_open()

        port.open = open_and_record
        if not kwargs.get("do_not_open"):
            port.open()
        return port

    monkeypatch.setattr(serial, "serial_for_url", recording)
    port = open_port("loop://")
    try:
        assert port.is_open
        assert seen == [(True, False)]
    finally:
        close_quietly(port)
