"""Every lint of ``quizzer check``, by name: all run by default, ``--skip NAME`` leaves one out."""

from __future__ import annotations

from quizzer.bank.check.articles import Articles
from quizzer.bank.check.asked_unit import AskedUnit
from quizzer.bank.check.base import Lint
from quizzer.bank.check.chip_names import ChipNames
from quizzer.bank.check.contained import Contained
from quizzer.bank.check.dead_text import DeadText
from quizzer.bank.check.degenerate import Degenerate
from quizzer.bank.check.giveaway import Giveaway
from quizzer.bank.check.identifiers import Identifiers
from quizzer.bank.check.leaks import Leaks
from quizzer.bank.check.lints import Omissions, ToleranceText
from quizzer.bank.check.literals import Literals
from quizzer.bank.check.plurals import Plurals
from quizzer.bank.check.precision import Precision
from quizzer.bank.check.slip_pairs import SlipPairs
from quizzer.bank.check.slipcover import SlipCoverage

#: The lints in the order their findings are listed.
LINTS: tuple[type[Lint], ...] = (
    ToleranceText,
    Precision,
    Giveaway,
    Literals,
    Plurals,
    Articles,
    Identifiers,
    Leaks,
    Contained,
    Degenerate,
    SlipCoverage,
    Omissions,
    AskedUnit,
    ChipNames,
    DeadText,
    SlipPairs,
)


def lint_names() -> list[str]:
    """The names ``--skip`` takes."""
    return [lint.name for lint in LINTS]


def chosen(
    skip: frozenset[str] | set[str] | tuple[str, ...] = (),
    only: frozenset[str] | set[str] | tuple[str, ...] = (),
) -> tuple[type[Lint], ...]:
    """The lints that run: all but those ``skip`` names, or (``only``) just those; ValueError for a name no
    lint has."""
    unknown = sorted((set(skip) | set(only)) - set(lint_names()))
    if unknown:
        raise ValueError(f"no lint is named {unknown[0]!r}; the lints: {', '.join(lint_names())}")
    return tuple(lint for lint in LINTS if lint.name not in skip and (not only or lint.name in only))


__all__ = ["LINTS", "chosen", "lint_names"]
