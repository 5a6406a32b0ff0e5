"""The virtual Pico's event log carries the virtual arm's picks, places, drops and faults, as ``emulate`` does."""

from __future__ import annotations

from typing import Any

import pytest
from hanoibot.sim.factory import world_from_options
from hanoibot.sim.vpico.process import VirtualPico


def test_world_events_reach_the_log_marked_as_the_worlds() -> None:
    world: Any = world_from_options({"board": "AA"})
    logged: list[dict[str, Any]] = []
    VirtualPico(world=world, on_event=logged.append)  # not started: only the wiring is under test
    assert world.on_event is not None
    world.on_event({"t_s": 1.25, "event": "pick", "disk": 1, "peg": "A"})
    assert logged == [{"t_s": 1.25, "source": "world", "event": "pick", "disk": 1, "peg": "A"}]


def test_a_tick_hands_the_servos_each_pulse_from_its_slices_wrap() -> None:
    world: Any = world_from_options({"board": "AA"})
    pico = VirtualPico(world=world)  # not started: the tick handling only
    sent: list[dict[str, Any]] = []
    pico._send = sent.append  # type: ignore[method-assign]
    start = [round(p) for p in world.config.start_pulses_us()]
    pico._on_event({"ev": "tick", "t_us": 10_000, "pulses_us": start, "latched_us": [10_000] * 5})
    moved = [start[0] + 100, *start[1:]]
    pico._on_event({"ev": "tick", "t_us": 20_000, "pulses_us": moved, "latched_us": [11_000, *[10_000] * 4]})
    assert pico.servos.history[-1] == (0.011, 0, moved[0])  # taken at the wrap, 9 ms before the tick saw it
    assert sent[-1] == {"op": "tock", "t_us": 20_000}  # the chip waits for the answer to this tick before it runs on


def test_a_tick_is_answered_even_when_the_world_fails_on_it() -> None:
    world: Any = world_from_options({"board": "AA"})
    pico = VirtualPico(world=world)  # not started: the tick handling only
    sent: list[dict[str, Any]] = []
    pico._send = sent.append  # type: ignore[method-assign]

    def broken_tick(t_s: float, horns: list[int | None]) -> None:
        raise RuntimeError("world failed")

    world.on_tick = broken_tick
    start = [round(p) for p in world.config.start_pulses_us()]
    with pytest.raises(RuntimeError):
        pico._on_event({"ev": "tick", "t_us": 10_000, "pulses_us": start, "latched_us": [10_000] * 5})
    assert sent == [{"op": "tock", "t_us": 10_000}]  # else the chip would stall 2 s of wall time on every tick


def test_a_tick_the_world_answered_late_is_counted_and_logged() -> None:
    logged: list[dict[str, Any]] = []
    pico = VirtualPico(world=world_from_options({"board": "AA"}), on_event=logged.append)
    pico._on_event({"ev": "tock_late", "t_us": 30_000})
    assert pico.late_tocks == 1
    assert logged[-1]["event"] == "tock_late" and logged[-1]["t_us"] == 30_000
