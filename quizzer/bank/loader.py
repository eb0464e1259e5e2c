"""Loading question packs: *.toml files, strictly validated; a bad file or template is named and skipped."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from quizzer.bank.errors import TemplateError
from quizzer.bank.heap import settle_heap
from quizzer.bank.limits import MAX_FILE_BYTES
from quizzer.bank.read.control import CONTROL, neutralised, visible
from quizzer.bank.read.files import NotAFile, TooLarge, Unreadable, parse_toml, read_regular
from quizzer.bank.read.schema import Template, parse_template
from quizzer.core.checks import did_you_mean

if TYPE_CHECKING:
    from quizzer.bank.generate.render import Instance

#: What ``peek`` keeps of a validated template's table: its scalar fields.
_SCALARS = (str, int, float, bool)

#: A template id line, found without parsing the file, so `show ID` parses only the file that holds ID. It
#: starts with the newline before the line (the scan puts one before the file's first line): a literal
#: first character lets the regex engine jump from newline to newline, six times faster than ``^`` under
#: re.MULTILINE, which is tried at every byte; the lines matched are the same.
_ID_LINE = re.compile(rb'\n[ \t]*(?:id|"id"|\'id\')[ \t]*=[ \t]*["\']([^"\'\n]+)["\']')
#: The *.toml of a pack folder that are never templates: a pack published as a Python package keeps its
#: pyproject.toml beside them.
NOT_TEMPLATES = frozenset({"pyproject.toml"})
#: What ``Bank.defer`` is given: a function returning more pack paths and the problems of finding them.
Later = Callable[[], tuple[Sequence[str], Sequence[TemplateError]]]


class Bank:
    """The templates of one or more packs, in the order their files were added.

    A file is parsed when a template in it is first needed (``get`` finds it by a text scan for its id
    line, made only in the files whose text holds the id; ``ids``, ``templates`` and ``problems`` parse
    everything); a template is validated on first use.
    Problems (unreadable files, files over ``MAX_FILE_BYTES``, anything but a regular file, text that is
    not UTF-8, TOML syntax errors, files of the wrong shape, duplicate ids, invalid templates) are
    collected; they never stop the other templates loading, and no method raises for anything a file
    contains. A template whose texts or keys hold a control character is invalid (named by its first such
    field), and its table as ``peek`` returns it shows them as escapes: no pack can drive the terminal.
    """

    def __init__(self) -> None:
        self._files: list[str] = []
        self._parsed: set[str] = set()
        self._unscanned: dict[str, bytes] = {}  # the text of each file read, until its id lines are scanned
        self._file_ids: dict[str, tuple[str, ...]] = {}  # the ids of each scanned file's id lines
        self._raw: dict[str, tuple[str, dict[str, Any]]] = {}
        self._valid: dict[str, Template] = {}
        self._invalid: dict[str, TemplateError] = {}
        self._failed: dict[str, TemplateError] = {}
        self._control: dict[str, TemplateError] = {}  # templates whose texts held control characters
        self._later: list[Later] = []  # packs added when first needed (``defer``)
        self.file_problems: list[TemplateError] = []

    def add_path(self, path: str) -> None:
        """A folder of ``*.toml`` (``add_dir``) or one file; a path that is neither is a problem."""
        if os.path.isdir(path):
            self.add_dir(path)
        elif os.path.exists(path) or path.endswith(".toml"):
            self.add_file(path)
        else:
            self.file_problems.append(TemplateError(path, None, None, "no such file or folder"))

    def defer(self, later: Later) -> None:
        """Packs added after every other, when first needed: an id the packs added so far do not hold, or a
        method that reads every template (``ids``, ``scanned_ids``, ``templates``, ``problems``). Since
        earlier packs win on duplicate ids, an id found without them is the one they would not change:
        `quizzer show ID` of a built-in template never reads config.toml or looks for installed packs."""
        self._later.append(later)

    def _add_later(self) -> bool:
        """Add the deferred packs (their problems first); whether there were any."""
        if not self._later:
            return False
        pending, self._later = self._later, []
        for later in pending:
            paths, problems = later()
            self.file_problems.extend(problems)
            for path in paths:
                self.add_path(path)
        return True

    def add_file(self, path: str) -> None:
        """Add one TOML file (parsed on demand); a file over ``MAX_FILE_BYTES``, anything but a regular file
        (a folder, a FIFO, a device: never opened), or a path holding a control character (named with
        escapes: a problem is shown in the terminal and on Home) is reported and skipped."""
        if CONTROL.search(path):
            message = (
                "its name holds a control character (shown as \\xNN); rename it (its templates are skipped)"
            )
            self.file_problems.append(TemplateError(visible(path), None, None, message))
            return
        try:
            text = _read(path)
        except OSError:
            self._files.append(path)
            return  # reported when the file is parsed
        except _TooLarge as exc:
            self.file_problems.append(TemplateError(path, None, None, str(exc)))
            return
        except NotAFile as exc:
            self.file_problems.append(TemplateError(path, None, None, _not_a_file(exc)))
            return
        self._files.append(path)
        self._unscanned[path] = text

    def _ids_in(self, path: str) -> tuple[str, ...]:
        """The ids on the id lines of ``path`` (none for a file that could not be read), in file order."""
        ids = self._file_ids.get(path)
        if ids is None:
            text = b"\n" + self._unscanned.get(path, b"")
            ids = tuple(m.group(1).decode("utf-8", "replace") for m in _ID_LINE.finditer(text))
            self._file_ids[path] = ids
            self._unscanned.pop(path, None)  # after: the text is held until its ids are
        return ids

    def _files_with(self, template_id: str) -> list[str]:
        """The files with an id line for ``template_id``, in load order (as ``_ids_in`` of every file, but
        a file whose text does not hold the id's bytes cannot have its line and is not scanned)."""
        try:
            needle = template_id.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (from argv): no line decodes to it, scan as usual
            needle = b""
        if "\ufffd" in template_id:  # a line's undecodable bytes read as U+FFFD: any file may hold them
            needle = b""
        return [
            path
            for path in self._files
            if (path in self._file_ids or needle in self._unscanned.get(path, b""))
            and template_id in self._ids_in(path)
        ]

    def add_dir(self, directory: str) -> None:
        """Every ``*.toml`` file in ``directory`` (not recursive) but ``NOT_TEMPLATES``, in name order."""
        try:
            names = sorted(n for n in os.listdir(directory) if n.endswith(".toml") and n not in NOT_TEMPLATES)
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

        def problem(field: str | None, message: str) -> None:
            self.file_problems.append(TemplateError(path, None, field, message))

        try:
            data, may_hold_control = _load_toml(path)
        except _Unreadable as exc:
            problem(None, str(exc))
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
            elif tid not in self._ids_in(path):
                self.file_problems.append(
                    TemplateError(
                        path,
                        tid,
                        "id",
                        f'write the id on a line of its own, as id = "{visible(tid)}", so the template can '
                        "be found without parsing every file; this template is skipped",
                    )
                )
            else:
                table, fields = neutralised(raw) if may_hold_control else (raw, [])
                if fields:
                    self._control[tid] = _control_problem(path, visible(tid), fields)
                self._raw[tid] = (path, table)

    def _parse_all(self) -> None:
        self._add_later()
        for path in self._files:
            self._parse_file(path)

    def ids(self) -> list[str]:
        """Every template id found, valid or not, in load order."""
        self._parse_all()
        return list(self._raw)

    def matching_ids(self, *, topic: str | None = None, difficulty: str | None = None) -> list[str]:
        """The ids whose table as written has this topic and difficulty (None: any), in load order.

        Without a filter nothing is parsed (the ids of the text scan, as ``scanned_ids``); with one, each
        candidate's file is parsed, never validated: the one filter every mode uses.
        """
        if topic is None and difficulty is None:
            return self.scanned_ids()
        wanted = {"topic": topic, "difficulty": difficulty}
        return [
            template_id
            for template_id in self.scanned_ids()
            if (raw := self.peek(template_id)) is not None
            and all(value is None or raw.get(key) == value for key, value in wanted.items())
        ]

    def scanned_ids(self) -> list[str]:
        """The template ids found by the text scan, in load order, without parsing any file.

        May hold an id that turns out not to be a template (``get`` raises KeyError for it); never misses
        one, since a template whose id the scan cannot see is skipped with a problem.
        """
        self._add_later()
        return list(dict.fromkeys(tid for path in self._files for tid in self._ids_in(path)))

    def peek(self, template_id: str) -> Mapping[str, Any] | None:
        """The template's top-level fields as written (its file parsed, nothing validated); None if unknown.
        Once the template is validated only its scalar fields are kept (title, topic, difficulty...): its
        tables and arrays were most of a loaded bank's memory, and the Template holds them read."""
        if not self._locate(template_id):
            return None
        return self._raw[template_id][1]

    def __contains__(self, template_id: object) -> bool:
        return isinstance(template_id, str) and self._locate(template_id)

    def _locate(self, template_id: str) -> bool:
        """Parse what is needed to know ``template_id``: only its file when the scan finds it in one."""
        if template_id not in self._raw:
            candidates = self._files_with(template_id)
            if not candidates and self._add_later():
                candidates = self._files_with(template_id)
            if len(candidates) == 1:
                self._parse_file(candidates[0])
            if template_id not in self._raw or len(candidates) != 1:
                self._parse_all()  # not found by the scan, or several files claim it: keep file order
        return template_id in self._raw

    def file_of(self, template_id: str) -> str | None:
        """The file the template ``template_id`` is read from (the first that holds it); None if unknown."""
        if not self._locate(template_id):
            return None
        return self._raw[template_id][0]

    def get(self, template_id: str) -> Template:
        """The validated template; raises TemplateError if it is invalid, KeyError if unknown."""
        if template_id in self._valid:
            return self._valid[template_id]
        if template_id in self._invalid:
            raise self._invalid[template_id]
        if not self._locate(template_id):
            raise KeyError(template_id)
        if template_id in self._control:
            self._invalid[template_id] = self._control[template_id]
            raise self._control[template_id]
        path, raw = self._raw[template_id]
        try:
            template = parse_template(raw, path)
            from quizzer.bank.read.names import check_names

            check_names(template)
        except TemplateError as exc:
            self._invalid[template_id] = exc
            raise
        except Exception as exc:  # a case the checks missed: still this template's problem, never a crash
            error = TemplateError(path, template_id, None, f"cannot be read: {type(exc).__name__}: {exc}")
            self._invalid[template_id] = error
            raise error from None
        finally:  # validated once, valid or not: only what peek's readers take of the table is kept
            self._raw[template_id] = (path, {k: v for k, v in raw.items() if isinstance(v, _SCALARS)})
        self._valid[template_id] = template
        return template

    def generate(
        self, template_id: str, seed: int, overrides: Mapping[str, Any] | None = None, *, lazy: bool = False
    ) -> Instance:
        """The instance ``template_id#seed``, deterministic for a seed; ``overrides`` fix variables; with
        ``lazy``, the rest of it made on first need (``render.generate``; ``completed`` makes it).

        Raises TemplateError when the template cannot make this instance (a failed evaluation, the
        evaluation budget spent...); without overrides the failure is kept and listed by ``problems``.
        """
        from quizzer.bank.generate.render import generate

        template = self.get(template_id)
        try:
            return generate(template, seed, overrides, lazy=lazy)
        except TemplateError as exc:
            if not overrides:
                self._failed.setdefault(template_id, exc)
            raise

    def completed(self, instance: Instance) -> Instance:
        """``instance`` with every field made (a lazy one's rest); a TemplateError making it is kept, as
        ``generate``'s are, and raised."""
        try:
            return instance.complete()
        except TemplateError as exc:
            self._failed.setdefault(instance.template_id, exc)
            raise

    def why_missing(self, template_id: str) -> TemplateError | None:
        """The problem of the file the scan found ``template_id`` in, when that file could not be read."""
        paths = self._files_with(template_id)
        return next((p for p in self.file_problems if p.path in paths and p.template_id is None), None)

    def templates(self) -> list[Template]:
        """Every valid template (invalid ones are reported by ``problems``), in load order. Each file is
        parsed and its templates validated before the next is parsed: a table as written is dropped once
        validated, so the tables of the whole bank are never held at once (the app's peak memory).

        Once a load has validated files, what the process holds is frozen out of the garbage collector's
        scans (``settle_heap``)."""
        self._add_later()
        parsed = False
        for path in self._files:
            if path in self._parsed:
                continue
            self._parse_file(path)
            parsed = True
            for tid in [tid for tid, (found, _) in self._raw.items() if found == path]:
                try:
                    self.get(tid)
                except TemplateError:
                    continue
        if parsed:
            settle_heap()
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
        return self.known_problems()

    def known_problems(self) -> list[TemplateError]:
        """The problems found so far, parsing and validating nothing more: files, invalid templates, and
        templates that failed to generate an instance through ``generate``."""
        failed = [e for tid, e in self._failed.items() if tid not in self._invalid]
        return [*self.file_problems, *self._invalid.values(), *failed]

    def __iter__(self) -> Iterator[Template]:
        return iter(self.templates())

    def __len__(self) -> int:
        return len(self.templates())


class _TooLarge(Exception):
    """A file over MAX_FILE_BYTES."""


class _Unreadable(Exception):
    """A file that cannot be read as TOML; the message says why, for people."""


def _read(path: str) -> bytes:
    """The bytes of ``path``; raises OSError, NotAFile for anything but a regular file (a FIFO is never
    opened: reading it would block), or _TooLarge past ``MAX_FILE_BYTES`` (never reading more)."""
    try:
        return read_regular(path, MAX_FILE_BYTES)
    except TooLarge as exc:
        raise _TooLarge(
            f"the file is {exc.size:,} bytes, over the limit of {MAX_FILE_BYTES:,} bytes "
            f"({MAX_FILE_BYTES // (1 << 20)} MiB) for one pack file; split it into several files "
            "(its templates are skipped)"
        ) from None


def _not_a_file(exc: NotAFile) -> str:
    return f"is {exc}, not a file: skipped (only regular files are read)"


def _control_problem(path: str, template_id: str, fields: list[str]) -> TemplateError:
    """The problem of a template whose texts (or keys) hold control characters: its first such field, and
    the next few."""
    also = ""
    if len(fields) > 1:
        also = f" (so do {', '.join(fields[1:4])}{', …' if len(fields) > 4 else ''})"
    return TemplateError(
        path,
        template_id,
        fields[0],
        f"holds a control character{also}: a terminal acts on it instead of showing it (ESC, \\u001b, "
        "starts the sequences that retitle a window, clear the screen or set the clipboard); a text may "
        "hold newlines and tabs only (the template is skipped)",
    )


#: What a TOML file must hold for its parsed values to hold a control character other than tab and newline:
#: an escape that can make one, or a C1 character as UTF-8 (TOML refuses the other control characters
#: written as they are). Most files hold neither, and their templates are not walked.
_MAY_HOLD_CONTROL = re.compile(rb"\\[bfrUuex]|\xc2[\x80-\x9f]")


def _load_toml(path: str) -> tuple[dict[str, Any], bool]:
    """The parsed file, and whether its values may hold a control character; raises _Unreadable with a
    message naming what is wrong and where."""
    try:
        data = _read(path)
    except OSError as exc:
        raise _Unreadable(f"cannot read: {exc.strerror or exc}") from None
    except _TooLarge as exc:
        raise _Unreadable(str(exc)) from None
    except NotAFile as exc:
        raise _Unreadable(_not_a_file(exc)) from None
    try:
        return parse_toml(data), _MAY_HOLD_CONTROL.search(data) is not None
    except Unreadable as exc:
        message = str(exc)
        if message.startswith("TOML syntax error"):
            raise _Unreadable(message) from None
        raise _Unreadable(f"{message} (its templates are skipped)") from None


class PackPaths(list[str]):
    """The paths of the packs to load at once, and ``later``: the packs every bank made from them adds when
    first needed (``Bank.defer``). The app is given one: each bank it makes, in any thread, defers them."""

    def __init__(self, paths: Iterable[str] = (), later: Later | None = None) -> None:
        super().__init__(paths)
        self.later = later


def load_bank(paths: Iterable[str]) -> Bank:
    """A bank from folders of ``*.toml`` files or single files; earlier paths win on duplicate ids. The
    ``later`` packs of a PackPaths are deferred (``Bank.defer``): they come after every other."""
    bank = Bank()
    for path in paths:
        bank.add_path(path)
    if isinstance(paths, PackPaths) and paths.later is not None:
        bank.defer(paths.later)
    return bank


def suggest_id(bank: Bank, template_id: str) -> str:
    """A 'did you mean' hint for an unknown id."""
    return did_you_mean(template_id, bank.ids())
