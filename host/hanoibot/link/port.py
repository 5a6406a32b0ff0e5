"""Opening a pyserial URL and reading from it, with serial errors translated once into hanoibot errors.

Schemes beyond pyserial's own (``sim://``, ``vpico://``, ``feetech://``) are found as the program offered them
(:mod:`hanoibot.link.port_schemes`). A port that does not exist, is busy or vanishes
becomes a :class:`~hanoibot.errors.PortError` with one line naming the port.
"""

from __future__ import annotations

import contextlib

import serial

from ..errors import HanoiError, PortBusy, PortError

#: Longest a single read blocks, in s (of the port's clock); the session loops on it.
READ_QUANTUM_S = 0.01
#: Longest a write may block before the port is considered stuck, in s.
WRITE_TIMEOUT_S = 1.0

#: USB vendor ids of USB-UART bridge chips (Silicon Labs CP210x, WCH CH34x, FTDI): on classic ESP32 boards their
#: DTR and RTS lines drive IO0 and EN through the two-transistor auto-reset circuit.
UART_BRIDGE_VIDS = {0x10C4: "CP210x", 0x1A86: "CH34x", 0x0403: "FTDI"}
#: USB vendor ids of chips whose own USB is the serial port (Raspberry Pi RP2040/RP2350, Espressif's native USB).
NATIVE_USB_VIDS = {0x2E8A: "RP2040", 0x303A: "Espressif native USB"}


def modem_lines(vid: int | None) -> tuple[bool, bool]:
    """(DTR, RTS) to hold while hanoibot has a port whose USB vendor id is ``vid`` (None: not USB, or unknown).

    A USB-UART bridge gets both asserted, as mpremote does: the auto-reset circuit pulls EN low only for RTS
    without DTR and IO0 low only for DTR without RTS, so with both asserted neither is pulled, and a brown-out or
    an EN press while we hold the port boots the firmware, not the ROM bootloader (DTR alone holds IO0 low). Native
    USB (rp2, Espressif's USB-serial-JTAG, which resets on RTS) gets DTR only: rp2's CDC port sends only once DTR
    is asserted. Anything else gets DTR only too.
    """
    if vid in UART_BRIDGE_VIDS:
        return True, True
    return True, False


def usb_vid(device: str) -> int | None:
    """The USB vendor id of the serial device ``device`` (a path such as /dev/ttyUSB0), None when it is not a USB
    device or is not listed."""
    if "://" in device:
        return None
    try:
        from serial.tools import list_ports

        ports = list(list_ports.comports())
    except (OSError, ImportError):
        return None
    for info in ports:
        if info.device == device:
            vid: int | None = info.vid
            return vid
    return None


def open_port(url: str, *, baudrate: int = 115200) -> serial.SerialBase:
    """Open ``url`` (a device path or any pyserial URL) with a short read timeout; PortError if it cannot be.

    Modem lines: pyserial asserts both DTR and RTS when it opens a port unless told otherwise before ``open()``
    (pyserial 3.5, ``serialposix.Serial.open``: ``os.open``, then ``_reconfigure_port``, then ``_update_dtr_state``
    and ``_update_rts_state`` from the values set before). Which lines are set is chosen by the USB vendor id of the
    device (:func:`modem_lines`): both for a USB-UART bridge (a classic ESP32's auto-reset circuit), DTR only for
    native USB (rp2, Espressif). The OS may still raise both for an instant in ``os.open``, before pyserial sets
    them; that is the same for every tool, mpremote included.
    """
    try:
        port = serial.serial_for_url(
            url, baudrate=baudrate, timeout=READ_QUANTUM_S, write_timeout=WRITE_TIMEOUT_S, do_not_open=True
        )
        port.dtr, port.rts = modem_lines(usb_vid(url))
        if "://" not in url:
            port.exclusive = True  # a device: no other program may open it while we have it (flock on it)
        port.open()
        return port
    except HanoiError:
        raise
    except (serial.SerialException, OSError, ValueError) as err:
        if "exclusively lock" in str(err):
            raise PortBusy(f"port {url} is in use by another program (it holds the device); stop it first") from err
        raise PortError(
            f"cannot open port {url!r}: {_reason(err)}; expected a free serial port or a sim:// URL"
        ) from err


def reopen_port(port: serial.SerialBase, url: str) -> None:
    """Open a closed port object again (the same device path; a sim:// port keeps its board)."""
    try:
        port.open()
    except HanoiError:
        raise
    except (serial.SerialException, OSError, ValueError) as err:
        raise PortError(f"cannot reopen port {url!r}: {_reason(err)}; expected the port to be back") from err


def read_available(port: serial.SerialBase, *, wait: bool) -> bytes:
    """What has arrived; with ``wait``, block up to the port timeout for the first byte. Serial errors raise."""
    waiting = port.in_waiting
    if waiting:
        return bytes(port.read(waiting))
    if not wait:
        return b""
    data = bytes(port.read(1))
    if data:
        waiting = port.in_waiting
        if waiting:
            data += port.read(waiting)
    return data


def close_quietly(port: serial.SerialBase | None) -> None:
    """Close ``port`` ignoring errors (it may already be gone)."""
    if port is None:
        return
    with contextlib.suppress(serial.SerialException, OSError):
        port.close()


def _reason(err: BaseException) -> str:
    """The useful part of a serial error message, on one line."""
    text = str(err).strip() or type(err).__name__
    return " ".join(text.split())
