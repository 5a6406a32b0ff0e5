"""Moves become numbered segments on their way to the board: command ids, journal records and arm poses.

:class:`SegmentSource` expands one move at a time, when the sequencer needs its first segment: it takes the move's
segments, starting from the pose the previous move ends in, gives them consecutive command ids and journals them
(``send`` record, fsync'd) before any of them can be sent.

It plans ahead: as soon as a move is expanded, the motion layer starts on the next :data:`AHEAD_MOVES` in
background threads (:class:`~hanoibot.run.lookahead.Lookahead`), each from the pose the one before ends in, while
this one's segments go out and run; the next expansion takes that result if the move still starts where it was
planned to (same board, pose and segments before it; a redone pick, a requeue after a reset or a new load plan it
again, synchronously, and the moves after it anew). The main thread keeps serving
the link meanwhile, so a host many times slower than the motion planner needs still keeps the board's queue fed;
a host later still is as safe as before: the firmware runs the segment it has to its end and the late one from
rest.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

from ..errors import HanoiError, RunFault
from ..motion.phases import MotionPhase
from ..motion.segment import Segment
from ..puzzle import Move, Rules, State
from .journal import Journal
from .lookahead import Lookahead, LookaheadKey, Pulses, SegmentsFor

__all__ = ["AHEAD_MOVES", "DurationBetween", "Item", "Lookahead", "LookaheadKey", "SegmentSource", "SegmentsFor"]

#: Moves planned ahead of the one being sent (each plan needs the end of the one before it).
AHEAD_MOVES = 3
#: How often (s) :attr:`SegmentSource.serve` is called while a late plan is waited for: well inside the board's
#: watchdog (300 ms of host silence while it moves) and the link's heartbeat.
SERVE_EVERY_S = 0.02
#: ``duration_between(from_pulses_us, to_pulses_us, phase)``: how long in ms the servos need between two poses in
#: that phase (a held disk sliding along its peg goes slower).
DurationBetween = Callable[[Pulses, Pulses, MotionPhase], int]


class Item(NamedTuple):
    """One segment with its command id: of move ``k`` (0-based in the plan); ``last_of_move`` ends the move;
    ``ramp_ms``/``blend_ms``: its speed profile (:class:`~hanoibot.motion.segment.Segment`)."""

    k: int
    move: Move
    cmd_id: int
    pulses_us: Pulses
    duration_ms: int
    phase: MotionPhase
    last_of_move: bool
    ramp_ms: int | None = None
    blend_ms: int = 0


class SegmentSource:
    """Numbered segments of the loaded moves, one move expanded at a time, the next one planned ahead.

    ``lookahead``: the class that plans the next move in the background (None: plan each move when needed).
    """

    lookahead: type[Lookahead] | None = Lookahead
    #: Called over and over while the caller waits for a plan made ahead that is late (a slow host): the
    #: sequencer services its link there (heartbeats, the board's answers), so the board does not lose the host.
    serve: Callable[[], None] | None = None

    def __init__(
        self,
        segments_for: SegmentsFor,
        *,
        journal: Journal | None = None,
        first_cmd_id: int = 1,
        duration_between: DurationBetween | None = None,
    ) -> None:
        self.segments_for = segments_for
        self.journal = journal
        self.next_cmd_id = first_cmd_id
        self.duration_between = duration_between
        self.pose_us: Pulses | None = None
        self.pick: tuple[int, Move, State] | None = None
        self._pending: deque[Item] = deque()
        self._previous: Sequence[Segment] = ()  # the last move's segments, while the next one runs straight on
        self._moves: Iterator[Move] = iter(())
        self._state: State | None = None
        self._rules: Rules | None = None
        self._next_k = 0
        self._first_phase = MotionPhase.APPROACH
        self._upcoming: deque[Move] = deque()  # taken from the moves for the plans made ahead, not yet expanded
        self._ahead: deque[Lookahead] = deque()  # plans of the first of them, in order

    def load(
        self,
        state: State,
        moves: Iterator[Move],
        *,
        first_k: int = 0,
        first_phase: MotionPhase = MotionPhase.APPROACH,
        rules: Rules | None = None,
    ) -> None:
        """Moves ``first_k``, ``first_k + 1``, … from ``state``, checked against ``rules`` (default classic);
        the first one from ``first_phase`` on."""
        self._drop_ahead()
        self._upcoming.clear()
        self._state = state
        self._rules = rules
        self._moves = moves
        self._next_k = first_k
        self._first_phase = first_phase
        self._pending.clear()
        self._previous = ()

    def plan_ahead(self) -> None:
        """Start planning the next moves now, from :attr:`pose_us` (e.g. where the arm is about to go home)."""
        if not self._pending and not self._ahead:
            self._plan_ahead()

    def wait_for_first_plan(self) -> None:
        """Return once the first move planned ahead is planned (serving the link meanwhile, :attr:`serve`)."""
        if self._ahead:
            self._wait_for(self._ahead[0])

    def _wait_for(self, ahead: Lookahead) -> None:
        """Wait until ``ahead`` is done, calling :attr:`serve` every :data:`SERVE_EVERY_S` s meanwhile."""
        while not ahead.ready(SERVE_EVERY_S):
            if self.serve is not None:
                self.serve()

    def take_cmd_ids(self, count: int) -> int:
        """Reserve ``count`` consecutive command ids; returns the first."""
        first = self.next_cmd_id
        self.next_cmd_id += count
        return first

    def peek(self) -> Item | None:
        """The next segment to send (expanding the next move if needed), or None when every move is out."""
        if not self._pending and not self._expand_next_move():
            return None
        return self._pending[0]

    def pop(self) -> Item:
        """Take the segment :meth:`peek` returned."""
        return self._pending.popleft()

    def redo_pick(self, from_pulses_us: Pulses) -> None:
        """Drop what is left of the current move and plan it again, from ``approach``, starting at that pose."""
        assert self.pick is not None
        k, move, before = self.pick
        self._pending.clear()
        self._drop_ahead()
        self._expand(k, move, list(self.segments_for(before, move, from_pulses_us, ())), from_pulses_us)
        self._plan_ahead()

    def requeue(self, dropped: Sequence[Item]) -> None:
        """Put segments the board dropped back in front and give them, and every waiting one, fresh ids.

        Each move's renumbered segments are journaled as a new ``send`` record, which replaces the old one.
        """
        waiting = [*dropped, *self._pending]
        self._pending.clear()
        for k, group in itertools.groupby(waiting, key=lambda item: item.k):
            items = list(group)
            first = self.take_cmd_ids(len(items))
            if self.journal is not None:
                self.journal.record_send(k, items[0].move, first, first + len(items) - 1, [i.phase for i in items])
            self._pending.extend(item._replace(cmd_id=first + i) for i, item in enumerate(items))
        # The first one starts from wherever the arm stopped (maybe inside a blend), so neither it nor the one
        # after it blends: the arm reaches each of their targets and stops, as without blends.
        for i in range(min(2, len(self._pending))):
            self._pending[i] = self._pending[i]._replace(blend_ms=0)
        self._previous = ()  # the arm may not follow the planned end of this move: the next one starts from rest

    def _drop_ahead(self) -> None:
        """Forget the plans made ahead (after their threads end, so the motion layer plans one move at a time)."""
        while self._ahead:
            self._ahead.popleft().wait()

    def _take_next_move(self) -> Move | None:
        return self._upcoming.popleft() if self._upcoming else next(self._moves, None)

    def _segments_of(self, key: LookaheadKey) -> list[Segment]:
        """The segments of ``key``'s move: the plan made ahead if it was made from the same start, else now."""
        if self._ahead:
            ahead = self._ahead.popleft()
            self._wait_for(ahead)
            if ahead.matches(key):
                return ahead.result()
            self._drop_ahead()
        return list(self.segments_for(*key))

    def _plan_ahead(self) -> None:
        """Top up the plans made ahead to :data:`AHEAD_MOVES`, the first from where the last expanded move ends."""
        if self.lookahead is None or self._state is None:
            return
        while len(self._ahead) < AHEAD_MOVES:
            while len(self._upcoming) <= len(self._ahead):
                move = next(self._moves, None)
                if move is None:
                    return
                self._upcoming.append(move)
            move = self._upcoming[len(self._ahead)]
            if not self._ahead:
                self._ahead.append(self.lookahead(self.segments_for, self._state, move, (self.pose_us, self._previous)))
                continue
            last = self._ahead[-1]
            try:
                state = last.state.apply(last.move, self._rules)
            except HanoiError:
                return  # an illegal move: said when it is expanded, as without planning ahead
            self._ahead.append(self.lookahead(self.segments_for, state, move, last))

    def _expand_next_move(self) -> bool:
        move = self._take_next_move()
        if move is None or self._state is None:
            return False
        before, k = self._state, self._next_k
        self._state = before.apply(move, self._rules)
        self.pick = (k, move, before)
        cut = self._first_phase is not MotionPhase.APPROACH
        previous = () if cut else self._previous
        segments = self._segments_of((before, move, self.pose_us, previous))
        if cut:
            phases = [segment.phase for segment in segments]
            first = phases.index(self._first_phase)
            end = first + phases[first:].count(self._first_phase)
            start_us = tuple(segments[first - 1].pulses_us) if first else self.pose_us
            if start_us is not None and self.pose_us is not None:
                first += nearest_segment(start_us, segments[first:end], self.pose_us)
            segments = segments[first:]
            self._first_phase = MotionPhase.APPROACH
        self._expand(k, move, segments, self.pose_us, cut=cut, continues=bool(previous))
        self._next_k += 1
        self._plan_ahead()
        return True

    def _expand(
        self,
        k: int,
        move: Move,
        segments: Sequence[Segment],
        from_us: Pulses | None,
        *,
        cut: bool = False,
        continues: bool = False,
    ) -> None:
        """Number the segments, journal them, and line them up.

        ``cut``: the segments are the tail of a move planned from another pose, so the first one starts from
        ``from_us`` instead: it is timed again from there and sent plain (minimum jerk), and nothing blends into it.
        ``continues``: the segments were planned to follow the move expanded just before; only then does the first
        one keep its blend.
        """
        phases = [_phase_of(segment, move) for segment in segments]
        first = self.take_cmd_ids(len(segments))
        if self.journal is not None:
            self.journal.record_send(k, move, first, first + len(segments) - 1, phases)
        for i, segment in enumerate(segments):
            duration_ms, ramp_ms, blend_ms = segment.duration_ms, segment.ramp_ms, segment.blend_ms
            if i == 0 and not continues:
                blend_ms = 0  # whatever ran before is not the segment this one was planned to blend into
            if i == 0 and cut and from_us is not None and self.duration_between is not None:
                duration_ms = max(duration_ms, self.duration_between(from_us, tuple(segment.pulses_us), phases[i]))
                ramp_ms = None
            last = i == len(segments) - 1
            item = Item(k, move, first + i, tuple(segment.pulses_us), duration_ms, phases[i], last, ramp_ms, blend_ms)
            self._pending.append(item)
        self.pose_us = tuple(segments[-1].pulses_us)
        self._previous = segments


