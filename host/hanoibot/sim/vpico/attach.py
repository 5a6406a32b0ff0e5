"""The virtual Pico on chip time for hosts in other processes: ``hanoibot emulate --pico --chip-time``.

A driven :class:`~hanoibot.sim.vpico.process.VirtualPico` (its emulated time is the host's clock) lives in the
emulator's process; :class:`ChipTimeServer` serves it on a Unix socket, and a host opens it as
``vpico://?attach=PATH`` (:class:`RemotePico` is its end). One host at a time, as one program holds a serial port.
The chip runs only while the host asks (a read that waits, a sleep), so a run is the same on every machine at any
load, whichever process it is in; when the host goes (it exits, or is killed), the chip runs
:data:`DETACH_S` on, so the board sees its host fall silent as a real one does, then stands still until the next
host comes.

A test stops a host at a chosen moment of the chip's time with a second connection (:class:`ChipTimeControl`):
``hold`` names a world event and a count (the first pick, say) and a delay; once the world has logged that many
since the hold was armed and the delay has passed, the host's pending request is not answered until ``release``
(or until the host is gone: a SIGKILL then lands at the same chip time on every run).

Wire format: one JSON object per line each way. A host sends ``{"op":"hello","role":"host"}``, then requests
``write`` (``hex``), ``run`` (``until_s``, ``stop_on_output``) or ``read``; each is answered with ``{"t_s": T,
"hex": ...}``: the chip's time (s, exactly as the emulator holds it) and the board's output since the last answer.
"""

from __future__ import annotations

import contextlib
import json
import selectors
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...errors import PortError
from .board_output import ChipClock

#: Chip time the board runs on after its host went, in s: its watchdog (300 ms of silence while moving) fires.
DETACH_S = 1.0
#: Longest a host waits for the answer to one request, in s of wall time (a run of seconds of chip time on a slow,
#: busy machine; a held request waits until released).
ANSWER_WAIT_S = 600.0
#: Longest the emulator waits for one control request to be answered, in s of wall time.
CONTROL_WAIT_S = 30.0

Event = dict[str, Any]


