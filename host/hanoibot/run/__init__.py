"""Playing a plan on the arm: the `transitions` sequencer, the segment queue that keeps the board fed, the runner
that drives a run from start to report, recovery after a crash or reset, and the fsync'd journal behind exactly-once
resume. Imports the planner, motion, config and link layers; nothing below imports it."""
