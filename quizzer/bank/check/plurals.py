"""The plurals lint: a placeholder followed by a plural noun that reads "1 experts" when its value is 1."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from quizzer.bank.check.base import Lint
from quizzer.bank.check.lints import part_env
from quizzer.bank.check.literals_texts import source_texts

if TYPE_CHECKING:
    from quizzer.bank.generate.instance import Instance
    from quizzer.bank.read.schema import PartSpec, Template

#: A placeholder (any style but ``plural``), then a word ending in "s": ``{n_gpus} chips``,
#: ``**{top_k}** experts``, ``{x:count} FLOPs``; and what comes before it. ``{{`` is a brace written out.
_COUNTED = re.compile(
    r"(\S*?)[ \u00a0*]*(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)(?::([a-z-]+)(?:\([^{}()\n]*\))?)?\}(?!\})"
    r"\**[ \u00a0]+([A-Za-z]+s)\b"
)
#: What before a placeholder makes it no count of the noun after it: an operator ("3 × {k} blocks" counts
#: the product) or a label it numbers ("stage {zero_stage} partitions", "Table {n} compares").
_NOT_A_COUNT = re.compile(
    r"(?:[×*÷/+−\-]|^x|^(?:stage|step|part|table|figure|algorithm|equation|level|phase|round|version))$",
    re.IGNORECASE,
)
#: Words ending in "s" that are no plural: "is", "its", "this", "plus", "axis", "across"; and units whose
#: abbreviation takes no plural ("1 ms").
_NOT_PLURAL = frozenset(
    {"is", "was", "has", "does", "its", "this", "thus", "plus", "as", "us", "yes", "across", "ms", "ns", "ps"}
)


def _plural(word: str) -> bool:
    """Whether ``word`` (ending in "s") reads as a plural noun: not a word of ``_NOT_PLURAL``, nor one
    ending in "ss", "us" or "is" (less, status, axis)."""
    return word.lower() not in _NOT_PLURAL and not word.lower().endswith(("ss", "us", "is"))


def shown_text(template: Template, instance: Instance, part: PartSpec | None, field: str) -> str:
    """The text of ``field`` (of ``part``; None: the template's) as ``instance`` shows it: "" for a mistake
    whose condition fails there; a field of parts (explanation[2], nudges[0]) as the part's whole text."""
    if part is None:
        if field.startswith("conventions"):
            return "\n".join(instance.conventions)
        if field.startswith("memory_aid"):
            return instance.memory_aid
        return "\n".join(f"{q}\n{a}" for q, a in instance.follow_ups)
    shown = instance.parts[part.number - 1]
    if field.startswith("mistakes["):
        name = part.mistakes[int(field[len("mistakes[") : field.index("]")])].name
        return "\n".join(f"{m.title}\n{m.feedback}" for m in shown.mistakes if m.name == name)
    texts = {"prompt": shown.prompt, "explanation": shown.explanation, "tldr": shown.tldr}
    texts["nudges"] = "\n".join(shown.nudges)
    return texts.get(field.split("[")[0], shown.layers_label or "")


class Plurals(Lint):
    """A text writes a placeholder then a plural noun ("{n_gpus} chips") and a drawn instance gives the
    placeholder the value 1: "1 chips". Found at the first seed where it is 1 (a template whose variable
    is never 1 has nothing to fix); the fix is the ``plural(word)`` style, which writes "1 chip"."""

    name = "plurals"
    finds = 'a placeholder then a plural noun that reads "1 experts" when an instance draws 1 (plural(word))'

    def __init__(self, template: Template) -> None:
        super().__init__(template)
        #: (part number or 0 for the template's texts, the part, field, name, the word after it)
        self.counted: list[tuple[int, PartSpec | None, str, str, str]] = []
        for text in source_texts(template):
            for match in _COUNTED.finditer(text.text):
                before, name, style, word = match.groups()
                if _NOT_A_COUNT.search(before) or style == "plural" or name.startswith("part"):
                    continue
                if _plural(word):
                    number = text.part.number if text.part is not None else 1
                    self.counted.append((number, text.part, text.field, name, word))

    def visit(self, instance: Instance, seed: int) -> None:
        if not self.counted:
            return
        envs: dict[int, dict[str, object]] = {}
        for number, part, field, name, word in self.counted:
            if number not in envs:
                envs[number] = part_env(self.template, instance, number)
            value = envs[number].get(name)
            if isinstance(value, bool) or value != 1:
                continue
            if (
                re.search(
                    rf"(?<![\d.,])1\**[ \u00a0]+{word}\b", shown_text(self.template, instance, part, field)
                )
                is None
            ):
                continue  # the text is not shown here: a mistake or a paragraph whose condition fails
            singular = word[:-1]
            self.report(
                part,
                field,
                f"{name} {word}",
                f"writes '{{{name}}} {word}', which reads '1 {word}' at {instance.id} ({name} = 1): write "
                f"{{{name}:plural({singular})}} (or plural({singular}|{word}) for an irregular plural)",
            )


__all__ = ["Plurals", "shown_text"]
