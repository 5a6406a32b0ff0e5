"""Small wording helpers for what the front ends show to people."""

from __future__ import annotations


def count_of(count: int, noun: str) -> str:
    """``count`` and ``noun``, plural unless the count is one: ``1 move``, ``7 moves``, ``0 moves``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
