"""``feetech://`` for pyserial: Feetech STS/SCS bus servos on a USB bus adapter, driven by the firmware's own
board run in this process (:mod:`.busboard`), behind the same link protocol as a MicroPython board.

URL: ``feetech://DEVICE[?ids=1,2,3,4,5&baud=1000000&steps=4096&echo=0]``, e.g. ``feetech:///dev/ttyACM0``:
``DEVICE`` is the adapter's serial device (or any pyserial URL); ``ids`` the servos' bus ids, one per channel in
wire order, gripper last (default 1..5, as board_config.py's BUS_IDS; an SO-101 set up by lerobot has 1..6);
``baud`` the bus rate (the servos' factory 1 000 000); ``steps`` 4096 (STS, SMS) or 1024 (SCS); ``echo=1`` for an
adapter that gives back what it sends. The board starts at open (a boot: it reads back what each servo holds) and
stops at close; the servos keep holding. The session, journal, resume, e-stop and recovery see a board like any
other; since this board lives in the host's process, a host that dies takes the board with it, and the next host
meets a new boot whose servos held the arm: ``hanoibot resume`` finishes a move whose disk is still in the fingers
(:mod:`hanoibot.ops.held_reset`) and otherwise asks where the disks are, as after a board reset. An e-stop latched
on the board stays latched for the next one (:mod:`.bus_latch`).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

from serial.serialutil import PortNotOpenError, SerialBase, SerialException

from ...clock import Clock
from ..board_port import SimulatorView
from .busboard import BusBoard, parse_ids

#: The URL's options and their defaults.
DEFAULTS = {"ids": "1,2,3,4,5", "baud": "1000000", "steps": "4096", "echo": "0"}
#: Bus rates an STS/SCS servo can be set to (lerobot's STS_SMS_SERIES_BAUDRATE_TABLE).
BAUDS = (1_000_000, 500_000, 250_000, 128_000, 115_200, 57_600, 38_400, 19_200)


def parse_feetech_url(url: str) -> tuple[str, dict[str, Any]]:
    """The adapter's device and the board's settings (ids, baud, steps_per_turn, echo) of a ``feetech://`` URL;
    ValueError names a bad or unknown option."""
    parts = urlsplit(url)
    if parts.scheme != "feetech" or not parts.path or parts.netloc:
        raise ValueError(f"port URL {url!r}: expected feetech://DEVICE[?option=value&...], e.g. feetech:///dev/ttyACM0")
    given = parse_qs(parts.query, keep_blank_values=True)
    for name, values in given.items():
        if name not in DEFAULTS or len(values) != 1:
            raise ValueError(f"feetech option {name!r}: expected each of {', '.join(DEFAULTS)} at most once")
    options = {name: given.get(name, [default])[0] for name, default in DEFAULTS.items()}
    if options["baud"] not in {str(b) for b in BAUDS}:
        raise ValueError(f"feetech option baud={options['baud']!r}: expected one of {', '.join(map(str, BAUDS))}")
    if options["steps"] not in ("4096", "1024"):
        raise ValueError(f"feetech option steps={options['steps']!r}: expected 4096 (STS, SMS) or 1024 (SCS)")
    if options["echo"] not in ("0", "1"):
        raise ValueError(f"feetech option echo={options['echo']!r}: expected 0 (a USB adapter) or 1")
    settings = {
        "ids": parse_ids(options["ids"]),
        "baud": int(options["baud"]),
        "steps_per_turn": int(options["steps"]),
        "echo": options["echo"] == "1",
    }
    return parts.path, settings


class Serial(SerialBase):
    """A pyserial port whose far end is the firmware's board on this host, driving the servos on ``DEVICE``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.board: BusBoard | None = None
        self.is_open: bool = False
        super().__init__(*args, **kwargs)

    # --- BoardPort: a real board's face (wall time, no simulator, a line that never waits) ------------------------
    @property
    def clock(self) -> Clock | None:
        return None

    @property
    def simulator(self) -> SimulatorView | None:
        return None

    @property
    def line_byte_s(self) -> float:
        return 0.0

    # --- SerialBase ---------------------------------------------------------------------------------------------
    def open(self) -> None:
        """Open the adapter and boot the board on it."""
        if self.is_open:
            raise SerialException("feetech:// port is already open")
        if self._port is None:
            raise SerialException("feetech:// port must be configured before it is opened")
        try:
            device, settings = parse_feetech_url(self._port)
        except ValueError as err:
            raise SerialException(str(err)) from None
        board = BusBoard(device, **settings)
        board.start()  # SerialException or OSError naming the device when the adapter is not there
        self.board = board
        self.is_open = True

    def close(self) -> None:
        """Stop the board (the servos keep holding) and close the adapter."""
        if self.board is not None:
            self.board.stop()
            self.board = None
        self.is_open = False

    def read(self, size: int = 1) -> bytes:
        """Up to ``size`` bytes from the board, waiting up to ``timeout`` s for the first."""
        if self.board is None:
            raise PortNotOpenError()
        return self.board.pipe.take(size, self._timeout)

    def write(self, data: bytes | bytearray | memoryview) -> int:
        """Send ``data`` to the board."""
        if self.board is None:
            raise PortNotOpenError()
        payload = bytes(data)
        self.board.pipe.feed(payload)
        return len(payload)

    @property
    def in_waiting(self) -> int:
        if self.board is None:
            raise PortNotOpenError()
        return self.board.pipe.waiting()

    @property
    def out_waiting(self) -> int:
        return 0

    def reset_input_buffer(self) -> None:
        """Forget what the board sent and nobody read yet."""
        if self.board is not None:
            self.board.pipe.take(1 << 20, 0.0)

    def reset_output_buffer(self) -> None:
        """Nothing sent can be taken back."""

    def _reconfigure_port(self, force_update: bool = False) -> None:
        """The link's baud rate means nothing here: the bus has its own (the URL's ``baud``)."""

    def _update_dtr_state(self) -> None:
        """No modem lines between the host and a board in its own process."""

    def _update_rts_state(self) -> None:
        """No modem lines between the host and a board in its own process."""

    def _update_break_state(self) -> None:
        """No break condition either."""
