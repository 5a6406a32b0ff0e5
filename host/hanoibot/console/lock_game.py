"""The page's twin-tower lock: every press is made by :mod:`hanoibot.puzzle.lock` (the rules stay in one place),
and the solvers of :mod:`hanoibot.planner.lock` answer how far the lock is from open, as ``hanoibot lock`` does.

A request is a JSON object: ``lock`` (colour letters such as ``RYGGR``) with ``split`` (the button held in the
lock's memory cell, 1-based; null before the first press) and optionally ``press`` (a button to press now); or
``length`` and optionally ``seed`` for a fresh random lock (the same seed gives the same lock as ``hanoibot lock
--length N --seed S``); ``rules`` names the reading of the rules (``hanoibot lock --rules NAME``; default
``pinaev-forward``), kept by the page with every later press. The answer gives the lock after the press, whether
it is open, a sentence saying what the press did, the fewest presses left by exact search (locks of up to 8
elements, else null) with the button that starts them (else the strategy's next press), the constructive strategy's
press count from here, the reading used (``rules``) and every reading there is (``readings``).
"""

from __future__ import annotations

import random
from typing import Any

from ..errors import PlanError
from ..planner.lock import EXACT_MAX_LENGTH, fewest_presses, strategy
from ..puzzle.lock import COLOUR_NAMES, MAX_LENGTH, MIN_LENGTH, READINGS, RULES, Lock, LockRules, random_lock
from ..render.lock_view import describe_press

#: Largest seed the page may ask for (the CLI prints seeds below a million).
MAX_SEED = 2**31 - 1


def _whole(request: dict[str, Any], key: str, low: int, high: int) -> int:
    """``request[key]`` as a whole number from ``low`` to ``high``; PlanError naming the key otherwise."""
    value = request.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise PlanError(f"{key} = {value!r} is invalid: expected a whole number from {low} to {high}")
    return value


def _rules(request: dict[str, Any]) -> LockRules:
    """The reading the request names (``rules``; the default reading when absent or null)."""
    name = request.get("rules")
    if name is None:
        return RULES
    if not isinstance(name, str) or name not in READINGS:
        raise PlanError(f"rules = {name!r} is invalid: expected one of {', '.join(READINGS)}")
    return READINGS[name]


def _given_lock(request: dict[str, Any]) -> Lock:
    """The lock the request names: its colours, its memory cell and its reading of the rules."""
    text = request.get("lock")
    if not isinstance(text, str):
        raise PlanError(f"lock = {text!r} is invalid: expected colour letters such as RYGGR")
    lock = Lock.parse(text, _rules(request))
    if request.get("split") is None:
        return lock
    split = _whole(request, "split", 1, lock.length)
    return Lock(lock.pegs, split - 1, lock.rules)


def _new_lock(request: dict[str, Any]) -> tuple[Lock, int]:
    """A fresh random lock of ``length`` elements from ``seed`` (a new seed when none is given)."""
    length = _whole(request, "length", MIN_LENGTH, MAX_LENGTH)
    if request.get("seed") is None:
        seed = random.SystemRandom().randrange(1_000_000)
    else:
        seed = _whole(request, "seed", 0, MAX_SEED)
    return random_lock(length, seed, _rules(request)), seed


def lock_answer(request: dict[str, Any]) -> dict[str, Any]:
    """The lock after the request's press (or the new lock) and how far it is from open; HanoiError if bad."""
    seed: int | None = None
    said: str | None = None
    if "length" in request:
        lock, seed = _new_lock(request)
    else:
        lock = _given_lock(request)
        if request.get("press") is not None:
            button = _whole(request, "press", 1, lock.length)
            after = lock.press(button)
            said = describe_press(lock, after, button)
            lock = after
    fewest = fewest_presses(lock) if lock.length <= EXACT_MAX_LENGTH else None
    answer: dict[str, Any] = {
        "lock": lock.colours(),
        "split": None if lock.split is None else lock.split + 1,
        "colours": [COLOUR_NAMES[p] for p in lock.pegs],
        "open": lock.is_open,
        "said": said,
        "seed": seed,
        "fewest_left": None if fewest is None else len(fewest),
        "hint": fewest[0] if fewest else None,
        "strategy": None,
        "rules": lock.rules.name,
        "readings": list(READINGS),
    }
    if not lock.is_open:
        plan = strategy(lock)
        answer["strategy"] = {"presses": plan.presses, "first": plan.first_button, "colour": COLOUR_NAMES[plan.target]}
        if fewest is None:
            answer["hint"] = next(plan.buttons())
    return answer
