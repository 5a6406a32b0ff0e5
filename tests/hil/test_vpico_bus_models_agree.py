"""The virtual Pico's bus model (hanoibot/sim/vpico/feetech_bus.mjs, in the harness, answering on chip time) and the
Python one (hanoibot/sim/bus.py, sim://?servo=sts, the reference) put the same bytes on the line at the same
instants for the same frames: the echo of every byte sent, the answers to PING, READ and WRITE after each servo's
Return Delay Time (a write of it changing the next answer's delay), none to a SYNC WRITE or a broadcast, none from an
id nobody has or a silent servo, nothing for a frame with a bad checksum, a frame found after line noise, a write
that waits for the line while an answer is on it. Between two ticks the JS model holds the registers the world sent
it and changes those a write changes as the Python servos do (a READ of Torque Enable and Goal Position right after
their SYNC WRITE reads what was written); at each tick it takes the Python servos' registers (:class:`PicoBus`)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hanoibot.sim.bus import SimServoBus
from hanoibot.sim.vpico.tools import find_node
from hanoifw import feetech as f

pytestmark = [pytest.mark.vpico, pytest.mark.vpico_cover]

MODEL = Path(__file__).resolve().parents[2] / "host" / "hanoibot" / "sim" / "vpico" / "feetech_bus.mjs"
IDS = (1, 2, 3)
SILENT = 2

#: Feeds the JS model the steps on stdin (one JSON list), prints every byte it put on the line toward the chip.
DRIVER = """
import { FeetechBus } from %s;
let text = '';
process.stdin.on('data', (chunk) => { text += chunk; });
process.stdin.on('end', () => {
  const { ids, silent, corrupt, steps } = JSON.parse(text);
  const bus = new FeetechBus({ ids, silent, corrupt });
  for (const step of steps) {
    if (step.regs) {
      for (const [id, hex] of Object.entries(step.regs)) bus.setRegisters(Number(id), Buffer.from(hex, 'hex'));
    } else {
      for (const byte of Buffer.from(step.hex, 'hex')) bus.write(byte, step.t_ns);
    }
  }
  process.stdout.write(JSON.stringify({ rx: bus.rx, frames: bus.takeFrames().length }));
});
"""


def frame(servo_id: int, instruction: int, params: bytes) -> bytes:
    buf = bytearray(len(params) + 6)
    at = f.begin(buf, servo_id, instruction, len(params))
    buf[at : at + len(params)] = params
    return bytes(buf[: f.seal(buf)])


def sync_goals(goals: dict[int, int]) -> bytes:
    """The firmware's SYNC WRITE of goal position, time and speed (hanoifw.busservos)."""
    rows = []
    for servo_id, steps in goals.items():
        row = bytearray(6)
        f.put_u16(row, 0, f.to_sign_magnitude(steps, 15))
        f.put_u16(row, 4, 1200)
        rows.append((servo_id, row))
    buf = bytearray(7 + 7 * len(rows) + 1)
    return bytes(buf[: f.encode_sync_write(buf, f.GOAL_POSITION, 6, rows)])


def read(servo_id: int, address: int, length: int) -> bytes:
    return frame(servo_id, f.READ, bytes((address, length)))


#: (s of line time, the frame or bytes the chip sends, whether the world's registers are sent to the JS model first:
#: a tick came between). Each frame comes well after the line is free, unless the step says otherwise.
STEPS: list[tuple[float, bytes, bool]] = [
    (0.000, frame(1, f.PING, b""), True),
    (0.002, read(2, f.FEEDBACK_ADDRESS, f.FEEDBACK_BYTES), True),  # silent: no answer
    (0.004, read(3, f.FEEDBACK_ADDRESS, f.FEEDBACK_BYTES), True),
    (0.006, frame(f.BROADCAST_ID, f.SYNC_WRITE, bytes((f.TORQUE_ENABLE, 1, 1, 1, 2, 1, 3, 1))), True),
    (0.008, sync_goals({1: 1000, 2: 3000, 3: 2100}), False),
    (0.010, read(1, f.TORQUE_ENABLE, 8), False),  # what the SYNC WRITEs wrote, read back before the next tick
    (0.012, read(3, f.FEEDBACK_ADDRESS, f.FEEDBACK_BYTES), True),  # the world moved it: the tick's registers
    (0.014, frame(3, f.WRITE, bytes((f.RETURN_DELAY_TIME, 0))), False),  # acknowledged after the old delay
    (0.016, read(3, f.PRESENT_POSITION, 2), False),  # answered at once now
    (0.018, frame(2, f.WRITE, bytes((f.GOAL_SPEED, 0x10, 0x80))), False),  # silent: acts, no acknowledgement
    (0.020, read(1, 80, 15), True),  # past the memory table: zeros
    (0.022, frame(9, f.PING, b""), True),  # nobody has id 9
    (0.024, bytes((0x00, 0xFF, 0x12, 0xFF, 0xFF, 0xFF))[:3] + read(1, f.PRESENT_POSITION, 4), True),  # noise first
    (0.026, read(1, f.PRESENT_POSITION, 2)[:-1] + b"\x00", True),  # bad checksum: ignored
    (0.028, read(1, f.PRESENT_POSITION, 2), True),
    (0.0281, read(3, f.PRESENT_POSITION, 2), True),  # sent while the answer to the one before is on the line
    (0.030, frame(f.BROADCAST_ID, f.WRITE, bytes((f.TORQUE_ENABLE, 0))), True),  # everybody limp, nobody answers
    (0.032, read(1, f.TORQUE_ENABLE, 1), True),
]


