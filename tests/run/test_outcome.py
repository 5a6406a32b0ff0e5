"""The one vocabulary of how a run ended: every stopping phase has an outcome, each outcome its words."""

from __future__ import annotations

from hanoibot.motion.phases import MotionPhase
from hanoibot.run.outcome import UNFINISHED_WORD, Outcome, word_of_status
from hanoibot.run.run_states import STOPPED, Phase
from hanoibot.run.runner import status_of


def test_every_phase_a_run_stops_in_has_an_outcome_and_a_streaming_one_none() -> None:
    assert {Outcome.of(phase) for phase in STOPPED} == set(Outcome)
    assert [Outcome.of(phase) for phase in (*MotionPhase, Phase.READY, Phase.HOMING)] == [None] * (len(MotionPhase) + 2)


def test_the_journal_and_the_report_record_the_outcome_by_its_value() -> None:
    assert status_of(Phase.DISCONNECTED) == "stopped" and status_of(Phase.ESTOPPED) == "estopped"
    assert status_of(MotionPhase.LIFT) == MotionPhase.LIFT.value  # a run cut short while streaming


def test_a_journal_end_reads_back_as_the_word_hanoibot_runs_lists() -> None:
    assert [word_of_status(o.value) for o in Outcome] == ["done", "paused", "fault", "e-stopped", "stopped"]
    assert word_of_status(None) == UNFINISHED_WORD and word_of_status("odd") == "odd"


def test_only_a_pause_leaves_the_run_waiting() -> None:
    assert [o for o in Outcome if not o.is_over] == [Outcome.PAUSED]
    assert Outcome.STOPPED.how == "stopped by the operator" and Outcome.FAULT.how == "stopped by a fault"
