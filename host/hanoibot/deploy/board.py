"""The board's side of a deployment, through mpremote's Python API (``SerialTransport``): who it is, writing,
hashing and resetting. Every failure becomes one :class:`DeployError` line in the user's words."""

from __future__ import annotations

import contextlib
import hashlib
import io
import struct
import time
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from ..errors import PortError
from .compiler import DeployError, MpyVersion

#: Bound on entering the raw REPL (s): a board that has not stopped its program by then is not answering.
RAW_REPL_TIMEOUT_S = 10
#: Bound on the port coming back after the reset that starts a deployment (s): native USB re-enumerates.
REBOOT_TIMEOUT_S = 10.0
#: Times the raw REPL is asked for on the fresh boot after the reset (each bounded by RAW_REPL_TIMEOUT_S): a board
#: still booting, or one whose USB came up after the first keys were sent, answers a later ask.
BOOT_RAW_REPL_TRIES = 3
#: Pause between two tries to reopen the port while the board reboots (s).
REOPEN_PAUSE_S = 0.25
#: Bound on any one read from the board (s). mpremote opens its port without one, so a board that falls silent in
#: the middle of a command (a raw-paste window never granted, an "OK" never sent) would block a read for ever.
READ_TIMEOUT_S = 20.0

#: One expression that names the board: (version string, .mpy version or None, chip, build: the commit the
#: firmware was built from, as ``os.uname().version`` says it, e.g. "v1.26.0-preview.115.g150a5aa3a1 on DATE").
IDENTIFY = (
    "(sys.implementation.name, '.'.join(str(v) for v in sys.implementation.version[:3]), "
    "getattr(sys.implementation, '_mpy', None), os.uname().machine, os.uname().version)"
)


class BoardStoppedAnswering(DeployError):
    """The board went silent or away in the middle of the copy (a read ran past :data:`READ_TIMEOUT_S`, the port
    vanished): a deployment may start again from the board's reset."""


class BoardInfo(NamedTuple):
    """What the board says about itself: ``micropython`` ("1.27.0"), ``mpy`` (None on builds without
    ``sys.implementation._mpy``), ``machine`` (``os.uname().machine``) and ``build`` (``os.uname().version``;
    "" when not asked)."""

    micropython: str
    mpy: MpyVersion | None
    machine: str
    build: str = ""


def parse_identity(raw: Any, port: str) -> BoardInfo:
    """Decode the answer to :data:`IDENTIFY`; DeployError when the board is not MicroPython."""
    if not (isinstance(raw, tuple) and len(raw) in (4, 5)) or raw[0] != "micropython":
        raise DeployError(f"the board on {port} is not running MicroPython (it says {raw!r})")
    mpy = None if raw[2] is None else MpyVersion.from_sys_mpy(int(raw[2]))
    return BoardInfo(str(raw[1]), mpy, str(raw[3]), str(raw[4]) if len(raw) == 5 else "")


def check_version_floor(info: BoardInfo, port: str) -> None:
    """DeployError naming the version when the board's port needs a newer MicroPython to drive servos cleanly
    (esp32 before 1.26 gives a pulse at every PWM start): the floor main.py enforces too."""
    from hanoifw.boardpins import BoardConfigError, check_port_version, chip_name

    platform = "esp32" if chip_name(info.machine).startswith("ESP32") else "other"
    try:
        version: tuple[int | str, ...] = tuple(int(part) for part in info.micropython.split(".")[:3])
    except ValueError:
        return
    if "-preview" in info.build.split(" ", 1)[0]:
        version = (*version, "preview")  # sys.implementation.version's fourth field on a preview build
    try:
        check_port_version(platform, version, info.build)
    except BoardConfigError as err:
        raise DeployError(f"the board on {port} runs {err}") from err


def sha256_of(data: bytes) -> bytes:
    """The SHA-256 digest the board must report for a file holding ``data``."""
    return hashlib.sha256(data).digest()


