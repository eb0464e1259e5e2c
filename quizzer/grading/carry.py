"""Carried-forward credit in a chain: when an earlier answer is too trivial to carry into a later part."""

from __future__ import annotations

from collections.abc import Iterable

#: Relative difference under which a given answer counts as a number the prompt printed.
SAME = 1e-9
#: Farther than this factor from the true value, an earlier answer is no honest attempt at it.
FACTOR = 100


def trivial(given: float, true: float, prompt_numbers: Iterable[float]) -> bool:
    """Whether an earlier answer ``given`` earns no carried credit for the later parts.

    It is trivial when it is 0, when it equals (within ``SAME`` relative) a number the earlier part's
    prompt printed (``prompt_numbers``: copying a given is no work), or when ``given / true`` lies
    outside [1/FACTOR, FACTOR] (a negative answer included): an answer a factor of 100 off is no attempt
    at the question, and carrying it could be gamed (Numbas #368).

    Args:
        given: the earlier answer as read, in the part's base unit.
        true: the earlier part's true value, in the same unit.
        prompt_numbers: the numbers the earlier part's prompt showed, in that unit and as printed.

    Returns:
        True when the answer must not be carried forward.

    >>> trivial(0, 12, ()), trivial(4096, 16, (4096.0,)), trivial(1600, 12, ()), trivial(15, 12, (4.0,))
    (True, True, True, False)
    >>> trivial(-12, 12, ()), trivial(0.12, 12, ()), trivial(0.11, 12, ())
    (True, False, True)
    """
    if given == 0 or true == 0:
        return True
    if any(abs(given - n) <= SAME * max(abs(given), abs(n)) for n in prompt_numbers):
        return True
    ratio = given / true
    return not 1 / FACTOR <= ratio <= FACTOR


__all__ = ["FACTOR", "SAME", "trivial"]
