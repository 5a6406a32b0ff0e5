"""The firmware under real MicroPython: runs tests/micropython/run.mjs in Node (the MicroPython WebAssembly port).

One Node run executes every firmware test module (tests/firmware/) under MicroPython and plays a host-codec <->
firmware exchange: frames made here by the host codec (CPython) are fed to the Controller under MicroPython, and
its replies are decoded here. Skipped only when Node is missing outside CI; under CI (CI set) it fails instead.
"""

import binascii
import os
import random
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from hanoifw import protocol as p
from hanoifw.rxframe import FrameReader

ROOT = Path(__file__).resolve().parents[2]
RUNNER = ROOT / "tests" / "micropython" / "run.mjs"
FIRMWARE_TESTS = ROOT / "tests" / "firmware"
NODE_TIMEOUT_S = 180
PERIOD_MS = 10
LIMITS = [1000, 2000, 1500, 60000] * 5 + [0]  # per channel min, max, start, speed; grip threshold


@dataclass
class NodeRun:
    """What one run of run.mjs produced; exchanges by name: (input script, replies of the MicroPython board)."""

    returncode: int
    output: str
    exchanges: dict[str, tuple[bytes, bytes]]


def build_exchange() -> list[tuple[int, bytes]]:
    """A scripted session as (t_ms, bytes fed before the step at t_ms), made with the host codec."""
    script: list[tuple[int, bytes]] = []
    now_ms = 0

    def at(data: bytes = b"", dt_ms: int = PERIOD_MS) -> None:
        nonlocal now_ms
        now_ms += dt_ms
        script.append((now_ms, data))

    at()
    at(p.encode(p.SYNC, 100, 0, ["hostA"]))
    at(p.encode(p.CONFIG, 101, 0, LIMITS))
    move1 = p.encode(p.MOVE, 102, 0, [1, 50] + [1600] * 5)
    at(move1 + move1)  # a duplicate must not run twice
    corrupted = bytearray(p.encode(p.MOVE, 103, 0, [2, 50] + [1999] * 5))
    corrupted[12] ^= 0x04
    at(bytes(corrupted))  # dropped: bad CRC
    at(p.encode(p.MOVE, 103, 0, [2, 50] + [1700] * 5))
    at(p.encode(p.MOVE, 104, 0, [3, 50, 1500, 1500, 2001, 1500, 1500]))  # out of limits: ERROR LIMIT
    for _ in range(15):
        at(p.encode(p.PING, 0, 0, ["hb"]))
    at(p.encode(p.STATUS, 0, 0))
    at(p.encode(p.ESTOP, 7, 0))
    at(b"\x00garbage\n" + p.encode(p.CLEAR, 105, 0))
    at(p.encode(p.MOVE, 106, 0, [4, 30] + [1800] * 5))
    for _ in range(6):
        at(p.encode(p.PING, 0, 0, ["hb"]))
    at(p.encode(p.STATUS, 0, 0))
    return script


def build_random_exchange(seed: int, steps: int = 3000) -> list[tuple[int, bytes]]:
    """A long, hostile session: moves (some out of limits), heartbeats, lost, repeated and corrupted frames,
    garbage, e-stops, holds and clears, at random. The host does not read the board's replies; it resends its
    last 8 reliable frames every 10 steps (a blind go-back-N), so lost and refused frames get through later. This
    is for comparing MicroPython with CPython, and for the invariants every reply must keep."""
    rng = random.Random(seed)
    script: list[tuple[int, bytes]] = []
    log: list[bytes] = []  # every reliable frame, in seq order
    recent: list[bytes] = []  # what went over the wire, to repeat or corrupt
    cmd_id = 0

    def reliable(kind: str, fields: Sequence[str | int]) -> bytes:
        log.append(p.encode(kind, len(log) + 1, 0, fields))
        return b"" if rng.random() < 0.05 else log[-1]  # 5 % are lost on the way

    script.append((PERIOD_MS, p.encode(p.SYNC, 0, 0, ["rnd"])))
    script.append((2 * PERIOD_MS, reliable(p.CONFIG, LIMITS)))
    for step in range(3, steps):
        roll = rng.random()
        data = b""
        if roll < 0.12:
            cmd_id += 1
            pulses = [rng.randint(990, 2010) if rng.random() < 0.005 else rng.randint(1000, 2000) for _ in range(5)]
            data = reliable(p.MOVE, [cmd_id, 2 * rng.randint(1, 120), *pulses])  # some too fast at their peak
        elif roll < 0.5:
            data = p.encode(p.PING, 0, 0, ["hb"])
        elif roll < 0.55:
            data = p.encode(p.STATUS, 0, 0)
        elif roll < 0.62 and recent:
            data = rng.choice(recent)  # a duplicate
        elif roll < 0.72 and recent:
            broken = bytearray(rng.choice(recent))
            broken[rng.randrange(len(broken) - 1)] ^= 1 << rng.randrange(8)
            data = bytes(broken)
        elif roll < 0.74:
            data = bytes(rng.randrange(256) for _ in range(rng.randint(1, 40)))
        elif roll < 0.745:
            data = p.encode(p.ESTOP, 0, 0)
        elif roll < 0.78:
            data = reliable(rng.choice([p.CLEAR, p.HOLD, p.RESUME, p.RESUME]), [])
        if step % 10 == 0:
            data += b"".join(log[-8:])
        if data:
            recent = [*recent[-20:], data]
        script.append((step * PERIOD_MS, data))
    return script


