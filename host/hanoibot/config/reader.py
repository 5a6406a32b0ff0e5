"""Reading one TOML table with bounds: the helper :mod:`hanoibot.config` validates every option through.

A :class:`Section` remembers which keys were asked for; :meth:`Section.finish` then rejects any other key as
unknown, naming the nearest known key (Klipper's way: an option is known because some code reads it).
"""

from __future__ import annotations

import difflib
import math
from typing import Any

from ..errors import ConfigError


class Section:
    """One TOML table (``name`` as written in the file, e.g. ``servos.base``) read key by key."""

    def __init__(self, name: str, table: dict[str, Any]) -> None:
        self.name = name
        self._table = table
        self._known: list[str] = []

    # --- errors --------------------------------------------------------------------------------------
    def where(self, key: str) -> str:
        """How a key is named in messages: ``[board] peg_height_mm`` (a section ``[board]`` at the top level)."""
        return f"[{self.name}] {key}" if self.name else f"[{key}]"

    def error(self, key: str, value: object, expected: str) -> ConfigError:
        """A ConfigError for ``key`` = ``value`` that says what was ``expected``."""
        return ConfigError(f"{self.where(key)} = {value!r}: expected {expected}")

    # --- keys ----------------------------------------------------------------------------------------
    def has(self, key: str) -> bool:
        """True if ``key`` is present (and marks it known)."""
        self._known.append(key)
        return key in self._table

    def _get(self, key: str, what: str, default: object = None) -> Any:
        self._known.append(key)
        if key in self._table:
            return self._table[key]
        if default is not None:
            return default
        # A near key the file has may be a misspelling, or another valid key not read yet: ask, do not claim.
        misspelt = difflib.get_close_matches(key, [k for k in self._table if k not in self._known], n=1, cutoff=0.6)
        hint = f"; is {misspelt[0]!r} a misspelling of it?" if misspelt else ""
        raise ConfigError(f"{self.where(key)} is missing: expected {what}{hint}")

    def number(
        self, key: str, low: float, high: float, *, default: float | None = None,
        low_open: bool = False, high_open: bool = False,
    ) -> float:  # fmt: skip
        """A number from ``low`` to ``high`` (ends excluded where ``low_open``/``high_open``)."""
        bounds = f"{'more than' if low_open else 'from'} {low:g} {'to less than' if high_open else 'to'} {high:g}"
        value = self._get(key, f"a number {bounds}", default)
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise self.error(key, value, f"a number {bounds}")
        too_low = value <= low if low_open else value < low
        too_high = value >= high if high_open else value > high
        if too_low or too_high:
            raise self.error(key, value, f"a number {bounds}")
        return float(value)

    def integer(self, key: str, low: int, high: int) -> int:
        """A whole number from ``low`` to ``high``."""
        value = self._get(key, f"a whole number from {low} to {high}")
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise self.error(key, value, f"a whole number from {low} to {high}")
        return value

    def boolean(self, key: str) -> bool:
        """``true`` or ``false``."""
        value = self._get(key, "true or false")
        if not isinstance(value, bool):
            raise self.error(key, value, "true or false")
        return value

    def numbers(self, key: str, low: float, high: float, *, count: int | None) -> tuple[float, ...]:
        """A list of exactly ``count`` numbers (None: 1 or more), each from ``low`` to ``high`` (low end excluded)."""
        how_many = "1 or more" if count is None else str(count)
        what = f"a list of {how_many} numbers, each more than {low:g} and at most {high:g}"
        values = self._get(key, what)
        if not isinstance(values, list) or not values or (count is not None and len(values) != count):
            raise self.error(key, values, what)
        for value in values:
            if isinstance(value, bool) or not isinstance(value, int | float) or not low < value <= high:
                raise self.error(key, values, f"{what} ({value!r} is not)")
        return tuple(float(v) for v in values)

    def text(self, key: str) -> str:
        """A text of one or more characters."""
        value = self._get(key, "a text in quotes")
        if not isinstance(value, str) or not value.strip():
            raise self.error(key, value, "a text in quotes")
        return value

    def word(self, key: str, allowed: tuple[str, ...], *, default: str) -> str:
        """One of the words ``allowed`` (``default`` when the key is absent)."""
        what = f"one of {', '.join(repr(word) for word in allowed)}"
        value = self._get(key, what, default)
        if value not in allowed:
            raise self.error(key, value, what)
        return str(value)

    def choices(self, key: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
        """A non-empty list of distinct words, each one of ``allowed``."""
        what = f"a list of distinct names out of {', '.join(allowed)}"
        values = self._get(key, what)
        if not isinstance(values, list) or not values or len(set(map(str, values))) != len(values):
            raise self.error(key, values, what)
        for value in values:
            if value not in allowed:
                raise self.error(key, values, f"{what} ({value!r} is not)")
        return tuple(values)

    def pairs(
        self, key: str, first: tuple[float, float], second: tuple[float, float]
    ) -> tuple[tuple[float, float], ...]:
        """A list of ``[a, b]`` pairs with ``a`` within ``first`` and ``b`` within ``second`` (inclusive)."""
        what = (
            f"a list of [a, b] pairs with a from {first[0]:g} to {first[1]:g} and b from {second[0]:g} to {second[1]:g}"
        )
        values = self._get(key, what)
        if not isinstance(values, list):
            raise self.error(key, values, what)
        result = []
        for pair in values:
            ok = isinstance(pair, list) and len(pair) == 2
            ok = ok and all(isinstance(v, int | float) and not isinstance(v, bool) for v in pair)
            if not ok or not (first[0] <= pair[0] <= first[1] and second[0] <= pair[1] <= second[1]):
                raise self.error(key, values, f"{what} ({pair!r} is not)")
            result.append((float(pair[0]), float(pair[1])))
        return tuple(result)

    # --- sub-tables ----------------------------------------------------------------------------------
    def raw_table(self, key: str) -> dict[str, Any]:
        """The sub-table ``[name.key]`` as TOML gave it, for a reader of its own (:mod:`hanoibot.arm`)."""
        name = f"{self.name}.{key}" if self.name else key
        value = self._get(key, f"a table [{name}]")
        if not isinstance(value, dict):
            raise self.error(key, value, f"a table [{name}]")
        return value

    def table(self, key: str) -> Section:
        """The sub-table ``[name.key]``."""
        name = f"{self.name}.{key}" if self.name else key
        value = self._get(key, f"a table [{name}]")
        if not isinstance(value, dict):
            raise self.error(key, value, f"a table [{name}]")
        return Section(name, value)

    def tables(self, key: str, low: int, high: int) -> list[Section]:
        """An array of tables ``[[name.key]]`` with ``low`` to ``high`` entries; entry i is ``name.key #i``."""
        name = f"{self.name}.{key}" if self.name else key
        what = f"{low} to {high} [[{name}]] tables"
        values = self._get(key, what)
        if not isinstance(values, list) or not all(isinstance(v, dict) for v in values):
            raise self.error(key, values, what)
        if not low <= len(values) <= high:
            raise ConfigError(f"[[{name}]] appears {len(values)} times: expected {what}")
        return [Section(f"{name} #{i + 1}", v) for i, v in enumerate(values)]

    def finish(self) -> None:
        """Raise for the first key that no reader asked for, naming the nearest known key."""
        for key in self._table:
            if key not in self._known:
                close = difflib.get_close_matches(key, self._known, n=1, cutoff=0.6)
                raise self._unknown(key, close[0] if close else None)

    def _unknown(self, key: str, nearest: str | None) -> ConfigError:
        """The error for an unknown ``key``, suggesting ``nearest`` (or listing the known keys)."""
        hint = f"did you mean {nearest!r}?" if nearest else f"known keys: {', '.join(sorted(set(self._known)))}"
        section = f"section [{self.name}]" if self.name else "the top level"
        return ConfigError(f"unknown key {key!r} in {section}: {hint}")
