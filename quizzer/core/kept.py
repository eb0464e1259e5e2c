"""The core's building blocks kept by their arguments: a model's count asks for the same parts often."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, update_wrapper
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

#: The caches of every function made with ``kept``: ``forget`` empties them.
_CACHES: list[Any] = []


def kept(function: F) -> F:
    """``function`` (pure, its results immutable), answering a call it has answered before from memory.

    The key holds each argument's type beside its value (2 and 2.0 are two calls: their derivations read
    differently; True and 1 too). A call with an argument that cannot be a key (a list) is made afresh; an
    error is never kept. At most 1,024 results are kept, the least recently used dropped first.
    """
    cached = lru_cache(maxsize=1024, typed=True)(function)
    _CACHES.append(cached)

    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return cached(*args, **kwargs)
        except TypeError:  # an argument that cannot be a key (or the function's own, raised again)
            return function(*args, **kwargs)

    return update_wrapper(call, function)  # type: ignore[return-value]


def forget_kept() -> None:
    """Empty every ``kept`` function's memory (a test that plants a change in the core's code needs it)."""
    for cached in _CACHES:
        cached.cache_clear()
