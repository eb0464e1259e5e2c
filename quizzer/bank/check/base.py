"""Lint: one authoring lint of ``quizzer check``, seeing every drawn instance of a template, finding once."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from quizzer.bank.errors import TemplateError

if TYPE_CHECKING:
    from quizzer.bank.generate.instance import Instance
    from quizzer.bank.read.schema import PartSpec, Template


class Lint:
    """A lint over one template: ``visit`` is called with each instance the check draws, then ``problems``.

    A finding names the file, the template and the field (under ``parts[i].`` for a later part); each
    (field, kind of finding) is reported once, with the first seed that shows it, so `quizzer show ID#SEED`
    replays it. A lint that reads only the template does its work in ``__init__`` and visits nothing.
    """

    #: The name `quizzer check --skip NAME` takes.
    name: ClassVar[str] = ""
    #: What the lint finds, in a line (`quizzer check --lints` and questions/README.md list them).
    finds: ClassVar[str] = ""
    #: Whether the lint sees a repeat: an instance whose every part drew the same numbers as one of an
    #: earlier seed (the same instance, but for its id). A lint that counts instances must; any other
    #: finds nothing new in it (each finding is reported once, with its first seed) and is not shown it.
    sees_repeats: ClassVar[bool] = False

    def __init__(self, template: Template) -> None:
        self.template = template
        self._found: dict[tuple[str, str], TemplateError] = {}

    def visit(self, instance: Instance, seed: int) -> None:
        """Look at one drawn instance (the default: nothing to see in it)."""

    def problems(self) -> list[TemplateError]:
        """The findings, in the order they were first made."""
        return list(self._found.values())

    def report(self, part: PartSpec | None, field: str, kind: str, message: str) -> None:
        """Find ``message`` at ``field`` of ``part`` (None: a field of the template itself), unless the same
        field already has a finding of this ``kind``."""
        where = part.field(field) if part is not None else field
        if (where, kind) not in self._found:
            self._found[(where, kind)] = TemplateError(self.template.path, self.template.id, where, message)


__all__ = ["Lint"]
