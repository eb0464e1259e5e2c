"""The asked-unit lint: a prompt that asks "how many bytes" while a bare number is read in another unit.

A number typed without a unit is read in the part's display unit (MiB, GB, ms...). When the prompt's
question asks for the base unit ("How many bytes does it cache?") and neither it nor a convention names the
display unit or says how a bare number is read, a student who types the exact byte count is graded wrong
("read as 77,856,768 MiB"). The fix is in the template: ask in the display unit ("Answer in MiB."), say how
a bare number is read, or show the answer in the unit asked.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from quizzer.bank.check.base import Lint

if TYPE_CHECKING:
    from quizzer.bank.generate.instance import Instance

#: A question for a count of the base unit: "How many bytes", "how many seconds".
ASKED = re.compile(r"\bhow many \**(bytes|seconds)\b", re.IGNORECASE)


def unit_named(text: str, unit: str) -> bool:
    """Whether ``text`` asks for ``unit`` ("Answer in MiB.", "in GB", "as GiB") or says how a bare number
    is read; a value printed in it ("74.25 MiB", "an 80 GB GPU") does not.

    >>> unit_named("How many bytes? Answer in MiB.", "MiB"), unit_named("How many bytes (74 MiB)?", "MiB")
    (True, False)
    """
    asked = re.search(rf"\b(in|as) {re.escape(unit)}(?![\w/])", text)
    return bool(asked) or "bare number" in text.lower()


class AskedUnit(Lint):
    """A part whose prompt asks for bytes or seconds while a bare number is read in a scaled display unit that
    no text shown with it names."""

    name = "asked-unit"
    finds = 'a prompt asking "how many bytes" while a bare number is read in another unit no text names'

    def visit(self, instance: Instance, seed: int) -> None:
        for index, part in enumerate(instance.parts):
            asked = ASKED.search(part.prompt)
            display = part.display_unit
            if not asked or not display or display.lower() == asked.group(1).lower():
                continue
            shown = "\n".join(
                (part.prompt, part.tolerance_text, *(instance.conventions if index == 0 else ()))
            )
            if unit_named(shown, display):
                continue
            spec = self.template.parts[index]
            self.report(
                spec,
                "prompt",
                "asked unit",
                f"seed {seed}: the prompt asks 'how many {asked.group(1)}' but a bare number is read as "
                f"{display}: a student who types the exact {asked.group(1)} is graded wrong; ask in "
                f"{display} ('Answer in {display}.'), or set the part's display to {asked.group(1)}",
            )


__all__ = ["AskedUnit"]
