"""The operations every front end calls: start, follow, resume, home, clear, e-stop, release, status (DESIGN
decision 16).

The CLI's commands and the console's worker parse, render and handle their own threads; the decisions live here,
once: how a run is followed and how it ended, in words (:mod:`.follow`), which recovery a stopped run needs
(:mod:`.resume`), how the arm gets home with a disk in the gripper (:mod:`.home`), what an e-stop does and cancels
(:mod:`.stop`, :mod:`.gate`), where a run is journaled by default (:mod:`.journals`), where a disk a board reset let
go lies (:mod:`.lost_disk`), and how a wait for a person keeps the link served (:mod:`.person`). Each takes typed
inputs, returns a typed result (or emits events with the words to show) and raises the project's errors.
"""
