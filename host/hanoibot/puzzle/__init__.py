"""Pure puzzle model: disks, pegs, moves, states, rules and state strings. No I/O."""

from .move import Move
from .pegs import MAX_PEGS, MIN_PEGS, PEG_LETTERS, check_peg_count, peg_index, peg_letter
from .rules import RULE_NAMES, TOPOLOGIES, Rules
from .state import State

__all__ = [
    "MAX_PEGS",
    "MIN_PEGS",
    "PEG_LETTERS",
    "RULE_NAMES",
    "TOPOLOGIES",
    "Move",
    "Rules",
    "State",
    "check_peg_count",
    "peg_index",
    "peg_letter",
]
