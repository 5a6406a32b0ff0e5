"""The virtual Pico's USB input behaves as a USB host's: what the host sent reaches the firmware as the firmware
makes room for it, whatever the host does next, and the host's count of bytes in flight stays exact across a
reboot. A board whose input waited for the host's next write stalled a deploy (the host waits for the board's answer
to bytes the board never got)."""

from __future__ import annotations

from typing import Any

import pytest
from hanoibot.sim.vpico.process import USB_FIFO_BYTES, VirtualPico
from vpico_checks import run_chip_until

pytestmark = [pytest.mark.slow, pytest.mark.vpico]

#: More than the USB FIFO holds: the rest must follow as the firmware reads.
SENT_BYTES = 3 * USB_FIFO_BYTES
READS_ALL = (
    "import sys\n"
    f"got = len(sys.stdin.buffer.read({SENT_BYTES}))\n"
    "print('GOT', got)\n"
    "import time\n"
    "while True:\n"
    "    time.sleep(1)\n"
).encode()


def test_input_beyond_the_fifo_reaches_the_firmware_with_no_further_write() -> None:
    with VirtualPico(driven=True, seed=1, files={"main.py": READS_ALL}) as pico:
        pico.wait_connected()
        # One write of three FIFOs' worth, as a host whose in-flight count was off would send: nothing follows it.
        pico._send({"op": "serial", "hex": (b"x" * SENT_BYTES).hex()})
        pico.wait_for_output(f"GOT {SENT_BYTES}".encode(), chip_s=5.0)


def test_the_in_flight_count_stays_exact_when_bytes_cross_a_reboot() -> None:
    pico: Any = VirtualPico()  # not started: the event accounting only
    pico._sent = 40  # written after the chip rebooted, before its boot event was read here
    pico._on_event({"ev": "boot", "n": 2, "cause": "wdt", "t_us": 1_000})
    pico._on_event({"ev": "taken", "n": 40})  # the new chip takes them
    assert pico.in_flight == 0  # not -40: a negative count let the host overfill the FIFO


def test_bytes_lost_with_a_reset_are_no_longer_in_flight() -> None:
    with VirtualPico(driven=True, seed=1, files={"main.py": READS_ALL}) as pico:
        pico.wait_connected()
        pico._send({"op": "reset"})
        assert pico.write(b"y" * 300) == 300  # reaches the old chip just before the reset takes it
        run_chip_until(pico, lambda: len(pico.boots) == 2, 1.0, "the reset")
        assert pico.in_flight == 0