class _Connection:
    """One client's socket and its partial input line."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = b""
        self.role = ""

    def lines(self) -> list[Event]:
        """The complete request lines received so far (reads what is there; raises EOFError when closed)."""
        data = self.sock.recv(65536)
        if not data:
            raise EOFError
        self.buffer += data
        *whole, self.buffer = self.buffer.split(b"\n")
        return [json.loads(line) for line in whole if line.strip()]

    def send(self, message: Event) -> None:
        self.sock.sendall((json.dumps(message) + "\n").encode())


class _Hold:
    """Where to stop the host: after ``count`` world events named ``event`` (counted from when it was armed), plus
    ``after_s`` of chip time."""

    def __init__(self, event: str, count: int, after_s: float) -> None:
        self.event = event
        self.left = count
        self.after_s = after_s
        self.at_s: float | None = None  # chip time of the stop, once the events have come

    def saw(self, event: Event) -> None:
        if self.at_s is None and event.get("event") == self.event:
            self.left -= 1
            if self.left <= 0:
                self.at_s = float(event.get("t_s", 0.0)) + self.after_s


class ChipTimeServer:
    """Serve the driven virtual Pico ``pico`` on a Unix socket at ``path`` until :meth:`stop`.

    Give :meth:`world_event` every event the world logs (the emulator's log listener): holds count them.
    """

    def __init__(self, pico: Any, path: str, *, detach_s: float = DETACH_S) -> None:
        if not pico.driven:
            raise ValueError("a chip-time server needs a driven virtual Pico")
        self.pico = pico
        self.path = Path(path)
        self.detach_s = detach_s
        self._stopping = False
        self._power_cycle = False
        self._hosts = 0  # hosts served so far
        self._host: _Connection | None = None
        self._held: Event | None = None  # the host's request being held back (answered at release)
        self._hold: _Hold | None = None
        self._selector = selectors.DefaultSelector()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(str(self.path))
        self._listener.listen(4)
        self._selector.register(self._listener, selectors.EVENT_READ)

    @property
    def url(self) -> str:
        """The port URL a host opens."""
        return f"vpico://?attach={self.path}"

    def world_event(self, event: Event) -> None:
        """Called with each event the world logs (``on_event``): a hold counts them."""
        if self._hold is not None:
            self._hold.saw(event)

    def stop(self) -> None:
        """Ask :meth:`serve` to return (safe from a signal handler)."""
        self._stopping = True

    def request_power_cycle(self) -> None:
        """Switch the board off and on before the next request (safe from a signal handler)."""
        self._power_cycle = True

    def serve(self) -> None:
        """Answer hosts and control clients until :meth:`stop`; the socket file is removed however it ends."""
        try:
            while not self._stopping:
                for key, _mask in self._selector.select(timeout=0.1):
                    if key.fileobj is self._listener:
                        self._accept()
                    else:
                        self._serve_connection(key.data)
                if self._power_cycle:
                    self._power_cycle = False
                    self.pico.power_cycle()
        finally:
            self.close()

    def close(self) -> None:
        """Close every connection and remove the socket file."""
        for key in list(self._selector.get_map().values()):
            with contextlib.suppress(OSError):
                key.fileobj.close()  # type: ignore[union-attr]
        self._selector.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    # --- internals ---------------------------------------------------------------------------------------
    def _accept(self) -> None:
        sock, _ = self._listener.accept()
        self._selector.register(sock, selectors.EVENT_READ, _Connection(sock))

    def _drop(self, conn: _Connection) -> None:
        self._selector.unregister(conn.sock)
        with contextlib.suppress(OSError):
            conn.sock.close()
        if conn is self._host:
            self._host = None
            self._held = None
            self._hold = None
            # The host is gone: the board sees its silence (its watchdog), then stands still for the next host.
            self._run_to(self.pico.time_s + self.detach_s, stop_on_output=False)
            self.pico.read_available()  # nobody reads what the board said meanwhile

    def _serve_connection(self, conn: _Connection) -> None:
        try:
            requests = conn.lines()
        except (EOFError, OSError, ValueError):
            self._drop(conn)
            return
        for request in requests:
            try:
                self._answer(conn, request)
            except OSError:
                self._drop(conn)
                return

    def _answer(self, conn: _Connection, request: Event) -> None:
        op = request.get("op")
        if op == "hello":
            role = request.get("role")
            if role == "host" and self._host is not None:
                conn.send({"error": "the virtual Pico is in use by another host"})
                return
            conn.role = str(role)
            answer = self._answer_fields()
            if role == "host":
                self._host = conn
                self._hosts += 1
                # each host draws its own random numbers (its link's first seq and token), repeatably
                answer["seed"] = None if self.pico.seed is None else self.pico.seed * 1000 + self._hosts
            conn.send(answer)
        elif conn.role == "host":
            self._answer_host(conn, request)
        elif conn.role == "control":
            self._answer_control(conn, request)
        else:
            conn.send({"error": f"say hello first, not {op!r}"})

    def _answer_fields(self) -> Event:
        return {"t_s": self.pico.time_s, "hex": self.pico.read_available().hex()}

    def _answer_host(self, conn: _Connection, request: Event) -> None:
        op = request.get("op")
        if op == "write":
            self.pico.write(bytes.fromhex(request["hex"]))
        elif op == "run":
            held = self._run_to(float(request["until_s"]), stop_on_output=bool(request.get("stop_on_output")))
            if held:
                self._held = request
                return  # answered at release
        elif op != "read":
            conn.send({"error": f"unknown request {op!r}"})
            return
        conn.send(self._answer_fields())

    def _answer_control(self, conn: _Connection, request: Event) -> None:
        op = request.get("op")
        if op == "hold":
            self._hold = _Hold(str(request["event"]), int(request["count"]), float(request.get("after_s", 0.0)))
            conn.send({"ok": True})
        elif op == "state":
            world = self.pico.world
            conn.send(
                {
                    "held": self._held is not None,
                    "host": self._host is not None,
                    "t_s": self.pico.time_s,
                    "disk_in_gripper": None if world is None else world.held_disk,
                }
            )
        elif op == "release":
            self._hold = None
            held, self._held = self._held, None
            if held is not None and self._host is not None:
                host = self._host
                self._run_to(float(held["until_s"]), stop_on_output=bool(held.get("stop_on_output")))
                with contextlib.suppress(OSError):
                    host.send(self._answer_fields())
            conn.send({"ok": True})
        else:
            conn.send({"error": f"unknown control request {op!r}"})

    def _run_to(self, t_s: float, *, stop_on_output: bool) -> bool:
        """Run the chip to ``t_s`` (or to its output); True if a hold stopped it first (it then stands still).

        While a hold waits for its events the chip runs 10 ms at a time, so it stops where the hold says on
        every run (a run cut in two runs exactly as it would in one)."""
        pico = self.pico
        while pico.time_s < t_s and not (stop_on_output and pico.has_output):
            hold = self._hold
            if hold is None:
                pico.run_until(t_s, stop_on_output=stop_on_output)
                break
            if hold.at_s is not None and pico.time_s >= hold.at_s:
                return True
            end_s = min(t_s, pico.time_s + 0.01 if hold.at_s is None else hold.at_s)
            pico.run_until(end_s, stop_on_output=stop_on_output)
        return False


class RemotePico:
    """The host's end of a :class:`ChipTimeServer`: what the ``vpico://?attach=PATH`` port drives, with the face
    of a driven :class:`~hanoibot.sim.vpico.process.VirtualPico` (:meth:`run_until`, :attr:`time_s`, the output
    read so far)."""

    driven = True
    world = None

    def __init__(self, path: str, *, connect_s: float = 5.0) -> None:
        self.path = path
        self.time_s = 0.0
        #: The seed this host's random numbers come from (the server's seed and how many hosts came before), or None.
        self.seed: int | None = None
        self.clock = ChipClock(self)
        self._rx = bytearray()
        self._buffer = b""
        self._lock = threading.Lock()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(connect_s)
        try:
            sock.connect(path)
        except OSError as err:
            sock.close()
            raise PortError(
                f"no virtual Pico answers at {path!r} ({err.strerror or err}): start one with "
                f"hanoibot emulate --pico --chip-time --link {path}"
            ) from err
        sock.settimeout(ANSWER_WAIT_S)
        self._sock: socket.socket | None = sock
        answer = self._ask({"op": "hello", "role": "host"})
        if "error" in answer:
            self.close()
            raise PortError(f"the virtual Pico at {path!r} is in use by another host")
        self.seed = answer.get("seed")

    @property
    def is_running(self) -> bool:
        """True while connected."""
        return self._sock is not None

    @property
    def in_flight(self) -> int:
        """Bytes written that the board has not taken (not known here: 0)."""
        return 0

    def write(self, data: bytes, *, timeout_s: float | None = None) -> int:
        """Send ``data`` to the board's USB input at the chip's current time."""
        self._ask({"op": "write", "hex": bytes(data).hex()})
        return len(data)

    def run_until(self, t_s: float, *, stop_on_output: bool = False) -> None:
        """Run the chip until ``t_s`` (s), or its output with ``stop_on_output``."""
        self._ask({"op": "run", "until_s": t_s, "stop_on_output": stop_on_output})

    def read_available(self) -> bytes:
        """What the board sent since the last call."""
        data = bytes(self._rx)
        self._rx.clear()
        return data

    def wait_readable(self, timeout_s: float) -> bool:
        """Run the chip until output is there or ``timeout_s`` s of its time passed; True if there is output."""
        if not self._rx:
            self.run_until(self.time_s + max(timeout_s, 0.0), stop_on_output=True)
        return bool(self._rx)

    def close(self) -> None:
        """Hang up (the board runs on its own a moment, then stands still for the next host)."""
        sock, self._sock = self._sock, None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.close()

    def _ask(self, request: Event) -> Event:
        """Send one request and return its answer (the board's output in it is kept for :meth:`read_available`)."""
        with self._lock:
            sock = self._sock
            if sock is None:
                raise PortError(f"the virtual Pico at {self.path!r} is not connected")
            try:
                sock.sendall((json.dumps(request) + "\n").encode())
                while b"\n" not in self._buffer:
                    data = sock.recv(65536)
                    if not data:
                        raise PortError(f"the virtual Pico at {self.path!r} has gone")
                    self._buffer += data
            except OSError as err:
                self.close()
                raise PortError(f"the virtual Pico at {self.path!r} has gone: {err}") from err
            line, self._buffer = self._buffer.split(b"\n", 1)
        answer: Event = json.loads(line)
        if "t_s" in answer:
            self.time_s = float(answer["t_s"])
            self._rx += bytes.fromhex(answer["hex"])
        return answer


class ChipTimeControl:
    """A test's second connection to a :class:`ChipTimeServer`: hold the host at a moment of chip time, see it
    held, let it go on; a context manager."""

    def __init__(self, path: str) -> None:
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(CONTROL_WAIT_S)
        self._sock.connect(path)
        self._file = self._sock.makefile("rwb")
        self._ask({"op": "hello", "role": "control"})

    def __enter__(self) -> ChipTimeControl:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def hold(self, event: str, count: int = 1, after_s: float = 0.0) -> None:
        """Hold the host once the world has logged ``count`` more ``event`` events and ``after_s`` s of chip time
        passed after the last of them."""
        self._ask({"op": "hold", "event": event, "count": count, "after_s": after_s})

    def wait_held(self, timeout_s: float, *, alive: Callable[[], bool] = lambda: True) -> None:
        """Wait (wall time, at most ``timeout_s``) until the host is held; AssertionError if ``alive()`` turns false
        first (the host ended) or the time runs out."""
        deadline_s = time.monotonic() + timeout_s
        while not self._ask({"op": "state"})["held"]:
            if not alive():
                raise AssertionError("the host ended before it was held")
            if time.monotonic() > deadline_s:
                raise AssertionError(f"the host was not held within {timeout_s:g} s")
            time.sleep(0.02)

    def disk_in_gripper(self) -> int | None:
        """The disk the world's gripper holds now (None: none, or no world)."""
        disk = self._ask({"op": "state"})["disk_in_gripper"]
        return None if disk is None else int(disk)

    def release(self) -> None:
        """Let a held host go on (and forget the hold)."""
        self._ask({"op": "release"})

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._file.close()
            self._sock.close()

    def _ask(self, request: Event) -> Event:
        self._file.write((json.dumps(request) + "\n").encode())
        self._file.flush()
        line = self._file.readline()
        if not line:
            raise PortError("the chip-time server has gone")
        answer: Event = json.loads(line)
        if "error" in answer:
            raise PortError(str(answer["error"]))
        return answer
