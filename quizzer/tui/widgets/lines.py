"""Lines the screens show, built as Content: what a user typed or a pack wrote is never parsed as markup."""

from __future__ import annotations

from collections.abc import Iterable

from textual.content import Content

from quizzer.bank.generate.hints import Hint
from quizzer.bank.generate.render import Instance
from quizzer.core.markdown import md_escape as md_escape  # the screens take it from here
from quizzer.core.trace import num

Part = str | tuple[str, str]

VERDICT_WORDS = {
    "exact": "✓ Exact",
    "correct": "✓ Correct",
    "consistent": "✓ Consistent",
    "imprecise": "≈ Right, but too few figures",
    "close": "≈ Close",
    "wrong": "✗ Wrong",
    "unparsed": "? Can't read that",
    "skipped": "→ Skipped",
}


def line(*parts: Part) -> Content:
    """Plain text and (text, style) pairs joined into one Content; no part is read as markup."""
    return Content.assemble(*parts)


def dim(text: str) -> Content:
    """``text`` in the dim style (key hints under the answer box)."""
    return Content.assemble((text, "dim"))


def plain(text: str) -> Content:
    """``text`` exactly as given, brackets and backslashes included."""
    return Content(text)


def meta_line(instance: Instance, *, kind: bool = False) -> Content:
    """Title in bold, then topic · difficulty (· kind) · expected minutes, and the instance id dimmed."""
    facts = [
        *([f"{instance.part_count} parts"] if instance.part_count > 1 else []),
        instance.topic,
        instance.difficulty,
        *([instance.kind] if kind else []),
        f"~{instance.minutes:g} min",
    ]
    return line((instance.title, "bold"), "  " + " · ".join(facts) + "  ", (instance.id, "dim"))


def verdict_line(kind: str, text: str, feedback: str | None = None) -> Content:
    """The verdict word in bold, what it says of the answer, and the feedback of a known slip below."""
    parts: list[Part] = [(VERDICT_WORDS[kind], "bold"), "  " + text]
    if feedback:
        parts.append("\n" + feedback)
    return line(*parts)


def hint_lines(hints: Iterable[Hint]) -> Content:
    """One line per revealed hint: a nudge as written, a derivation step as label, formula, the numbers
    substituted and the result."""
    rows: list[Part] = []
    for i, hint in enumerate(hints, 1):
        if rows:
            rows.append("\n")
        rows.append((f"Hint {i}", "bold"))
        if isinstance(hint, str):
            rows.append(f" {hint}")
        else:
            rows.append(f" {hint.label}: {hint.formula} = {hint.substituted} = {num(hint.value)} {hint.unit}")
    return line(*rows)


#: From this width the status line shows the whole instance id; below it, the seed only.
FULL_ID_WIDTH = 100


def instance_label(instance_id: str, width: int) -> str:
    """The instance id as the status line shows it: whole from FULL_ID_WIDTH columns, else ``…#seed``.

    >>> instance_label("kv-cache-bytes#41", 120), instance_label("kv-cache-bytes#41", 80)
    ('kv-cache-bytes#41', '…#41')
    """
    if width >= FULL_ID_WIDTH:
        return instance_id
    return "…#" + instance_id.rpartition("#")[2]
