"""The literals lint: a number written out in a teaching text that is not a placeholder or a true constant."""

from __future__ import annotations

from quizzer.bank.check.base import Lint
from quizzer.bank.check.literals_scan import Literal, scan
from quizzer.bank.check.literals_texts import TEACHING, source_texts
from quizzer.bank.read.schema import Template


def _key(number: str) -> str:
    """A number as ``numbers_ok`` matches it: without group separators or spaces ("2,048" is "2048")."""
    return number.replace(",", "").replace(" ", "").replace("\u202f", "").replace("\u2009", "")


class Literals(Lint):
    """A number written out by hand in a teaching text (explanation, TL;DR, memory aid, follow-up, nudge, a
    mistake's feedback or title) that stands next to a unit, a scale word or an operator and is neither a
    placeholder nor a true constant (``literals_allowed.CONSTANTS``) nor declared in ``numbers_ok``; and a
    ``numbers_ok`` entry that no such text writes. The texts are read as written, so a placeholder is never
    taken for a literal; nothing depends on the draw, so the lint works in ``__init__``.
    """

    name = "literals"
    finds = "a number written out in a teaching text that is not a placeholder or a true constant"

    def __init__(self, template: Template) -> None:
        super().__init__(template)
        declared = {_key(ok.number): i for i, ok in enumerate(template.numbers_ok)}
        used: set[int] = set()
        for text in source_texts(template):
            if text.kind not in TEACHING:
                continue
            found: list[Literal] = []
            for literal in scan(text.text):
                index = declared.get(_key(literal.written))
                if index is None:
                    found.append(literal)
                else:
                    used.add(index)
            if found:
                self.report(text.part, text.field, "literal", _message(found))
        for i, ok in enumerate(template.numbers_ok):
            if i not in used:
                self.report(
                    None,
                    f"numbers_ok[{i}].number",
                    "unused",
                    f"{ok.number!r} is written out in no teaching text (next to a unit, a scale word or an "
                    "operator): remove the entry, or write the number as the text does",
                )


def _message(found: list[Literal]) -> str:
    """What a field writes out by hand, each number once, and what to do."""
    seen: dict[str, str] = {}
    for literal in found:
        seen.setdefault(literal.written, literal.why)
    listed = ", ".join(f"{written!r} ({why})" for written, why in seen.items())
    return (
        f"writes out {listed}: make a number that depends on a variable or on another number a placeholder "
        "or a computed variable; declare a year, a name or a figure quoted from a source in numbers_ok "
        "with the reason"
    )


__all__ = ["Literals"]
