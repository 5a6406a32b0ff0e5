"""The page's words and drawings of the robot, from what the operations return: pure functions, no link."""

from __future__ import annotations

from hanoibot.console.robot_view import ESTOP_RECOVERY, FAULT_ADVICE, board_json, estop_words, run_words
from hanoibot.ops.follow import Kind, Outcome, RunEvent
from hanoibot.ops.stop import EstopResult
from hanoibot.puzzle import Move, State


def test_a_carried_disk_is_drawn_in_the_gripper_not_on_its_peg() -> None:
    drawn = board_json(State.parse("AAA"), Move(1, 0, 2))
    assert drawn == {"board": [[3, 2], [], []], "board_text": "AAA", "held": 1}
    assert board_json(None, None) == {"board": [], "board_text": "", "held": None}


def event(kind: Kind, outcome: Outcome, reason: str = "") -> RunEvent:
    return RunEvent(kind, 3, 7, f"{outcome.how} after 3 of 7 moves", outcome=outcome, reason=reason)


def test_a_stopped_run_says_how_to_go_on_and_resume_only_with_a_journal() -> None:
    message, _ = run_words(event(Kind.STOPPED, Outcome.STOPPED), Kind.STOPPED, "", journaled=True)
    assert message.startswith("stopped after 3 of 7 moves: the arm holds its pose; Resume finishes the run")
    message, _ = run_words(event(Kind.STOPPED, Outcome.STOPPED), Kind.STOPPED, "", journaled=False)
    assert "Resume" not in message


def test_a_fault_gives_its_reason_then_the_advice() -> None:
    fault = event(Kind.FAULT, Outcome.FAULT, "missed disk 2 on peg A")
    assert run_words(fault, Kind.FAULT, "", journaled=True) == (
        "stopped by a fault after 3 of 7 moves",
        f"missed disk 2 on peg A. {FAULT_ADVICE}",
    )
    paused = event(Kind.PAUSED, Outcome.PAUSED)
    assert run_words(paused, Kind.FAULT, "the board does not answer", journaled=True)[1].startswith(
        "the board does not answer. "
    )


def test_the_estop_message_claims_only_what_the_board_confirmed() -> None:
    latched = estop_words(EstopResult(True, "e-stop latched on sim://"), ["home"])
    assert latched == (f"e-stop latched on sim://. {ESTOP_RECOVERY} Discarded what was sent before it: home.", "")
    assert estop_words(EstopResult(False, "sent ESTOP but the board reports mode IDLE"), []) == (
        "",
        "sent ESTOP but the board reports mode IDLE",
    )
