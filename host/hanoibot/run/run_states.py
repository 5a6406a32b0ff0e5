"""The sequencer's states and its transition table: the whole behaviour of :class:`~hanoibot.run.sequencer.Sequencer`,
read top to bottom, and the state diagram drawn from it (docs/sequencer.md).

A state is a :data:`RunState`: a :class:`Phase` (bring-up, pause, stops) or, while a run streams, the
:class:`~hanoibot.motion.phases.MotionPhase` of the segment the arm is executing now. The callbacks and conditions
the table names are the sequencer's methods.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from ..motion.phases import MotionPhase


class Phase(Enum):
    """The sequencer's states around the pick-and-place phases (those are :class:`MotionPhase` members)."""

    DISCONNECTED = "disconnected"
    CONNECTING = "connecting"
    HOMING = "homing"
    READY = "ready"
    PAUSED = "paused"
    ESTOPPED = "estopped"
    FAULT = "fault"
    DONE = "done"


#: A state of the sequencer: bring-up and stops are a :class:`Phase`; while a move streams, its :class:`MotionPhase`.
RunState = Phase | MotionPhase
#: Every state, in the order the diagram lists them.
STATES: tuple[RunState, ...] = (
    Phase.DISCONNECTED,
    Phase.CONNECTING,
    Phase.HOMING,
    Phase.READY,
    *MotionPhase,
    Phase.PAUSED,
    Phase.ESTOPPED,
    Phase.FAULT,
    Phase.DONE,
)
#: The pick-and-place phases of one move, in the order the arm runs them.
MOTION = tuple(MotionPhase)
#: States in which the arm may be moving (a pause or an e-stop makes sense there).
ACTIVE: tuple[RunState, ...] = (Phase.HOMING, Phase.READY, *MOTION)
#: States in which a run has stopped.
STOPPED = (Phase.PAUSED, Phase.ESTOPPED, Phase.FAULT, Phase.DONE, Phase.DISCONNECTED)
#: States from which an error leads to ``fault``.
FAULT_SOURCES: tuple[RunState, ...] = (Phase.CONNECTING, *ACTIVE, Phase.PAUSED)

P, M = Phase, MotionPhase
TRANSITIONS: list[dict[str, Any]] = [
    # bring-up
    {"trigger": "open_link", "source": P.DISCONNECTED, "dest": P.CONNECTING},
    {"trigger": "connected", "source": P.CONNECTING, "dest": P.HOMING},
    {"trigger": "homed", "source": P.HOMING, "dest": P.READY},
    # one move: each trigger (named after its phase) fires when the segment before it is DONE and the arm starts it
    {"trigger": "approach", "source": [P.READY, M.RETREAT, M.LIFT], "dest": M.APPROACH},  # from LIFT: a retry
    {"trigger": "descend", "source": M.APPROACH, "dest": M.DESCEND},
    {"trigger": "grip", "source": M.DESCEND, "dest": M.GRIP},
    {"trigger": "lift", "source": M.GRIP, "dest": M.LIFT},
    {"trigger": "pick_missed", "source": M.GRIP, "dest": M.LIFT, "conditions": "is_retry_left"},
    {
        "trigger": "pick_missed",
        "source": M.GRIP,
        "dest": P.FAULT,
        "before": "_keep_missed_pick_reason",
        "after": "_hold_quietly",
    },
    {"trigger": "travel", "source": M.LIFT, "dest": M.TRAVEL},
    {"trigger": "lower", "source": M.TRAVEL, "dest": M.LOWER},
    {"trigger": "release", "source": M.LOWER, "dest": M.RELEASE},
    {"trigger": "retreat", "source": M.RELEASE, "dest": M.RETREAT},
    *(  # a move the journal shows half done, after a host crash, resumes at the phase it had reached
        {"trigger": phase.value, "source": P.READY, "dest": phase, "conditions": "is_resuming_mid_move"}
        for phase in MOTION[1:]
    ),
    {"trigger": "finish", "source": [P.READY, M.RETREAT], "dest": P.DONE, "conditions": "is_plan_finished"},
    # the operator
    {"trigger": "pause", "source": list(ACTIVE), "dest": P.PAUSED, "before": "_remember_phase", "after": "_hold"},
    *(
        {
            "trigger": "unpause",
            "source": P.PAUSED,
            "dest": phase,
            "conditions": "is_back_to_paused_phase",
            "after": "_resume",
        }
        for phase in ACTIVE
    ),
    {"trigger": "stop", "source": P.PAUSED, "dest": P.DISCONNECTED},
    {
        "trigger": "estop",
        "source": [P.CONNECTING, *ACTIVE, P.PAUSED, P.FAULT],
        "dest": P.ESTOPPED,
        "before": "_send_estop",
    },
    # anything that went wrong
    {
        "trigger": "fault",
        "source": list(FAULT_SOURCES),
        "dest": P.FAULT,
        "before": "_keep_reason",
        "after": "_hold_quietly",
    },
]


def mermaid_diagram() -> str:
    """The state diagram of :data:`TRANSITIONS` as mermaid text (for docs/sequencer.md)."""
    from transitions.extensions.diagrams import GraphMachine

    class _Model:
        pass

    model = _Model()
    GraphMachine(
        model=model,
        states=list(STATES),
        transitions=TRANSITIONS,
        initial=Phase.DISCONNECTED,
        auto_transitions=False,
        graph_engine="mermaid",
        show_conditions=True,
        title="hanoibot sequencer",
    )
    return str(model.get_graph().draw(None))  # type: ignore[attr-defined]


def diagram_markdown() -> str:
    """The whole of docs/sequencer.md: a short explanation and the generated diagram."""
    return (
        "# Sequencer state machine\n\n"
        "Generated from `TRANSITIONS` in `host/hanoibot/run/run_states.py` by `python -m hanoibot.run.run_states > "
        "docs/sequencer.md`;\na test fails when this file is stale. While a run streams, the state is the phase of "
        "the segment the arm\nis executing; the next phase is entered when the board reports the current segment "
        "DONE. `pick_missed`\nretries a pick while `is_retry_left`, then goes to FAULT naming the disk and peg.\n\n"
        f"```mermaid\n{mermaid_diagram().strip()}\n```\n"
    )


if __name__ == "__main__":
    print(diagram_markdown(), end="")
