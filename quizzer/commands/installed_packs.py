"""Packs installed as Python packages: the ``quizzer.packs`` entry points, found without importlib.metadata.

The convention: a distribution declares, in its pyproject.toml,

    [project.entry-points."quizzer.packs"]
    my-pack = "quizzer_pack_my_pack"

where the value names a package whose folder holds the pack's ``*.toml`` (found with find_spec: the package
itself is not imported), or ``module:attr``, an attribute that is a folder's path or a function of no
arguments returning one (the module is imported). The entry point's name is the pack's name.

The entry points are read from the ``entry_points.txt`` of each ``*.dist-info`` and ``*.egg-info`` folder on
``sys.path``, as importlib.metadata reads them (the first distribution of a name on the path wins), but
without importing it: its imports take ~30 ms, half of `quizzer show`'s whole start. The scan reads one small
file per installed distribution (~1 ms for ~90) and only when a verb needs more than the built-in bank;
tests/packs compares what it finds with importlib.metadata's ``entry_points``.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence

from quizzer.core.record import Record

#: The entry-point group a pack is published under.
GROUP = "quizzer.packs"
_GROUP_BYTES = GROUP.encode()
#: An entry point's value: ``module`` or ``module:attr``, then optional ``[extras]`` (importlib.metadata's).
_VALUE = re.compile(r"(?P<module>[\w.]+)\s*(?::\s*(?P<attr>[\w.]+)\s*)?(?:\[.*\])?\s*$")
#: Bytes of an entry_points.txt or METADATA read at most: a real one holds a few hundred.
_MAX_BYTES = 1 << 20


class EntryPoint(Record):
    """One ``quizzer.packs`` entry point: its name, its value as written, the distribution declaring it."""

    name: str
    value: str
    dist: str


class PackFolderError(Exception):
    """An entry point that gives no pack folder; the message says why, for people."""


def entry_points(search_path: Sequence[str] | None = None) -> list[EntryPoint]:
    """The ``quizzer.packs`` entry points of the distributions on ``search_path`` (default: ``sys.path``),
    in path order; a distribution found twice counts once, where it is first found."""
    found: list[EntryPoint] = []
    seen: set[str] = set()
    for entry in sys.path if search_path is None else search_path:
        try:
            names = sorted(os.listdir(entry or "."))
        except OSError:  # a zip file, a folder that is gone
            continue
        for name in names:
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            stem = name.rpartition(".")[0].partition("-")[0]
            dist = stem.lower().replace("_", "-").replace(".", "-")  # enough to tell two copies apart
            if dist in seen:
                continue
            seen.add(dist)
            folder = os.path.join(entry or ".", name)
            data = _small_bytes(os.path.join(folder, "entry_points.txt"))
            if data is None or _GROUP_BYTES not in data:  # most distributions: never decoded
                continue
            text = data.decode("utf-8", "replace")
            found.extend(EntryPoint(n, v, _dist_name(folder) or stem) for n, v in _section(text, GROUP))
    return found


def pack_folders(point: EntryPoint) -> list[str]:
    """The folders of the pack ``point`` gives; raises PackFolderError, saying why, when it gives none.

    Nothing an installed package does (a missing module, an import that fails, a function that raises)
    escapes as anything but PackFolderError.
    """
    match = _VALUE.match(point.value)
    if match is None:
        raise PackFolderError(f"{point.value!r} is not `package` or `module:attribute`")
    module, attr = match.group("module"), match.group("attr")
    try:
        if attr is None:
            return _package_folders(module)
        return [_folder_from(module, attr)]
    except PackFolderError:
        raise
    except ImportError as exc:
        raise PackFolderError(f"cannot import {exc.name or module!r}: {exc}") from None
    except Exception as exc:  # the package's own code: never a traceback
        raise PackFolderError(f"{type(exc).__name__}: {exc}") from None


def _package_folders(module: str) -> list[str]:
    """The folders of the package ``module``, found without importing it (find_spec imports its parents)."""
    from importlib.util import find_spec

    spec = find_spec(module)
    if spec is None:
        raise PackFolderError(f"no package {module!r} is installed")
    locations = list(spec.submodule_search_locations or ())
    if not locations:
        raise PackFolderError(
            f"{module!r} is a module, not a package: name a package whose folder holds the *.toml"
        )
    return [str(location) for location in locations]


def _folder_from(module: str, attr: str) -> str:
    """The folder ``module:attr`` names: a path, or a function of no arguments returning one."""
    import importlib

    value: object = importlib.import_module(module)
    for part in attr.split("."):
        value = getattr(value, part)
    if callable(value):
        value = value()
    if not isinstance(value, str | os.PathLike):
        raise PackFolderError(f"{module}:{attr} gave {type(value).__name__}, not the path of a folder")
    return os.fspath(value)


def _small_bytes(path: str) -> bytes | None:
    """The bytes of a small metadata file (at most ``_MAX_BYTES``), None when there is none."""
    try:
        with open(path, "rb") as handle:
            return handle.read(_MAX_BYTES)
    except OSError:
        return None


def _section(text: str, group: str) -> list[tuple[str, str]]:
    """The ``name = value`` lines of the ``[group]`` section of an entry_points.txt (an INI file)."""
    out: list[tuple[str, str]] = []
    inside = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            inside = line[1:-1].strip() == group
            continue
        if inside:
            name, sep, value = line.partition("=")
            if sep and name.strip():
                out.append((name.strip(), value.strip()))
    return out


def _dist_name(folder: str) -> str | None:
    """The ``Name:`` of a distribution's METADATA (PKG-INFO in an egg-info), as its author wrote it."""
    for file in ("METADATA", "PKG-INFO"):
        data = _small_bytes(os.path.join(folder, file))
        if data is None:
            continue
        for line in data.decode("utf-8", "replace").splitlines():
            if not line.strip():
                break  # the headers end at the first blank line
            key, _, value = line.partition(":")
            if key.strip().lower() == "name" and value.strip():
                return value.strip()
    return None