def python_line() -> tuple[list[tuple[int, int]], list[dict[str, str]]]:
    """What the Python model put on the line for :data:`STEPS` (ns, byte), and the registers it held at each step
    (those a tick would have sent)."""
    now = [0.0]
    bus = SimServoBus(IDS, now_s=lambda: now[0], start_us=[1500.0, 1700.0, 1200.0])
    bus.servo(SILENT).silent = True  # type: ignore[union-attr]
    registers = []
    for t_s, data, _tick in STEPS:
        now[0] = t_s
        bus.settle(t_s)
        registers.append({str(s.servo_id): bytes(s.registers()).hex() for s in bus.servos})
        bus.write(data, t_s)
    return [(round(at_s * 1e9), byte) for at_s, byte in bus._rx], registers


def js_line(registers: list[dict[str, str]], tmp_path: Path, corrupt: float = 0.0) -> dict[str, Any]:
    """What the JS model put on the line for :data:`STEPS`, given the world's registers at each tick (``corrupt``:
    the probability that an answer has a flipped bit)."""
    steps: list[dict[str, Any]] = []
    for (t_s, data, tick), regs in zip(STEPS, registers, strict=True):
        if tick or not steps:
            steps.append({"regs": regs})
        steps.append({"t_ns": round(t_s * 1e9), "hex": data.hex()})
    driver = tmp_path / "driver.mjs"
    driver.write_text(DRIVER % json.dumps(MODEL.as_uri()), encoding="utf-8")
    message = json.dumps({"ids": list(IDS), "silent": [SILENT], "corrupt": corrupt, "steps": steps})
    done = subprocess.run([find_node(), str(driver)], input=message, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_the_harness_bus_model_answers_every_frame_as_the_python_model_does(tmp_path: Path) -> None:
    expected, registers = python_line()
    got = js_line(registers, tmp_path)
    line = [(round(at_ns), byte) for at_ns, byte in got["rx"]]
    assert len(line) == len(expected) and line == expected
    answers = bytes(byte for _t, byte in expected)
    assert answers.count(bytes((0xFF, 0xFF, 1, 2, 0))) == 1, "PING 1 answered once"
    assert bytes((0xFF, 0xFF, SILENT, 2 + f.FEEDBACK_BYTES, 0)) not in answers, "the silent servo never answers"
    assert got["frames"] == len(STEPS) - 1, "every frame but the one with a bad checksum reached the servos"


def test_a_corrupted_answer_has_one_bit_flipped_after_its_header(tmp_path: Path) -> None:
    expected, registers = python_line()
    got = [(round(at_ns), byte) for at_ns, byte in js_line(registers, tmp_path, corrupt=0.999999)["rx"]]
    assert [t for t, _b in got] == [t for t, _b in expected], "the same bytes at the same instants"
    flipped = [(t, a ^ b) for (t, a), (_t, b) in zip(got, expected, strict=True) if a != b]
    answers = bytes(b for _t, b in expected).count(b"\xff\xff") - sum(1 for s in STEPS if s[1].count(b"\xff\xff"))
    assert len(flipped) == answers > 0, "every answer has one byte changed (the echoes none)"
    assert all(bin(bits).count("1") == 1 for _t, bits in flipped), "by one bit"
