"""The articles lint: "a 8-bit code" or "an 6-layer model", an article that misfits the number after it."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from quizzer.bank.check.base import Lint
from quizzer.bank.check.literals_texts import source_texts
from quizzer.bank.check.plurals import shown_text

if TYPE_CHECKING:
    from quizzer.bank.generate.instance import Instance
    from quizzer.bank.read.schema import PartSpec, Template

#: "a" or "an" as a word, then a number (either in bold or not): "a 8-bit", "An **80**-layer", "an 11%".
_ARTICLE_NUMBER = re.compile(r"(?<![\w.,'’-])([Aa]n?)\**[ \u00a0]+\**(\d[\d,]*(?:\.\d+)?)(?![\d])")
#: A text that may show one: an article before a placeholder or a digit.
_MAY_SHOW = re.compile(r"(?<![\w.,'’-])[Aa]n?\**[ \u00a0]+\**[{\d]")


def reads_with_vowel(number: str) -> bool:
    """Whether ``number`` (digits, thousands commas, a decimal part) is read aloud from a vowel sound:
    eight, eleven, eighteen, eighty, eight hundred, eleven thousand... ("an 8", "a 6").

    >>> [n for n in ("8", "80", "8.63", "11", "18", "11,000", "18432", "81,920") if reads_with_vowel(n)]
    ['8', '80', '8.63', '11', '18', '11,000', '18432', '81,920']
    >>> [n for n in ("6", "1", "110", "1,100", "1800", "0.8", "100", "64") if reads_with_vowel(n)]
    []
    """
    whole = number.split(".")[0]
    lead = whole.split(",")[0] if "," in whole else whole[: len(whole) % 3 or 3]
    return lead.startswith("8") or lead in ("11", "18")


class Articles(Lint):
    """A text puts "a" before a number read from a vowel sound ("a 8-bit code", "a 80-layer model") or
    "an" before any other ("an 6-layer model"), as an instance shows it: the article that fits one value
    of a placeholder misfits another. Found at the first seed that shows it."""

    name = "articles"
    finds = '"a" before a number read from a vowel sound ("a 8-bit code"), "an" before another ("an 6-layer")'

    def __init__(self, template: Template) -> None:
        super().__init__(template)
        #: The texts that may show an article before a number: (part, field).
        self.fields: list[tuple[PartSpec | None, str]] = [
            (text.part, text.field) for text in source_texts(template) if _MAY_SHOW.search(text.text)
        ]

    def visit(self, instance: Instance, seed: int) -> None:
        for part, field in self.fields:
            shown = shown_text(self.template, instance, part, field)
            for match in _ARTICLE_NUMBER.finditer(shown):
                article, number = match.groups()
                if (article.lower() == "an") == reads_with_vowel(number):
                    continue
                fits = "an" if article.lower() == "a" else "a"
                after = re.match(r"\S*", shown[match.end() :]).group(0)  # type: ignore[union-attr]
                self.report(
                    part,
                    field,
                    "article",
                    f"reads '{match.group(0)}{after}' at {instance.id}, where '{fits} {number}' fits: for a "
                    'number a placeholder draws, reword so that no article comes before it ("a decoder of '
                    '{n_layers} layers", "a step of {t} ms")',
                )


__all__ = ["Articles", "reads_with_vowel"]
