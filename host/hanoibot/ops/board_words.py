"""The board's words, typed, for the front ends that render them: its mode, latched faults, grip verdict and rail,
the kinds of its frames and the codes of its ERRORs (defined in :mod:`hanoibot.link.status` and
:mod:`hanoibot.link.codes`, made of the codec's constants). A front end compares these, never the words' text."""

from __future__ import annotations

from ..link.codes import ErrorCode, Kind
from ..link.status import Fault, Grip, Mode, Rail

__all__ = ["ErrorCode", "Fault", "Grip", "Kind", "Mode", "Rail"]
