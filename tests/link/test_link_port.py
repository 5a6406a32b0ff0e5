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


@pytest.mark.parametrize(
    ("vid", "lines"),
    [
        (0x10C4, (True, True)),  # CP210x on a classic ESP32 dev kit: DTR alone would hold IO0 low
        (0x1A86, (True, True)),  # CH340
        (0x0403, (True, True)),  # FTDI
        (0x2E8A, (True, False)),  # RP2040 native USB: DTR makes its CDC port talk
        (0x303A, (True, False)),  # Espressif USB-serial-JTAG: RTS resets the chip
        (None, (True, False)),
    ],
)
def test_the_modem_lines_are_chosen_by_the_usb_vendor_id(
    monkeypatch: pytest.MonkeyPatch, vid: int | None, lines: tuple[bool, bool]
) -> None:
    from hanoibot.link import port as port_module

    real = serial.serial_for_url
    seen: list[tuple[bool, bool]] = []

    def recording(url: str, *args: Any, **kwargs: Any) -> serial.SerialBase:
        made = real("loop://", *args, **kwargs)
        original_open = made.open

        def open_and_record() -> None:
            seen.append((made.dtr, made.rts))
            original_open()

        made.open = open_and_record  # type: ignore[method-assign]
        return made

    class Info:
        device = "/dev/ttyUSB7"

    Info.vid = vid  # type: ignore[attr-defined]
    monkeypatch.setattr(serial, "serial_for_url", recording)
    monkeypatch.setattr("serial.tools.list_ports.comports", lambda: [Info()])
    monkeypatch.setattr(port_module.serial.SerialBase, "exclusive", property(lambda self: None, lambda self, v: None))
    port = open_port("/dev/ttyUSB7")
    try:
        assert seen == [lines]
    finally:
        close_quietly(port)


def test_a_port_opens_with_dtr_asserted_and_rts_released(monkeypatch: pytest.MonkeyPatch) -> None:
    """A URL (no USB device): DTR asserted, RTS released, as for native USB."""
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
