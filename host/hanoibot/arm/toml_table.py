"""One TOML table read key by key with bounds, for the preset reader (config/reader.py's way, in this room: the
arm sits below config). Every value a reader asks for is checked where it is read; :meth:`Table.finish` then
rejects any key nobody asked for, naming its section and the nearest known key (Klipper's way)."""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping
from typing import Any

from ..errors import ConfigError


class Table:
    """One TOML table, named as the file writes it (``arm.joints #2``), read key by key."""

    def __init__(self, name: str, table: Mapping[str, Any]) -> None:
        self.name = name
        self._table = table
        self._known: set[str] = set()

    def where(self, key: str) -> str:
        """How ``key`` is named in messages: ``[arm.tool] grip_xyz_mm`` (a top-level table: ``[arm]``)."""
        return f"[{self.name}] {key}" if self.name else f"[{key}]"

    def error(self, key: str, value: object, expected: str) -> ConfigError:
        """A ConfigError for ``key`` = ``value`` saying what was ``expected``."""
        return ConfigError(f"{self.where(key)} = {value!r}: expected {expected}")

    def has(self, key: str) -> bool:
        """True if ``key`` is present (and marks it known)."""
        self._known.add(key)
        return key in self._table

    def _get(self, key: str, what: str, default: object) -> Any:
        self._known.add(key)
        if key in self._table:
            return self._table[key]
        if default is not None:
            return default
        raise ConfigError(f"{self.where(key)} is missing: expected {what}")

    def number(self, key: str, low: float, high: float, default: float | None = None) -> float:
        """A number from ``low`` to ``high``."""
        what = f"a number from {low:g} to {high:g}"
        value = self._get(key, what, default)
        if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
            raise self.error(key, value, what)
        return float(value)

    def text(self, key: str, choices: tuple[str, ...] | None = None, default: str | None = None) -> str:
        """A string (one of ``choices`` if given)."""
        what = f"one of {', '.join(repr(c) for c in choices)}" if choices else "a text"
        value = self._get(key, what, default)
        if not isinstance(value, str) or (choices is not None and value not in choices):
            raise self.error(key, value, what)
        return value

    def vector(self, key: str, default: tuple[float, float, float] | None = None) -> tuple[float, float, float]:
        """Three finite numbers ``[x, y, z]``."""
        value = self._get(key, "three numbers [x, y, z]", default)
        if (
            not isinstance(value, list | tuple)
            or len(value) != 3
            or not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in value)
        ):
            raise self.error(key, value, "three numbers [x, y, z]")
        return (float(value[0]), float(value[1]), float(value[2]))

    def numbers(self, key: str, low: float, high: float) -> tuple[float, ...]:
        """A list of one or more numbers, each from ``low`` to ``high``."""
        what = f"a list of numbers from {low:g} to {high:g}"
        value = self._get(key, what, None)
        if (
            not isinstance(value, list)
            or not value
            or not all(isinstance(v, int | float) and not isinstance(v, bool) and low <= v <= high for v in value)
        ):
            raise self.error(key, value, what)
        return tuple(float(v) for v in value)

    def gains(self, key: str) -> tuple[tuple[str, float], ...]:
        """An inline table of names to numbers, ``{ forearm = 1.0, shoulder = -1.0 }``, in the file's order."""
        value = self._get(key, "a table of servo names to gains", None)
        if (
            not isinstance(value, Mapping)
            or not value
            or not all(
                isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in value.values()
            )
        ):
            raise self.error(key, value, "a table of servo names to gains, e.g. { forearm = 1.0, shoulder = -1.0 }")
        return tuple((str(k), float(v)) for k, v in value.items())

    def table(self, key: str) -> Table:
        """The sub-table ``key`` (ConfigError if missing)."""
        prefix = f"{self.name}.{key}" if self.name else key
        value = self._get(key, f"a [{prefix}] table", None)
        if not isinstance(value, Mapping):
            raise self.error(key, value, "a table")
        return Table(prefix, value)

    def tables(self, key: str, *, required: bool = True) -> list[Table]:
        """The array of tables ``[[key]]`` (empty if absent and not ``required``)."""
        if not required and not self.has(key):
            return []
        value = self._get(key, f"one or more [[{self.name}.{key}]] tables", None)
        if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value) or not value:
            raise self.error(key, value, f"one or more [[{self.name}.{key}]] tables")
        prefix = f"{self.name}.{key}" if self.name else key
        return [Table(f"{prefix} #{i + 1}", v) for i, v in enumerate(value)]

    def finish(self) -> None:
        """ConfigError naming the first key nobody read, and the nearest known key."""
        for key in self._table:
            if key not in self._known:
                near = difflib.get_close_matches(key, sorted(self._known), n=1, cutoff=0.6)
                hint = f"; did you mean {near[0]!r}?" if near else ""
                raise ConfigError(f"{self.where(key)} is not a known key{hint}")
