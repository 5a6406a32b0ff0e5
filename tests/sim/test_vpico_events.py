"""The virtual Pico's event log carries the virtual arm's picks, places, drops and faults, as ``emulate`` does."""

from __future__ import annotations

from typing import Any

from hanoibot.sim.factory import world_from_options
from hanoibot.sim.vpico.process import VirtualPico


def test_world_events_reach_the_log_marked_as_the_worlds() -> None:
    world: Any = world_from_options({"board": "AA"})
    logged: list[dict[str, Any]] = []
    VirtualPico(world=world, on_event=logged.append)  # not started: only the wiring is under test
    assert world.on_event is not None
    world.on_event({"t_s": 1.25, "event": "pick", "disk": 1, "peg": "A"})
    assert logged == [{"t_s": 1.25, "source": "world", "event": "pick", "disk": 1, "peg": "A"}]
