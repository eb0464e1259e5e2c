"""Record, the core's immutable value class: fields as a frozen dataclass has them, checked at definition."""

from __future__ import annotations

import typing
from typing import ClassVar

import pytest

from quizzer.core.record import Record


def test_a_class_variable_is_no_field_however_it_is_written() -> None:
    class Spec(Record):
        kinds: ClassVar[tuple[str, ...]] = ("a",)
        limit: typing.ClassVar[int] = 3
        n: int

    assert Spec._fields == ("n",)
    assert Spec(4) == Spec(n=4)
    assert (Spec.kinds, Spec.limit) == (("a",), 3)


def test_a_required_field_after_a_defaulted_one_fails_at_the_class_definition() -> None:
    with pytest.raises(TypeError, match="'b' has no default but follows 'a'"):

        class Bad(Record):
            a: int = 0
            b: int


def test_a_subclass_cannot_add_a_required_field_after_its_base_defaults() -> None:
    class Base(Record):
        a: int
        b: int = 1

    with pytest.raises(TypeError, match="'c' has no default but follows 'b'"):

        class Child(Base):
            c: int


def test_fields_are_kept_in_order_with_their_defaults() -> None:
    class Point(Record):
        x: int
        y: int = 0
        z: int = 5

    assert Point._fields == ("x", "y", "z")
    assert Point(1).as_dict() == {"x": 1, "y": 0, "z": 5}
    with pytest.raises(TypeError, match="missing the field 'x'"):
        Point()
