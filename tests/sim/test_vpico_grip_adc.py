"""The virtual Pico's grip ADC (sim/vpico/grip_adc.mjs) reads what the simulator's grip sensor model
(hanoibot/sim/sensors.py) reads at the same instants: one model on sim://, emulate and the virtual Pico."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from hanoibot.sim.sensors import GripSenseCircuit, GripSensor
from hanoibot.sim.vpico import sensors

MODEL = Path(__file__).resolve().parents[2] / "host" / "hanoibot" / "sim" / "vpico" / "grip_adc.mjs"

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is needed to run the JS model")

SCRIPT = """
import { GripAdc } from %(model)s;
const { model, steps } = JSON.parse(process.argv[1]);
const adc = new GripAdc(model);
const out = [];
for (const [t, driven, stalled] of steps) { adc.set(driven, stalled, t); out.push(adc.read(t)); }
console.log(JSON.stringify(out));
"""


def test_the_javascript_grip_adc_reads_like_the_python_model() -> None:
    # (time s, driven, stalled) every 0.7 ms: driven at rest, stalled on a disk, then the servo switched off
    steps = [(1.0 + i * 0.0007, i < 200, 60 <= i < 140) for i in range(220)]
    model = sensors.grip_model(frame_phase_s=0.0)
    model["noise_counts"] = 0.0
    script = SCRIPT % {"model": json.dumps(MODEL.as_uri())}
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script, json.dumps({"model": model, "steps": steps})],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    got = json.loads(done.stdout)
    state = {"driven": False, "stalled": False, "t": 1.0}  # as the harness starts: undriven
    sensor = GripSensor(lambda: bool(state["stalled"]), circuit=replace(GripSenseCircuit(), noise_counts=0.0))
    sensor.connect(now_s=lambda: float(state["t"]), is_driven=lambda: bool(state["driven"]), frame_phase_s=0.0)
    expected = []
    for t_s, driven, stalled in steps:
        sensor.pin_v()  # the filter runs up to t with the state before the change, as the harness does
        state.update(t=t_s)
        sensor.pin_v()
        state.update(driven=driven, stalled=stalled)
        expected.append(sensor.circuit.counts(sensor.pin_v()))
    assert max(abs(a - b) for a, b in zip(got, expected, strict=True)) <= 1, (got[:20], expected[:20])
    assert max(got[60:140]) > 3 * max(got[:60]), "the stall's bursts show"
    assert max(got[210:]) == 0, "an undriven servo: no current"
