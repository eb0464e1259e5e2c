"""Loading question packs: every questions/*.toml file, strictly validated, bad templates skipped."""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from quizzer.bank.errors import TemplateError
from quizzer.bank.schema import Template, parse_template
from quizzer.core.checks import did_you_mean

if TYPE_CHECKING:
    from quizzer.bank.render import Instance

#: A template id line, found without parsing the file, so `show ID` parses only the file that holds ID.
_ID_LINE = re.compile(rb'^[ \t]*(?:id|"id"|\'id\')[ \t]*=[ \t]*["\']([^"\'\n]+)["\']', re.MULTILINE)


class Bank:
    """The templates of one or more packs, in the order their files were added.

    A file is parsed when a template in it is first needed (``get`` finds it by a text scan for its id;
    ``ids``, ``templates`` and ``problems`` parse everything); a template is validated on first use.
    Problems (TOML syntax errors, files of the wrong shape, duplicate ids, invalid templates) are collected;
    they never stop the other templates loading.
    """

    def __init__(self) -> None:
        self._files: list[str] = []
        self._parsed: set[str] = set()
        self._scan: dict[str, list[str]] = {}
        self._raw: dict[str, tuple[str, dict[str, Any]]] = {}
        self._valid: dict[str, Template] = {}
        self._invalid: dict[str, TemplateError] = {}
        self.file_problems: list[TemplateError] = []

    def add_file(self, path: str) -> None:
        """Add one TOML file (parsed on demand)."""
        self._files.append(path)
        try:
            with open(path, "rb") as fh:
                text = fh.read()
        except OSError:
            return  # reported when the file is parsed
        for match in _ID_LINE.finditer(text):
            self._scan.setdefault(match.group(1).decode("utf-8", "replace"), []).append(path)

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

    def _parse_file(self, path: str) -> None:
        if path in self._parsed:
            return
        self._parsed.add(path)
        problem = lambda field, message: self.file_problems.append(TemplateError(path, None, field, message))  # noqa: E731
        try:
            with open(path, "rb") as fh:
                data = tomllib.load(fh)
        except tomllib.TOMLDecodeError as exc:
            problem(None, f"TOML syntax error: {exc}")
            return
        except OSError as exc:
            problem(None, f"cannot read: {exc.strerror}")
            return
        unknown = sorted(set(data) - {"template"})
        if unknown:
            problem(unknown[0], "unknown top-level key; templates go in [[template]] tables")
        templates = data.get("template", [])
        if not isinstance(templates, list):
            problem("template", "write templates as [[template]]")
            return
        for index, raw in enumerate(templates):
            tid = raw.get("id") if isinstance(raw, dict) else None
            if not isinstance(tid, str) or not tid:
                problem(f"template[{index}].id", "is required")
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
            elif path not in self._scan.get(tid, ()):
                self.file_problems.append(
                    TemplateError(
                        path,
                        tid,
                        "id",
                        f'write the id on a line of its own, as id = "{tid}", so the template can be found '
                        "without parsing every file; this template is skipped",
                    )
                )
            else:
                self._raw[tid] = (path, raw)

    def _parse_all(self) -> None:
        for path in self._files:
            self._parse_file(path)

    def ids(self) -> list[str]:
        """Every template id found, valid or not, in load order."""
        self._parse_all()
        return list(self._raw)

    def scanned_ids(self) -> list[str]:
        """The template ids found by the text scan, in load order, without parsing any file.

        May hold an id that turns out not to be a template (``get`` raises KeyError for it); never misses
        one, since a template whose id the scan cannot see is skipped with a problem.
        """
        return list(self._scan)

    def peek(self, template_id: str) -> Mapping[str, Any] | None:
        """The template's table as written (its file parsed, nothing validated); None if unknown."""
        if not self._locate(template_id):
            return None
        return self._raw[template_id][1]

    def __contains__(self, template_id: object) -> bool:
        return isinstance(template_id, str) and self._locate(template_id)

    def _locate(self, template_id: str) -> bool:
        """Parse what is needed to know ``template_id``: only its file when the scan finds it in one."""
        if template_id not in self._raw:
            candidates = self._scan.get(template_id, [])
            if len(candidates) == 1:
                self._parse_file(candidates[0])
            if template_id not in self._raw or len(candidates) != 1:
                self._parse_all()  # not found by the scan, or several files claim it: keep file order
        return template_id in self._raw

    def get(self, template_id: str) -> Template:
        """The validated template; raises TemplateError if it is invalid, KeyError if unknown."""
        if template_id in self._valid:
            return self._valid[template_id]
        if template_id in self._invalid:
            raise self._invalid[template_id]
        if not self._locate(template_id):
            raise KeyError(template_id)
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

    def generate(self, template_id: str, seed: int, overrides: Mapping[str, Any] | None = None) -> Instance:
        """The instance ``template_id#seed``, deterministic for a seed; ``overrides`` fix variables."""
        from quizzer.bank.render import generate

        return generate(self.get(template_id), seed, overrides)

    def templates(self) -> list[Template]:
        """Every valid template (invalid ones are reported by ``problems``)."""
        out = []
        for tid in self.ids():
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
    return did_you_mean(template_id, bank.ids())
