"""The snapshots a console's robot worker publishes, kept for a test, with a bounded wait for one it expects."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

#: Longest wait for a snapshot that a test expects, in s.
WAIT_S = 60.0


class Snapshots:
    """Every snapshot a worker published (the worker's ``publish`` callback), with a bounded wait for one."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []
        self._changed = threading.Condition()

    def __call__(self, snapshot: dict[str, Any]) -> None:
        with self._changed:
            self.seen.append(snapshot)
            self._changed.notify_all()

    def wait_for(self, test: Callable[[dict[str, Any]], bool], what: str, *, since: int = 0) -> dict[str, Any]:
        """The latest snapshot from the ``since``-th on that passes ``test``, waited for (fails past :data:`WAIT_S`)."""
        deadline_s = time.monotonic() + WAIT_S
        with self._changed:
            while True:
                for snapshot in reversed(self.seen[since:]):
                    if test(snapshot):
                        return snapshot
                left_s = deadline_s - time.monotonic()
                if left_s <= 0:
                    raise AssertionError(f"no snapshot with {what} within {WAIT_S} s; last: {self.seen[-1:]}")
                self._changed.wait(left_s)
