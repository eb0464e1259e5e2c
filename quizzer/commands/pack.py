"""`quizzer pack new NAME` scaffolds a pack; `quizzer pack list` lists every pack loaded, with its source."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from quizzer.bank.errors import TemplateError
from quizzer.commands.common import UsageError
from quizzer.commands.pack_sources import Pack, loaded_packs, pack_of, paths_and_problems
from quizzer.core.words import counted


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.action == "new":
        if args.json:
            raise UsageError("--json is for pack list")
        return new(args.name, args.dir or ".")
    if args.name is not None:
        raise UsageError(f"pack list takes no NAME (got {args.name!r}); `quizzer pack new NAME` makes a pack")
    if args.dir is not None:
        raise UsageError("--dir is for pack new")
    rows = pack_rows(loaded_packs(args.questions))
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print_rows(rows)
    return 0


# --- pack new ---------------------------------------------------------------------------------------------


def new(name: str | None, where: str) -> int:
    """Write the pack ``name`` in a new folder of ``where``; a UsageError, nothing written, for a name that is
    no slug, a ``where`` that is no folder, or a folder ``name`` that exists."""
    from quizzer.commands.pack_scaffold import MAX_NAME_CHARS, SLUG

    if not name:
        raise UsageError("pack new needs the pack's NAME, e.g. `quizzer pack new my-pack`")
    if not SLUG.fullmatch(name) or len(name) > MAX_NAME_CHARS:
        raise UsageError(
            f"{name!r} is not a pack name: lower-case letters, digits and single dashes, a letter first, at "
            f"most {MAX_NAME_CHARS} characters (e.g. my-pack); it starts the templates' ids"
        )
    if not os.path.isdir(where):
        what = "not a folder" if os.path.exists(where) else "no such folder"
        raise UsageError(f"--dir {where}: {what} (the pack's folder is made inside it)")
    target = os.path.join(where, name)
    if os.path.lexists(target):
        raise UsageError(f"{target} already exists: nothing was written (pick another NAME or --dir)")
    files = _files(name, os.path.abspath(target))
    _write_folder(target, files)
    print(f"Made the pack {name} in {target}{os.sep}:")
    notes = {
        f"{name}.toml": f"one template, {name}-weights-memory: edit it, add more",
        "README.md": "how to write, check, use and publish the pack",
        "Makefile": "make check runs `quizzer check .`",
        "pyproject.toml": "publishes it as a Python package, found through the quizzer.packs entry point",
    }
    for file in files:
        print(f"  {file:<{max(map(len, files))}}  {notes[file]}")
    print(f"Next: cd {target} && make check")
    return 0


def _files(name: str, folder: str) -> dict[str, str]:
    """The new pack's files by name: the template first."""
    from quizzer.commands.pack_scaffold import (
        MAKEFILE,
        PYPROJECT,
        README,
        TEMPLATE,
        dist_name,
        module_name,
    )
    from quizzer.paths import questions_dir

    template_file, template_id = f"{name}.toml", f"{name}-weights-memory"
    guide = os.path.join(questions_dir(), "README.md")
    return {
        template_file: TEMPLATE.format(name=name),
        "README.md": README.format(
            name=name,
            count_words="one template",
            file=template_file,
            template_id=template_id,
            guide=guide if os.path.isfile(guide) else "questions/README.md in quizzer's source",
            path=folder,
            dist=dist_name(name),
            module=module_name(name),
        ),
        "Makefile": MAKEFILE.format(name=name, template_id=template_id),
        "pyproject.toml": PYPROJECT.format(name=name, dist=dist_name(name), module=module_name(name)),
    }


def _write_folder(target: str, files: dict[str, str]) -> None:
    """Write ``files`` in a hidden folder beside ``target``, then rename it to ``target``: the pack appears
    whole or not at all, and a folder made at ``target`` meanwhile is never written into."""
    import shutil
    import tempfile

    parent = os.path.dirname(target) or "."
    try:
        staging = tempfile.mkdtemp(prefix=f".{os.path.basename(target)}.", dir=parent)
    except OSError as exc:
        raise UsageError(f"cannot write in {parent}: {exc.strerror or exc}") from None
    try:
        os.chmod(staging, 0o777 & ~_umask())  # mkdtemp's 0700 is for secrets; a pack is shared
        for file, text in files.items():
            with open(os.path.join(staging, file), "x", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
        if os.path.lexists(target):
            raise FileExistsError(target)
        os.rename(staging, target)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(exc, FileExistsError) or os.path.lexists(target):
            raise UsageError(f"{target} already exists: nothing was written") from None
        raise UsageError(f"cannot write the pack in {parent}: {exc.strerror or exc}") from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# --- pack list --------------------------------------------------------------------------------------------


def pack_rows(packs: list[Pack]) -> list[dict[str, Any]]:
    """Each pack as `pack list --json` gives it: source, name, distribution, path, templates, problems."""
    from quizzer.bank.loader import load_bank

    paths, _ = paths_and_problems(packs)
    bank = load_bank(paths)
    problems = bank.problems()  # validates every template
    templates: dict[int, int] = {}
    found: dict[int, list[TemplateError]] = {}
    for template in bank.templates():
        pack = pack_of(packs, template.path)
        if pack is not None:
            templates[id(pack)] = templates.get(id(pack), 0) + 1
    for problem in problems:
        pack = pack_of(packs, problem.path)
        found.setdefault(id(pack) if pack is not None else 0, []).append(problem)
    rows = []
    for pack in packs:
        mine = [pack.problem] if pack.problem is not None else found.get(id(pack), [])
        rows.append(
            {
                "source": pack.source,
                "name": pack.name or (os.path.basename(os.path.normpath(pack.path)) if pack.path else None),
                "dist": pack.dist or None,
                "path": pack.path,
                "templates": templates.get(id(pack), 0),
                "problems": [str(p) for p in mine],
            }
        )
    if found.get(0):  # a problem no pack holds: never expected, never hidden
        rows.append({"source": "", "name": None, "dist": None, "path": None, "templates": 0, "problems": []})
        rows[-1]["problems"] = [str(p) for p in found[0]]
    return rows


def print_rows(rows: list[dict[str, Any]]) -> None:
    """The packs as a table, then each pack's problems under its path."""
    sources = [r["source"] + (f" {r['name']} ({r['dist']})" if r["dist"] else "") for r in rows]
    width = max(len("source"), *map(len, sources))
    print(f"{'source':<{width}}  templates  problems  path")
    for source, row in zip(sources, rows, strict=True):
        print(f"{source:<{width}}  {row['templates']:>9}  {len(row['problems']):>8}  {row['path'] or '-'}")
    with_problems = [(s, r) for s, r in zip(sources, rows, strict=True) if r["problems"]]
    for source, row in with_problems:
        print(f"\n{source} ({row['path'] or 'not loaded'}): {counted(len(row['problems']), 'problem')}")
        for problem in row["problems"]:
            print(f"  {problem}")
    if with_problems:
        print("\n`quizzer check PATH` checks a pack's instances too.", file=sys.stderr)