def encode_script(script: list[tuple[int, bytes]]) -> bytes:
    return "".join(f"{t_ms} {binascii.hexlify(data).decode()}\n" for t_ms, data in script).encode()


def decode_replies(text: bytes) -> tuple[list[tuple[str, int, int, list[str]]], FrameReader]:
    reader = FrameReader()
    frames = []
    for line in text.decode().splitlines():
        _t_ms, _, hexdata = line.partition(" ")
        frames.extend(reader.feed(binascii.unhexlify(hexdata)))
    return frames, reader


@pytest.fixture(scope="module")
def node_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NodeRun]:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("node is not installed but CI is set: `make test` installs it (tools/ensure_node.sh)")
        pytest.skip("node is not installed (make test installs it)")
    if not (ROOT / "node_modules" / "@micropython" / "micropython-webassembly-pyscript").is_dir():
        pytest.fail("node_modules lacks the MicroPython WebAssembly port: run `make setup`")
    tmp = tmp_path_factory.mktemp("mpexchange")
    scripts = {"scripted": build_exchange(), "random": build_random_exchange(seed=4)}
    args: list[str] = []
    for name, script in scripts.items():
        (tmp / f"{name}.in").write_bytes(encode_script(script))
        args += ["--exchange", str(tmp / f"{name}.in"), str(tmp / f"{name}.out")]
    proc = subprocess.run(
        [node, str(RUNNER), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=NODE_TIMEOUT_S,
        check=False,
    )
    exchanges = {}
    for name in scripts:
        out_path = tmp / f"{name}.out"
        exchanges[name] = ((tmp / f"{name}.in").read_bytes(), out_path.read_bytes() if out_path.exists() else b"")
    yield NodeRun(proc.returncode, proc.stdout + proc.stderr, exchanges)


def test_every_firmware_test_passes_under_micropython(node_run: NodeRun) -> None:
    summary = re.search(r"MICROPYTHON SUMMARY passed=(\d+) failed=(\d+)", node_run.output)
    assert node_run.returncode == 0 and summary, node_run.output
    declared = sum(
        len(re.findall(r"^def test_", path.read_text(), flags=re.M)) for path in FIRMWARE_TESTS.glob("test_*.py")
    )
    passed, failed = int(summary.group(1)), int(summary.group(2))
    assert failed == 0, node_run.output
    assert passed >= declared, f"MicroPython ran {passed} tests, {declared} are declared:\n{node_run.output}"


def test_host_frames_drive_the_micropython_controller(node_run: NodeRun) -> None:
    _, replies = node_run.exchanges["scripted"]
    assert replies, node_run.output
    frames, reader = decode_replies(replies)
    assert (reader.bad_crc, reader.malformed, reader.oversized) == (0, 0, 0)
    hellos = [p.unpack(p.HELLO, f[3]) for f in frames if f[0] == p.HELLO]
    assert hellos[-1] is not None and hellos[-1]["boot_id"] == "e0e0e0e0" and hellos[-1]["reset_cause"] == "soft"
    assert [int(f[3][0]) for f in frames if f[0] == p.DONE] == [1, 2, 4]
    assert [(f[3][0], f[3][1]) for f in frames if f[0] == p.ERROR] == [(p.E_LIMIT, "3")]
    statuses = [p.unpack(p.STATUS, f[3]) for f in frames if f[0] == p.STATUS]
    assert [s["mode"] for s in statuses if s] == ["IDLE", "ESTOP", "IDLE"]
    assert statuses[-1] is not None and statuses[-1]["pulses_us"] == [1800] * 5
    assert frames[-1][2] == 106  # every reliable frame was acked, cumulatively
    board_seqs = [f[1] for f in frames]
    assert board_seqs == list(range(len(frames)))  # board frames are numbered without gaps


def test_a_hostile_session_keeps_every_invariant_on_micropython(node_run: NodeRun) -> None:
    _, replies = node_run.exchanges["random"]
    frames, reader = decode_replies(replies)
    assert len(frames) > 1000 and (reader.bad_crc, reader.malformed, reader.oversized) == (0, 0, 0)
    assert [f[1] for f in frames] == [i % p.SEQ_MOD for i in range(len(frames))]
    done = [int(f[3][0]) for f in frames if f[0] == p.DONE]
    assert len(done) > 50 and done == sorted(set(done))  # each command at most once, in order
    for frame in frames:
        if frame[0] == p.STATUS:
            status = p.unpack(p.STATUS, frame[3])
            assert status is not None and isinstance(status["pulses_us"], list)
            assert all(pulse == 0 or 1000 <= pulse <= 2000 for pulse in status["pulses_us"])
    assert p.E_INTERNAL not in {f[3][0] for f in frames if f[0] == p.ERROR}


@pytest.mark.parametrize("name", ["scripted", "random"])
def test_micropython_and_cpython_answer_byte_for_byte_alike(node_run: NodeRun, tmp_path: Path, name: str) -> None:
    sys.path.insert(0, str(ROOT / "tests" / "micropython"))
    try:
        import mp_runner
    finally:
        sys.path.pop(0)
    script, micropython_replies = node_run.exchanges[name]
    (tmp_path / "in.txt").write_bytes(script)
    mp_runner.exchange(str(tmp_path / "in.txt"), str(tmp_path / "out.txt"))
    assert micropython_replies and (tmp_path / "out.txt").read_bytes() == micropython_replies
