"""Frozen value objects: equal and hashed by class and fields, immutable, copied and pickled whole."""

from __future__ import annotations

import copy
import pickle

import pytest
from hanoibot.frozen import Frozen


class Point(Frozen):
    FIELDS = ("x_mm", "y_mm")

    def __init__(self, x_mm: float, y_mm: float = 0.0) -> None:
        self.set_fields(x_mm, y_mm)


class Other(Point):
    pass


def test_equal_and_hashed_by_class_and_fields() -> None:
    assert Point(1.0, 2.0) == Point(1.0, 2.0) and hash(Point(1.0, 2.0)) == hash(Point(1.0, 2.0))
    assert Point(1.0, 2.0) != Point(1.0, 3.0)
    assert Point(1.0) != Other(1.0) and Point(1.0) != (1.0, 0.0)
    assert len({Point(1.0), Point(1.0), Point(2.0)}) == 2


def test_fields_cannot_be_changed_or_deleted() -> None:
    point = Point(1.0)
    with pytest.raises(AttributeError, match=r"'x_mm'.*immutable"):
        point.x_mm = 2.0
    with pytest.raises(AttributeError, match="immutable"):
        del point.y_mm
    assert point.x_mm == 1.0


def test_repr_copy_and_pickle() -> None:
    point = Point(1.5, -2.0)
    assert repr(point) == "Point(x_mm=1.5, y_mm=-2.0)"
    assert copy.copy(point) == point and copy.deepcopy(point) == point
    assert pickle.loads(pickle.dumps(point)) == point


def test_every_field_is_set_once() -> None:
    with pytest.raises(ValueError):
        Point.__new__(Point).set_fields(1.0)