class BoardFiles:
    """An mpremote raw-REPL session on ``port`` (a device path or pyserial URL), on a FRESH boot of the board. Use
    as a context manager.

    A board that has run hanoibot since its boot has its hardware watchdog running (it starts at the first CONFIG
    and cannot be stopped): at its REPL it resets about 2 s later, in the middle of a copy. So entering resets the
    board first (``machine.reset()`` from the raw REPL) and enters the raw REPL again on the fresh boot, whose
    main.py has switched nothing on and started no watchdog (``fresh_boot=False`` skips that).
    """

    def __init__(
        self,
        port: str,
        transport_factory: Callable[[str], Any] | None = None,
        *,
        fresh_boot: bool = True,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.port = port
        self._factory = transport_factory
        self._fresh_boot = fresh_boot
        self._sleep = sleep
        self._transport: Any = None

    def __enter__(self) -> BoardFiles:
        from mpremote.transport import TransportError

        factory = self._factory
        if factory is None:
            from mpremote.transport_serial import SerialTransport

            def factory(port: str) -> Any:
                return SerialTransport(port, timeout=READ_TIMEOUT_S)

        self._transport = self._open(factory, TransportError)
        self._enter_raw_repl(TransportError)
        if self._fresh_boot:
            self._transport.exec_raw_no_follow("import machine; machine.reset()")
            self._transport.in_raw_repl = False
            self.close()
            self._transport = self._reopen(factory, TransportError)
            self._enter_raw_repl(TransportError, tries=BOOT_RAW_REPL_TRIES)
        return self

    def _open(self, factory: Callable[[str], Any], transport_error: type[Exception]) -> Any:
        """A transport on the port; PortError when it cannot be opened."""
        try:
            return factory(self.port)
        except (transport_error, OSError, ValueError) as err:
            raise PortError(f"cannot open port {self.port!r}: no such port, or it is busy") from err

    def _reopen(self, factory: Callable[[str], Any], transport_error: type[Exception]) -> Any:
        """The port again once the rebooted board is back (bounded by :data:`REBOOT_TIMEOUT_S`)."""
        waited_s = 0.0
        while True:
            self._sleep(REOPEN_PAUSE_S)
            waited_s += REOPEN_PAUSE_S
            try:
                return factory(self.port)
            except (transport_error, OSError, ValueError) as err:
                if waited_s >= REBOOT_TIMEOUT_S:
                    raise DeployError(
                        f"the board on {self.port} did not come back within {REBOOT_TIMEOUT_S:g} s of its reset"
                    ) from err

    def _enter_raw_repl(self, transport_error: type[Exception], *, tries: int = 1) -> None:
        """Stop the board's program and enter its raw REPL, asking up to ``tries`` times (each bounded by
        :data:`RAW_REPL_TIMEOUT_S`); DeployError (port closed) when it does not answer."""
        for attempt in range(1, tries + 1):
            try:
                with contextlib.redirect_stdout(io.StringIO()):  # mpremote prints what it read when it gives up
                    self._transport.enter_raw_repl(soft_reset=False, timeout_overall=RAW_REPL_TIMEOUT_S)
                return
            except transport_error as err:
                if attempt < tries:
                    continue  # still booting, or the keys went out before its USB came up: ask again
                failure: Exception = err
            except OSError as err:
                failure = err
            self.close()
            raise DeployError(
                f"the board on {self.port} does not answer as MicroPython: if the arm is powered, run "
                f"`hanoibot home --release --port {self.port}` first"
                " (the firmware ignores Ctrl-C while it drives servos)"
            ) from failure

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Leave the raw REPL and close the port (the board stays at its prompt)."""
        if self._transport is None:
            return
        try:
            if self._transport.in_raw_repl:
                self._transport.exit_raw_repl()
        except OSError:
            pass
        self._transport.close()
        self._transport = None

    @contextlib.contextmanager
    def answering(self) -> Iterator[None]:
        """Turn the board going silent or away mid-transfer into one DeployError line (what to do next)."""
        from mpremote.transport import TransportError

        try:
            yield
        except (TransportError, OSError, struct.error) as err:  # struct.error: a raw-paste header cut short
            raise BoardStoppedAnswering(
                f"the board on {self.port} stopped answering during the copy ({err}); a board that has been driving "
                "the arm resets about 2 s after its REPL comes up (hardware watchdog): run hanoibot deploy again"
            ) from err

    def identify(self) -> BoardInfo:
        """The board's MicroPython version, .mpy version and chip."""
        from mpremote.transport import TransportError

        try:
            self._transport.exec("import sys, os")
            raw = self._transport.eval(IDENTIFY)
        except (TransportError, SyntaxError, ValueError, struct.error) as err:
            raise DeployError(f"the board on {self.port} is not running MicroPython ({err})") from err
        return parse_identity(raw, self.port)

    def make_dir(self, path: str) -> None:
        """Create folder ``path`` on the board unless it exists."""
        if not self._transport.fs_exists(path):
            self._transport.fs_mkdir(path)

    def write(self, path: str, data: bytes, progress: Callable[[int, int], None] | None = None) -> None:
        """Write ``data`` to ``path`` on the board (replacing it)."""
        self._transport.fs_writefile(path, data, progress_callback=progress)

    def remove_if_present(self, path: str) -> bool:
        """Delete ``path`` on the board if it exists; True if it did."""
        if self._transport.fs_exists(path):
            self._transport.fs_rmfile(path)
            return True
        return False

    def sha256(self, path: str) -> bytes:
        """The SHA-256 of ``path`` as the board computes it (mpremote reads it back where hashlib is missing)."""
        return bytes(self._transport.fs_hashfile(path, "sha256"))

    def verify(self, path: str, data: bytes) -> None:
        """DeployError unless the board's copy of ``path`` hashes like ``data``."""
        if self.sha256(path) != sha256_of(data):
            raise DeployError(
                f"{path} on the board differs from what was sent (hash mismatch): run hanoibot deploy again"
            )

    def reset(self) -> None:
        """Hard-reset the board (``machine.reset()``, as ``mpremote reset`` does) and close the port."""
        self._transport.exec_raw_no_follow("import time, machine; time.sleep_ms(100); machine.reset()")
        self._transport.in_raw_repl = False
        self.close()
