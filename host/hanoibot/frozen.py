"""Small immutable value objects without :mod:`dataclasses`, whose import (it pulls in ``inspect``) costs the
command line about a third of a bare interpreter's start-up.

A subclass lists its field names in ``FIELDS`` (in the order its ``__init__`` takes them) and sets them once with
:meth:`Frozen.set_fields`; it gets equality and hashing by class and field values, a ``Name(field=value, …)`` repr,
copying and pickling, and attributes that cannot be assigned afterwards (an :class:`AttributeError`, as a frozen
dataclass raises).
"""

from __future__ import annotations


class Frozen:
    """Base of an immutable value object whose fields are named in ``FIELDS``."""

    __slots__ = ()
    #: The field names, in the order ``__init__`` takes them.
    FIELDS: tuple[str, ...] = ()

    def set_fields(self, *values: object) -> None:
        """Set every field once, in the order of ``FIELDS`` (for ``__init__``)."""
        for name, value in zip(self.FIELDS, values, strict=True):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot set {name!r}: a {type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete {name!r}: a {type(self).__name__} is immutable")

    def values(self) -> tuple[object, ...]:
        """The field values in the order of ``FIELDS``."""
        return tuple(getattr(self, name) for name in self.FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Frozen)
        return self.values() == other.values()

    def __hash__(self) -> int:
        return hash(self.values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.FIELDS)
        return f"{type(self).__name__}({shown})"

    def __reduce__(self) -> tuple[type[Frozen], tuple[object, ...]]:
        return type(self), self.values()
