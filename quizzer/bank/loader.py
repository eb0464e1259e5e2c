"""Loading question packs: every questions/*.toml file, strictly validated, bad templates skipped."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable, Iterator
from typing import Any

from quizzer.bank.errors import TemplateError
from quizzer.bank.schema import Template, parse_template


class Bank:
    """The templates of one or more packs. Files are parsed at load; a template is validated on first use.

    Problems (TOML syntax errors, files of the wrong shape, duplicate ids, invalid templates) are collected
    in ``problems``; they never stop the other templates loading.
    """

    def __init__(self) -> None:
        self._raw: dict[str, tuple[str, dict[str, Any]]] = {}
        self._valid: dict[str, Template] = {}
        self._invalid: dict[str, TemplateError] = {}
        self.file_problems: list[TemplateError] = []

    def add_file(self, path: str) -> None:
        """Parse one TOML file; its templates join the bank, its problems the report."""
        try:
            with open(path, "rb") as fh:
                data = tomllib.load(fh)
        except tomllib.TOMLDecodeError as exc:
            self.file_problems.append(TemplateError(path, None, None, f"TOML syntax error: {exc}"))
            return
        except OSError as exc:
            self.file_problems.append(TemplateError(path, None, None, f"cannot read: {exc.strerror}"))
            return
        unknown = sorted(set(data) - {"template"})
        if unknown:
            self.file_problems.append(
                TemplateError(
                    path, None, unknown[0], "unknown top-level key; templates go in [[template]] tables"
                )
            )
        templates = data.get("template", [])
        if not isinstance(templates, list):
            self.file_problems.append(
                TemplateError(path, None, "template", "write templates as [[template]]")
            )
            return
        for index, raw in enumerate(templates):
            tid = raw.get("id") if isinstance(raw, dict) else None
            if not isinstance(tid, str) or not tid:
                self.file_problems.append(TemplateError(path, None, f"template[{index}].id", "is required"))
            elif tid in self._raw:
                first = self._raw[tid][0]
                self.file_problems.append(
                    TemplateError(
                        path,
                        tid,
                        "id",
                        f"already used by {first}; this copy is skipped (ids are never reused)",
                    )
                )
            else:
                self._raw[tid] = (path, raw)

    def add_dir(self, directory: str) -> None:
        """Every ``*.toml`` file in ``directory`` (not recursive), in name order."""
        try:
            names = sorted(n for n in os.listdir(directory) if n.endswith(".toml"))
        except OSError as exc:
            self.file_problems.append(
                TemplateError(directory, None, None, f"cannot list the folder: {exc.strerror}")
            )
            return
        for name in names:
            self.add_file(os.path.join(directory, name))

    def ids(self) -> list[str]:
        """Every template id found, valid or not, in load order."""
        return list(self._raw)

    def path_of(self, template_id: str) -> str:
        return self._raw[template_id][0]

    def get(self, template_id: str) -> Template:
        """The validated template; raises TemplateError if it is invalid, KeyError if unknown."""
        if template_id in self._valid:
            return self._valid[template_id]
        if template_id in self._invalid:
            raise self._invalid[template_id]
        path, raw = self._raw[template_id]
        try:
            template = parse_template(raw, path)
            from quizzer.bank.render import check_names

            check_names(template)
        except TemplateError as exc:
            self._invalid[template_id] = exc
            raise
        self._valid[template_id] = template
        return template

    def templates(self) -> list[Template]:
        """Every valid template (invalid ones are reported by ``problems``)."""
        out = []
        for tid in self._raw:
            try:
                out.append(self.get(tid))
            except TemplateError:
                continue
        return out

    def problems(self) -> list[TemplateError]:
        """File problems, then every invalid template's problem."""
        self.templates()
        return [*self.file_problems, *self._invalid.values()]

    def __iter__(self) -> Iterator[Template]:
        return iter(self.templates())

    def __len__(self) -> int:
        return len(self.templates())


def load_bank(paths: Iterable[str]) -> Bank:
    """A bank from folders of ``*.toml`` files or single files; earlier paths win on duplicate ids."""
    bank = Bank()
    for path in paths:
        if os.path.isdir(path):
            bank.add_dir(path)
        elif os.path.exists(path) or path.endswith(".toml"):
            bank.add_file(path)
        else:
            bank.file_problems.append(TemplateError(path, None, None, "no such file or folder"))
    return bank


def suggest_id(bank: Bank, template_id: str) -> str:
    """A 'did you mean' hint for an unknown id."""
    import difflib

    hint = difflib.get_close_matches(template_id, bank.ids(), n=1)
    return f" (did you mean {hint[0]!r}?)" if hint else ""
