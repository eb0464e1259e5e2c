"""TemplateError: a problem in an authored template, naming the file, the template and the field."""

from __future__ import annotations

from quizzer.core.errors import QuizzerError


class TemplateError(QuizzerError, ValueError):
    """A template problem. ``str()`` reads ``file: template 'id': field 'x': what is wrong``."""

    def __init__(self, path: str, template_id: str | None, field: str | None, message: str) -> None:
        self.path, self.template_id, self.field, self.message = path, template_id, field, message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = [self.path]
        if self.template_id:
            where.append(f"template {self.template_id!r}")
        if self.field:
            where.append(f"field {self.field!r}")
        return ": ".join([*where, self.message])

    def __reduce__(self):  # type: ignore[no-untyped-def]  # picklable across worker processes
        return (type(self), (self.path, self.template_id, self.field, self.message))
