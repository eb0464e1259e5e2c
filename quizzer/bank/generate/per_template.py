"""What depends only on a template, worked out once per template object and kept beside it."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from quizzer.bank.read.schema import Template

T = TypeVar("T")

#: Templates kept per function, at most (the templates of a session, or of a check's process); then it
#: starts afresh.
KEPT = 512


def per_template(work: Callable[[Template], T]) -> Callable[[Template], T]:
    """``work``, its answer kept per template (by identity, the template kept beside it so that its id is
    not reused): a template is immutable. The answer is shared: never change it."""
    kept: dict[int, tuple[Template, Any]] = {}

    @wraps(work)
    def once(template: Template) -> T:
        found = kept.get(id(template))
        if found is not None and found[0] is template:
            return found[1]  # type: ignore[no-any-return]
        if len(kept) >= KEPT:
            kept.clear()
        answer = work(template)
        kept[id(template)] = (template, answer)
        return answer

    return once


__all__ = ["per_template"]
