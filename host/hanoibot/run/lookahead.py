"""The motion plans of the next moves, made in the background while the current move runs.

A :class:`Lookahead` plans one move in a daemon thread. It starts either from a known pose (the end of the move
just expanded) or from the end of another lookahead's plan, once that one is done: a chain of them plans several
moves ahead, each from where the one before it ends, while the main thread keeps serving the link.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Union

from ..motion.segment import Segment
from ..puzzle import Move, State

Pulses = tuple[int, ...]
#: ``segments_for(state_before, move, from_pulses_us, previous)``: the segments of ``move`` starting at that pose
#: (None = the start pose); ``previous``: the segments of the move just before when the arm runs straight on from
#: them (empty otherwise), which the first segment may blend into.
SegmentsFor = Callable[[State, Move, Pulses | None, Sequence[Segment]], Sequence[Segment]]
#: What a plan is made from: (board before the move, the move, start pose, the segments it may blend into).
LookaheadKey = tuple[State, Move, Pulses | None, Sequence[Segment]]
#: Where a lookahead starts: (pose, segments before) now, or the end of another lookahead's plan.
Start = Union[tuple[Pulses | None, Sequence[Segment]], "Lookahead"]


class Lookahead:
    """``segments_for`` of ``move`` on ``state`` from ``start``, in a daemon thread named ``plan-ahead``.

    ``background`` False plans at once, in the caller's thread (a benchmark that models a slower host in virtual
    time measures the planning's CPU time there, undisturbed).
    """

    background = True

    def __init__(self, segments_for: SegmentsFor, state: State, move: Move, start: Start) -> None:
        self.state = state
        self.move = move
        self.start = start
        self.key: LookaheadKey | None = None  # known once the plan it starts from is done
        self._done = threading.Event()
        self._segments: list[Segment] = []
        self._error: BaseException | None = None
        if self.background:
            threading.Thread(target=self._run, args=(segments_for,), name="plan-ahead", daemon=True).start()
        else:
            self._run(segments_for)

    def _run(self, segments_for: SegmentsFor) -> None:
        try:
            if isinstance(self.start, Lookahead):
                before = self.start.segments_or_none()
                if not before:
                    return  # the plan before this one failed: this one is never used
                self.key = (self.state, self.move, tuple(before[-1].pulses_us), before)
            else:
                self.key = (self.state, self.move, *self.start)
            self._segments = list(segments_for(*self.key))
        except BaseException as err:  # handed to the main thread by result()
            self._error = err
        finally:
            self._done.set()

    def ready(self, timeout_s: float) -> bool:
        """True once the plan is done (whatever it found), waiting at most ``timeout_s`` s for it."""
        return self._done.wait(timeout_s)

    def segments_or_none(self) -> list[Segment] | None:
        """The segments once done, or None if planning failed."""
        self._done.wait()
        return None if self._error is not None or self.key is None else self._segments

    def matches(self, key: LookaheadKey) -> bool:
        """True (once done) if this plan was made from ``key`` (the segments before: the very same list)."""
        self._done.wait()
        if self.key is None:
            return False
        state, move, pose_us, previous = self.key
        return key[0] == state and key[1] == move and key[2] == pose_us and key[3] is previous

    def result(self) -> list[Segment]:
        """The segments, once the thread has them (raises what planning raised)."""
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._segments

    def wait(self) -> None:
        """Wait for the thread to finish, whatever it found."""
        self._done.wait()
