"""General solvers: any start (irregular too), 3 to 26 pegs, restricted rules, a goal or the nearest tower.

:mod:`.choose` picks the planner for a :class:`~hanoibot.planner.request.PlanRequest`; the planners build lazy move
trees (:mod:`.transfer`) or search exactly (:mod:`.search`).
"""

from .choose import count_general_moves, count_general_proved, make_general_plan

__all__ = ["count_general_moves", "count_general_proved", "make_general_plan"]
