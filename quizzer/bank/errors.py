"""TemplateError: a template problem naming the file, the template and the field; ExprError."""

from __future__ import annotations

from typing import Any

from quizzer.bank.limits import MAX_FIELD_CHARS, MAX_MESSAGE_CHARS
from quizzer.core.errors import QuizzerError


def shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, the cut marked with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def short_repr(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters for a message; a value nested too deep is named."""
    try:
        text = repr(value)
    except RecursionError:
        text = f"a deeply nested {type(value).__name__}"
    return shorten(text, limit)


class TemplateError(QuizzerError, ValueError):
    """A template problem. ``str()`` reads ``file: template 'id': field 'x': what is wrong``."""

    def __init__(self, path: str, template_id: str | None, field: str | None, message: str) -> None:
        self.path, self.template_id = path, template_id
        self.field = None if field is None else shorten(field, MAX_FIELD_CHARS)
        self.message = shorten(message, MAX_MESSAGE_CHARS)
        super().__init__(str(self))

    def __str__(self) -> str:
        where = [self.path]
        if self.template_id:
            where.append(f"template {short_repr(self.template_id, MAX_FIELD_CHARS)}")
        if self.field:
            where.append(f"field {self.field!r}")
        return ": ".join([*where, self.message])

    # Picklable across worker processes: rebuilt from the four fields, not from str(self).
    def __reduce__(self) -> tuple[type[TemplateError], tuple[str, str | None, str | None, str]]:
        return (type(self), (self.path, self.template_id, self.field, self.message))


class ExprError(QuizzerError, ValueError):
    """An expression that is not part of the language, or fails to evaluate; the message says why."""


class PartError(QuizzerError, ValueError):
    """A part number a chain does not have, or an earlier answer given for a part that is not earlier."""
