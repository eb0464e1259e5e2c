"""Ids a pack shares with other packs: `quizzer check PACK` names each, though it checks PACK alone."""

from __future__ import annotations

import os
from collections.abc import Callable

from quizzer.bank.errors import TemplateError
from quizzer.bank.loader import Bank


def collisions(bank: Bank, others: Bank, where: Callable[[str], str] = str) -> list[TemplateError]:
    """A problem for each template id of ``bank`` that ``others`` holds in another file.

    Wherever both are loaded only the copy loaded first is used (the built-in bank is always first), so the
    other is shadowed: the problem names both files (``where`` says how ``others``' file is named, e.g.
    with its pack's source). The same file in both (a pack that is also loaded) is not a collision.
    """
    out: list[TemplateError] = []
    for template_id in bank.ids():
        mine = bank.file_of(template_id)
        theirs = others.file_of(template_id) if template_id in others else None
        if mine is None or theirs is None or _same_file(mine, theirs):
            continue
        out.append(
            TemplateError(
                mine,
                template_id,
                "id",
                f"already used by {where(theirs)}: wherever both are loaded, the copy loaded first is used "
                "and the other skipped (ids are never reused); give this template an id of its own",
            )
        )
    return out


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)
