"""Record: a small immutable value class, used instead of dataclasses to keep cold start fast.

``import dataclasses`` pulls in ``inspect`` (and ``ast``, ``dis``, ``tokenize``): about 35 ms here, a third
of the cold-start budget of `quizzer count` and `quizzer show`. Record keeps what the core needs of a frozen
dataclass: fields from annotations with defaults, keyword or positional construction, ``__post_init__``,
immutability, value equality and hashing, a readable repr and ``replace``; and, with ``slots=True``, no
``__dict__`` per object (the bank's thousands of spec records: Variable, MistakeSpec, PartSpec...).
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any, ClassVar, Self, dataclass_transform, get_origin


class _RecordType(type):
    """Record's metaclass: a class made with ``slots=True`` keeps its own fields in ``__slots__`` (no
    ``__dict__`` per object: a bank holds thousands of its spec records), its defaults moved aside to
    ``_slot_defaults`` (a slot and a class attribute cannot share a name)."""

    def __new__(
        mcls,
        name: str,
        bases: tuple[type, ...],
        namespace: dict[str, Any],
        slots: bool = False,
        **kwargs: Any,
    ) -> _RecordType:
        if slots:
            own = [n for n, a in namespace.get("__annotations__", {}).items() if not _is_class_var(a)]
            namespace["_slot_defaults"] = {n: namespace.pop(n) for n in own if n in namespace}
            namespace["__slots__"] = tuple(own)
        return super().__new__(mcls, name, bases, namespace, **kwargs)


@dataclass_transform(frozen_default=True)
class Record(metaclass=_RecordType):
    """Base class of immutable value objects.

    >>> class Point(Record):
    ...     x: int
    ...     y: int = 0
    >>> p = Point(1)
    >>> p, p == Point(x=1, y=0), p.replace(y=2)
    (Point(x=1, y=0), True, Point(x=1, y=2))
    >>> p.x = 5
    Traceback (most recent call last):
    ...
    AttributeError: Point is immutable; use .replace(x=...)
    """

    __slots__ = ()  # a subclass has a __dict__ unless made with ``slots=True``
    _fields: ClassVar[tuple[str, ...]] = ()
    _field_set: ClassVar[frozenset[str]] = frozenset()
    _defaults: ClassVar[dict[str, Any]] = {}
    _tail: ClassVar[tuple[tuple[str, Any], ...]] = ()
    _count: ClassVar[int] = 0
    _post_init: ClassVar[Any] = None
    _slotted: ClassVar[bool] = False

    def __init_subclass__(cls, slots: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields: list[str] = []
        defaults: dict[str, Any] = {}
        for klass in reversed(cls.__mro__):
            for name, annotation in vars(klass).get("__annotations__", {}).items():
                if _is_class_var(annotation):
                    continue
                if name not in fields:
                    fields.append(name)
                # a slotted class's defaults were moved aside (its own names are slot descriptors)
                own = vars(klass).get("_slot_defaults", vars(klass))
                if name in own:
                    defaults[name] = own[name]
        for before, name in pairwise(fields):  # as a dataclass: caught at definition
            if before in defaults and name not in defaults:
                raise TypeError(f"{cls.__name__}: the field {name!r} has no default but follows {before!r}")
        cls._fields = tuple(fields)
        cls._field_set = frozenset(fields)
        cls._defaults = defaults
        first = next((i for i, name in enumerate(fields) if name in defaults), len(fields))
        cls._tail = tuple((name, defaults[name]) for name in fields[first:])  # the defaulted fields, in order
        cls._count = len(fields)
        cls._post_init = getattr(cls, "__post_init__", None)  # read once per class, not per object
        cls._slotted = all("__slots__" in vars(k) for k in cls.__mro__ if k is not object)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        fields = self._fields
        if self._slotted:
            given = (
                zip(fields, args, strict=False)  # of equal length: checked
                if not kwargs and len(args) == self._count
                else self._given(args, kwargs).items()
            )
            for name, value in given:
                object.__setattr__(self, name, value)
        elif not kwargs and len(args) == self._count:  # a fast path: every field positional
            self.__dict__.update(zip(fields, args, strict=False))  # the lengths are equal: checked above
        elif not kwargs and len(fields) - len(self._tail) <= len(args) < len(fields):  # the rest defaulted
            self.__dict__.update(zip(fields, args, strict=False))
            self.__dict__.update(self._tail[len(args) - len(fields) :])
        elif not args and kwargs.keys() == self._field_set:  # the other: every field by keyword
            self.__dict__.update(kwargs)
        else:
            self.__dict__.update(self._given(args, kwargs))
        if self._post_init is not None:
            self._post_init()

    def _given(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        """Every field's value from positional ``args``, keyword ``kwargs`` and the defaults (TypeError
        naming what does not fit)."""
        fields = self._fields
        if len(args) > len(fields):
            raise TypeError(f"{type(self).__name__} takes at most {len(fields)} positional arguments")
        values = dict(zip(fields, args, strict=False))
        for name, value in kwargs.items():
            if name not in self._field_set:
                raise TypeError(f"{type(self).__name__} has no field {name!r}")
            if name in values:
                raise TypeError(f"{type(self).__name__} got {name!r} twice")
            values[name] = value
        for name in fields:
            if name not in values:
                if name not in self._defaults:
                    raise TypeError(f"{type(self).__name__} is missing the field {name!r}")
                values[name] = self._defaults[name]
        return values

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; use .replace({name}=...)")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._values()))

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__name__}({inner})"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled as its class and field values (made again as written: a slotted record's slots cannot
        be set from outside)."""
        return type(self), self._values()

    def replace(self, **changes: Any) -> Self:
        """A copy with some fields changed (validated again by ``__post_init__``)."""
        return type(self)(**{**self.as_dict(), **changes})

    def as_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (shallow)."""
        return {name: getattr(self, name) for name in self._fields}


def _is_class_var(annotation: Any) -> bool:
    """Whether an annotation declares a class variable: ``ClassVar[...]`` however it is written (a string,
    with ``from __future__ import annotations``, or the object; bare, or as ``typing.ClassVar``).

    >>> _is_class_var("ClassVar[int]"), _is_class_var("typing.ClassVar[int]"), _is_class_var(ClassVar[int])
    (True, True, True)
    >>> _is_class_var("int"), _is_class_var("ClassVarLike"), _is_class_var(int)
    (False, False, False)
    """
    if isinstance(annotation, str):
        name = annotation.strip().split("[", 1)[0].strip()
        return name.rpartition(".")[2] == "ClassVar"
    return annotation is ClassVar or get_origin(annotation) is ClassVar
