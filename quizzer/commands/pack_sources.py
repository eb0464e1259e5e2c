"""The packs a verb loads and where each comes from: the built-in bank, QUIZZER_QUESTIONS, --questions,
config.toml's ``packs``, and installed packages (the ``quizzer.packs`` entry points), in that order.

Earlier packs win on a duplicate id (the later copy is reported and skipped), so the built-in bank always
keeps its ids. A pack that cannot be loaded (a folder config.toml names that is missing, an entry point
that gives no folder) is a problem naming it, never an error: the other packs load.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from quizzer.bank.errors import TemplateError
from quizzer.bank.loader import Bank, Later, PackPaths, load_bank
from quizzer.core.record import Record
from quizzer.paths import config_file, questions_dir

if TYPE_CHECKING:
    from quizzer.config import Settings

#: The sources, as ``pack list`` names them.
BUILT_IN, ENVIRONMENT, FLAG, CONFIG, INSTALLED = (
    "built-in",
    "QUIZZER_QUESTIONS",
    "--questions",
    "config.toml",
    "entry point",
)


class Pack(Record):
    """One pack: where it comes from, its folder (or file), and for an installed one its entry point."""

    source: str
    """BUILT_IN, ENVIRONMENT, FLAG, CONFIG or INSTALLED."""
    path: str | None
    """The folder (or one file) of ``*.toml``; None for an installed pack whose folder was not found."""
    name: str = ""
    """An installed pack's entry-point name."""
    dist: str = ""
    """An installed pack's distribution (what pip installed)."""
    problem: TemplateError | None = None
    """Why the pack is not loaded (a missing folder, a broken entry point); None when it is."""

    @property
    def label(self) -> str:
        """The source for people: ``entry point my-pack (quizzer-pack-my-pack)`` for an installed pack."""
        return f"{self.source} {self.name} ({self.dist})" if self.source == INSTALLED else self.source


def named_packs(extra: Sequence[str] = ()) -> list[Pack]:
    """The packs a command names: the built-in bank, QUIZZER_QUESTIONS (os.pathsep-separated), --questions;
    reads no file."""
    env = [p for p in os.environ.get("QUIZZER_QUESTIONS", "").split(os.pathsep) if p]
    return [
        Pack(BUILT_IN, questions_dir()),
        *(Pack(ENVIRONMENT, p) for p in env),
        *(Pack(FLAG, p) for p in extra),
    ]


def standing_packs(settings: Settings | None = None) -> list[Pack]:
    """The packs loaded without being named: config.toml's ``packs`` (from ``settings``, else the file,
    whose errors are then a problem, not a failure) and the installed ones."""
    from quizzer.config import ConfigError, Settings, load_settings  # read when first needed: not by `show`

    config = config_file()
    packs: list[Pack] = []
    if settings is None:
        try:
            settings = load_settings(config)
        except ConfigError as exc:
            message = f"{str(exc).removeprefix(f'{config}: ')}: its packs are not loaded"
            packs.append(Pack(CONFIG, None, problem=TemplateError(config, None, None, message)))
            settings = Settings()
    for folder in settings.packs:
        problem = None
        if not os.path.isdir(folder):
            what = "no such folder" if not os.path.exists(folder) else "not a folder"
            problem = TemplateError(folder, None, None, f"{what}: the packs of {config} name it; skipped")
        packs.append(Pack(CONFIG, folder, problem=problem))
    return packs + installed()


def installed(search_path: Sequence[str] | None = None) -> list[Pack]:
    """The packs of the ``quizzer.packs`` entry points on ``search_path`` (default: sys.path)."""
    from quizzer.commands.installed_packs import GROUP, PackFolderError, entry_points, pack_folders

    packs: list[Pack] = []
    for point in entry_points(search_path):
        where = f"the installed package {point.dist} (entry point {GROUP}: {point.name} = {point.value})"
        try:
            folders = pack_folders(point)
        except PackFolderError as exc:
            broken = TemplateError(where, None, None, f"{exc}; its pack is skipped")
            packs.append(Pack(INSTALLED, None, point.name, point.dist, broken))
            continue
        for folder in folders:
            missing = None
            if not os.path.isdir(folder):
                missing = TemplateError(where, None, None, f"{folder} is not a folder; its pack is skipped")
            packs.append(Pack(INSTALLED, folder, point.name, point.dist, missing))
    return packs


def loaded_packs(extra: Sequence[str] = (), settings: Settings | None = None) -> list[Pack]:
    """Every pack, in load order; a folder named twice (by config.toml and --questions) counts once, first."""
    return unique([*named_packs(extra), *standing_packs(settings)])


def unique(packs: Sequence[Pack]) -> list[Pack]:
    """``packs`` without the later ones of the same folder (its files would be duplicates of themselves)."""
    seen: set[str] = set()
    out: list[Pack] = []
    for pack in packs:
        if pack.path is not None and pack.problem is None:
            key = os.path.realpath(pack.path)
            if key in seen:
                continue
            seen.add(key)
        out.append(pack)
    return out


def pack_of(packs: Sequence[Pack], file: str) -> Pack | None:
    """The first of ``packs`` that ``file`` (a template file, or a pack's own path) belongs to: the pack is
    that file or its folder."""
    file = os.path.normpath(file)
    for pack in packs:
        if pack.path is not None and pack.problem is None:
            if os.path.normpath(pack.path) in (file, os.path.dirname(file)):
                return pack
    return None


def paths_and_problems(packs: Sequence[Pack]) -> tuple[list[str], list[TemplateError]]:
    """The paths to load (the packs without a problem) and the problems of the others."""
    paths = [p.path for p in packs if p.path is not None and p.problem is None]
    return paths, [p.problem for p in packs if p.problem is not None]


def pack_paths(extra: Sequence[str] = (), settings: Settings | None = None) -> PackPaths:
    """The paths of every pack: the named ones, then config.toml's and the installed ones as ``later``,
    looked for once, when a bank first needs them (any bank, in any thread: the app's are made in workers).

    An id the named packs hold is never changed by the later ones (earlier packs win), so `quizzer show` of
    a built-in id reads no config and scans no installed package, and the app opened on Home looks for them
    in the worker that loads the bank, after its first paint.
    """
    named = unique(named_packs(extra))
    return PackPaths(paths_and_problems(named)[0], _Once(lambda: _after(named, settings)))


def _after(named: list[Pack], settings: Settings | None) -> tuple[list[str], list[TemplateError]]:
    """The paths and problems of the packs loaded after the ``named`` ones."""
    return paths_and_problems(unique([*named, *standing_packs(settings)])[len(named) :])


class _Once:
    """``later()`` called once whatever the thread, every call returning its result (a call that raises is
    tried again by the next)."""

    def __init__(self, later: Later) -> None:
        import _thread  # built in: threading's import would cost `quizzer show` ~4 ms

        self._later, self._lock = later, _thread.allocate_lock()
        self._result: tuple[Sequence[str], Sequence[TemplateError]] | None = None

    def __call__(self) -> tuple[Sequence[str], Sequence[TemplateError]]:
        with self._lock:
            if self._result is None:
                self._result = self._later()
            return self._result


def open_packs(extra: Sequence[str] = ()) -> Bank:
    """The bank of every pack (``pack_paths``): the named ones now, the others when first needed."""
    return load_bank(pack_paths(extra))


def full_bank(packs: Sequence[Pack]) -> Bank:
    """The bank of ``packs`` loaded at once, the problems of the packs that cannot be loaded first."""
    paths, problems = paths_and_problems(packs)
    bank = load_bank(paths)
    bank.file_problems[:0] = problems
    return bank