def nearest_segment(start_us: Pulses, segments: Sequence[Segment], pose_us: Pulses) -> int:
    """Index of the segment whose straight line (in pulse space, µs, from the previous one's target or
    ``start_us``) passes nearest ``pose_us``; the later one on a tie.

    An arm stopped part way along ``segments`` goes on from there to that segment's target, along its planned
    path; not back to the start of the phase, which is a straight line in pulses but not on the path (a held disk
    in its peg would be swung into the peg)."""
    best_i, best_d2 = 0, float("inf")
    a = start_us
    for i, segment in enumerate(segments):
        b = tuple(segment.pulses_us)
        ab = [y - x for x, y in zip(a, b, strict=True)]
        ap = [p - x for x, p in zip(a, pose_us, strict=True)]
        length2 = sum(d * d for d in ab)
        t = min(max(sum(u * v for u, v in zip(ab, ap, strict=True)) / length2, 0.0), 1.0) if length2 else 0.0
        d2 = sum((p - t * d) ** 2 for p, d in zip(ap, ab, strict=True))
        if d2 <= best_d2:
            best_i, best_d2 = i, d2
        a = b
    return best_i


def _phase_of(segment: Segment, move: Move) -> MotionPhase:
    """The pick-and-place phase of one of ``move``'s segments (RunFault if the motion layer gave it none)."""
    if segment.phase is None:
        raise RunFault(f"a segment of move {move.plain()} has no pick-and-place phase: expected one per segment")
    return segment.phase
