"""Classic arithmetic: the optimal transfer of a perfect tower between two of three pegs, in O(n) per query.

:mod:`.towers` is the arithmetic (where every disk is after move ``k``), :mod:`.methods` and :mod:`.turing` the
five ways to generate the moves, :mod:`.bulk` the fast text output, :mod:`.plan` the :class:`ClassicPlan`.
"""

from .plan import DEFAULT_METHOD, METHODS, ClassicPlan

__all__ = ["DEFAULT_METHOD", "METHODS", "ClassicPlan"]
