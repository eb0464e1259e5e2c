"""Argument checks shared by every calculator: each failure is a SpecError naming the argument and rule."""

from __future__ import annotations

import math
from collections.abc import Iterable

from quizzer.core.errors import SpecError


def count(name: str, value: object, minimum: int = 1) -> int:
    """``value`` as an exact int of at least ``minimum``; a whole float (TOML's ``7e9``) is accepted.

    >>> count("n_gpus", 8), count("n_params", 7e9)
    (8, 7000000000)
    >>> count("n_gpus", 0)
    Traceback (most recent call last):
    ...
    quizzer.core.errors.SpecError: n_gpus (0) must be a positive integer
    """
    whole = int(value) if isinstance(value, float) and value.is_integer() else value
    if isinstance(whole, bool) or not isinstance(whole, int) or whole < minimum:
        rule = {1: "a positive integer", 0: "a non-negative integer"}.get(minimum, f"an integer >= {minimum}")
        raise SpecError(f"{name} ({value!r}) must be {rule}")
    return whole


def counts(**values: object) -> tuple[int, ...]:
    """Several positive integer arguments at once, in the order given.

    >>> counts(vocab_size=32000, d_model=512)
    (32000, 512)
    """
    return tuple(count(name, value) for name, value in values.items())


def positive(name: str, value: object, *, allow_zero: bool = False) -> int | float:
    """A finite number > 0 (>= 0 with ``allow_zero``), returned unchanged.

    >>> positive("bandwidth", 2.039e12)
    2039000000000.0
    >>> positive("mfu", float("nan"))
    Traceback (most recent call last):
    ...
    quizzer.core.errors.SpecError: mfu (nan) must be a positive finite number
    """
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value < 0
        or (value == 0 and not allow_zero)
    ):
        rule = "a non-negative" if allow_zero else "a positive"
        raise SpecError(f"{name} ({value!r}) must be {rule} finite number")
    return value


def fraction(name: str, value: object) -> float:
    """A utilisation such as MFU: a number in (0, 1].

    >>> fraction("mfu", 0.4)
    0.4
    >>> fraction("mfu", 40)
    Traceback (most recent call last):
    ...
    quizzer.core.errors.SpecError: mfu (40) must be in (0, 1] (write 40% as 0.4)
    """
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        raise SpecError(f"{name} ({value!r}) must be in (0, 1] (write 40% as 0.4)")
    return float(value)


def one_of(name: str, value: object, allowed: tuple[str, ...]) -> str:
    """``value`` if it is one of ``allowed``.

    >>> one_of("norm", "rmsnorm", ("layernorm", "rmsnorm"))
    'rmsnorm'
    """
    if value not in allowed:
        raise SpecError(f"{name} ({value!r}) must be one of {', '.join(allowed)}")
    return value


def did_you_mean(name: str, options: Iterable[str]) -> str:
    """A " (did you mean 'x'?)" hint for a misspelt name, or "" when nothing is close.

    >>> did_you_mean("embeding_params", ["embedding_params", "mlp_params"])
    " (did you mean 'embedding_params'?)"
    """
    import difflib  # only on error paths: keeps difflib out of the cold start

    hint = difflib.get_close_matches(name, sorted(options), n=1)
    return f" (did you mean {hint[0]!r}?)" if hint else ""
