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


class _Slotted(Record, slots=True):
    x: int
    y: str = "b"


class _SlottedChild(_Slotted, slots=True):
    z: float = 0.5

    def __post_init__(self) -> None:
        if self.z < 0:
            raise ValueError("z < 0")


def test_a_slotted_record_keeps_no_dict_and_behaves_as_any_other() -> None:
    r = _Slotted(1)
    assert not hasattr(r, "__dict__")
    assert (r.x, r.y) == (1, "b")
    assert r == _Slotted(x=1, y="b")
    assert r != _Slotted(2)
    assert hash(r) == hash(_Slotted(1, "b"))
    assert r.replace(y="c") == _Slotted(1, "c")
    assert repr(r) == "_Slotted(x=1, y='b')"
    with pytest.raises(AttributeError, match="immutable"):
        r.x = 2  # type: ignore[misc]
    with pytest.raises(TypeError, match="missing the field 'x'"):
        _Slotted()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="no field 'w'"):
        _Slotted(1, w=2)  # type: ignore[call-arg]


def test_a_slotted_child_has_its_parents_fields_defaults_and_post_init() -> None:
    c = _SlottedChild(3)
    assert not hasattr(c, "__dict__")
    assert c.as_dict() == {"x": 3, "y": "b", "z": 0.5}
    with pytest.raises(ValueError, match="z < 0"):
        _SlottedChild(3, z=-1.0)
    import pickle

    assert pickle.loads(pickle.dumps(c)) == c


def test_the_trace_records_written_out_initializers_take_exactly_their_fields() -> None:
    """Factor, Step, Result and MistakeValue write Record's __init__ out (made thousands of times a second):
    their parameters must be the fields in order with the same defaults, and set every field as given."""
    import inspect

    from quizzer.bank.generate.instance import MistakeValue
    from quizzer.core.trace import Factor, Result, Step

    for cls in (Factor, Step, Result, MistakeValue):
        params = list(inspect.signature(cls.__init__).parameters.values())[1:]
        assert tuple(p.name for p in params) == cls._fields, cls.__name__
        defaults = {p.name: p.default for p in params if p.default is not inspect.Parameter.empty}
        assert defaults == cls._defaults, cls.__name__
        values = [f"<{name}>" for name in cls._fields]
        made = cls(*values)
        assert made.as_dict() == dict(zip(cls._fields, values, strict=True)), cls.__name__
        assert made == cls(**dict(zip(cls._fields, values, strict=True)))
        assert made.replace(**{cls._fields[0]: "x"}).as_dict()[cls._fields[0]] == "x"
        with pytest.raises(AttributeError, match="immutable"):
            setattr(made, cls._fields[0], 1)
