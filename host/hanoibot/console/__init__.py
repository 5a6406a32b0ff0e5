"""``hanoibot serve``: the browser console — play the puzzle, and watch and drive the arm live.

:mod:`.app` is the Starlette application (page, JSON endpoints, one WebSocket); :mod:`.planning` answers the
page's planner questions with the project's own planner; :mod:`.robot_worker` owns the robot in one thread and
drives the same :class:`~hanoibot.run.runner.Run` as ``hanoibot run``; :mod:`.guard` checks tokens and origins.
The page itself is plain ES modules and SVG in ``static/`` (no build step, nothing fetched from the network).
"""
