"""The operations every front end calls: start, resume, home, clear, e-stop, release, status (DESIGN decision 16).

The CLI's commands and the console's worker parse, render and handle their own threads; the decisions live here,
once: which recovery a stopped run needs (:mod:`.resume`), how the arm gets home with a disk in the gripper
(:mod:`.home`), what an e-stop cancels (:mod:`.gate`), where a run is journaled by default (:mod:`.journals`),
how an e-stop reaches a board another process holds (:mod:`.stop`), and how a wait for a person keeps the link
served (:mod:`.person`). Each takes typed inputs, returns a typed
result and raises the project's errors.
"""
