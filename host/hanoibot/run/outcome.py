"""How a run stands once it stopped streaming, in words: the one vocabulary of outcomes.

Every place that names how a run ended uses :class:`Outcome`: the journal's ``end`` record and the report's
``status`` (:attr:`Outcome.value`), ``hanoibot runs``' column (:attr:`Outcome.word`) and the sentences the command
line and the console show (:attr:`Outcome.how`).
"""

from __future__ import annotations

from enum import Enum

from .sequencer import Phase, RunState


class Outcome(Enum):
    """How a run stands after it stopped: the value is the word the journal and the report record."""

    DONE = "done"
    PAUSED = "paused"
    FAULT = "fault"
    ESTOPPED = "estopped"
    STOPPED = "stopped"

    @classmethod
    def of(cls, phase: RunState) -> Outcome | None:
        """The outcome of a run the sequencer left in ``phase`` (None while it still streams or connects)."""
        return _OF_PHASE.get(phase)

    @property
    def word(self) -> str:
        """One word for a list of runs (``e-stopped``)."""
        return _WORDS[self][0]

    @property
    def how(self) -> str:
        """How the run ended, for a sentence (``stopped by a fault``, ``stopped by the operator``)."""
        return _WORDS[self][1]

    @property
    def is_over(self) -> bool:
        """True unless the run waits paused for the operator."""
        return self is not Outcome.PAUSED


_OF_PHASE: dict[RunState, Outcome] = {
    Phase.DONE: Outcome.DONE,
    Phase.PAUSED: Outcome.PAUSED,
    Phase.FAULT: Outcome.FAULT,
    Phase.ESTOPPED: Outcome.ESTOPPED,
    Phase.DISCONNECTED: Outcome.STOPPED,
}

#: (word, how) per outcome.
_WORDS: dict[Outcome, tuple[str, str]] = {
    Outcome.DONE: ("done", "done"),
    Outcome.PAUSED: ("paused", "paused"),
    Outcome.FAULT: ("fault", "stopped by a fault"),
    Outcome.ESTOPPED: ("e-stopped", "e-stopped"),
    Outcome.STOPPED: ("stopped", "stopped by the operator"),
}

#: The word for a journaled run that recorded no end (the host was killed, or the run still goes on).
UNFINISHED_WORD = "unfinished"


def word_of_status(status: str | None) -> str:
    """The word for a journal's ``end`` status (None: :data:`UNFINISHED_WORD`; an unknown one as recorded)."""
    if status is None:
        return UNFINISHED_WORD
    try:
        return Outcome(status).word
    except ValueError:
        return status
