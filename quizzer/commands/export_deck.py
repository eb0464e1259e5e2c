"""`quizzer export-deck`: an Anki deck (.apkg) of N instances per template, answers in answerset's syntax.

Each instance ID#SEED (seeds S..S+N-1, 1..N by default) gives one note per part (quizzer.session.deck_notes);
a note's GUID is made from its template id, seed and part, and the deck and note type have fixed ids, so
importing a re-exported deck updates its notes instead of adding copies. The file is written through genanki
(the anki extra) to a temporary file beside it, then renamed over it.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from quizzer.bank.errors import TemplateError
from quizzer.commands.common import UsageError, open_bank, warn_problems
from quizzer.core.checks import did_you_mean

#: What the verb says, in one line, when the optional extra is not installed.
MISSING_EXTRA = "quizzer export-deck needs the anki extra (genanki): pip install 'quizzer-ml[anki]'"
#: The deck's and the note type's ids: fixed, so a re-export lands in the same deck with the same note type.
DECK_ID = 1_728_094_513
MODEL_ID = 1_390_475_162
DECK_NAME = "quizzer: ML-systems sizing"
#: The most instances a template gives: 100 × the built-in 134 templates is about 40,000 notes.
MAX_COUNT = 100
#: The add-on that grades the answers (its AnkiWeb code).
ANSWERSET = "answerset (add-on 1827331674)"

FIELDS = ("Question", "Answer", "Explanation", "Instance")
FRONT = '{{Question}}\n<div class="typed">{{type:Answer}}</div>'
BACK = (
    '{{Question}}\n<hr id="answer">\n<div class="typed">{{type:Answer}}</div>\n{{Explanation}}\n'
    '<p class="instance">{{Instance}}</p>'
)
CSS = """.card { font-family: sans-serif; font-size: 17px; line-height: 1.4; text-align: left; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #999; padding: 2px 6px; font-size: 14px; }
code, pre { font-family: monospace; }
.earlier { opacity: 0.75; border-left: 3px solid #999; padding-left: 8px; margin-bottom: 8px; }
.conventions { font-size: 14px; }
.instance { font-size: 12px; color: #888; }
"""


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if not 1 <= args.count <= MAX_COUNT:
        raise UsageError(f"--count {args.count}: give between 1 and {MAX_COUNT} instances per template")
    if args.seed is not None and args.seed < 0:
        raise UsageError(f"--seed {args.seed}: the first seed must be 0 or more")
    replaces = _check_target(args.file)
    genanki = _genanki()
    bank = open_bank(args)
    warn_problems(bank)
    templates = bank.templates()
    if args.topic:
        topics = {t.topic for t in templates}
        if args.topic not in topics:
            raise UsageError(
                f"--topic {args.topic!r}: no such topic{did_you_mean(args.topic, topics)}; "
                "`quizzer list` shows them"
            )
        templates = [t for t in templates if t.topic == args.topic]
    if not templates:
        raise UsageError("no templates to export; `quizzer list` shows them")
    from quizzer.session.deck_notes import deck_notes

    first = 1 if args.seed is None else args.seed
    seeds = range(first, first + args.count)
    model = _model(genanki)
    deck = genanki.Deck(DECK_ID, DECK_NAME, description=_description())
    instances = 0
    for template in templates:
        for seed in seeds:
            try:
                instance = bank.generate(template.id, seed)
            except TemplateError as exc:
                print(f"quizzer: warning: {template.id}#{seed} left out: {exc}", file=sys.stderr)
                continue
            instances += 1
            for note in deck_notes(instance):
                fields = [note.question, note.answer, note.explanation, note.instance]
                guid = genanki.guid_for(*note.key)
                deck.add_note(genanki.Note(model=model, fields=fields, tags=list(note.tags), guid=guid))
    _write(genanki.Package(deck), args.file)
    print(
        f"quizzer export-deck: wrote {len(deck.notes)} notes to {args.file}"
        f"{' (replacing the deck that was there)' if replaces else ''}: {instances} instances "
        f"({len(templates)} templates × seeds {seeds[0]}..{seeds[-1]}), one note per part of a chain; "
        f"import it in Anki, where {ANSWERSET} grades the typed numbers",
        file=sys.stderr,
    )
    return 0


def _genanki() -> Any:
    """The genanki module, or a UsageError naming the extra to install."""
    try:
        import genanki  # type: ignore[import-untyped]  # (imported here: the extra is optional)
    except ImportError:
        raise UsageError(MISSING_EXTRA) from None
    return genanki


def _model(genanki: Any) -> Any:
    """The note type: four fields, one card that asks for the answer typed (``{{type:Answer}}``)."""
    return genanki.Model(
        MODEL_ID,
        "quizzer numeric answer (answerset)",
        fields=[{"name": name} for name in FIELDS],
        templates=[{"name": "Type the number", "qfmt": FRONT, "afmt": BACK}],
        css=CSS,
        sort_field_index=FIELDS.index("Instance"),
    )


def _description() -> str:
    return (
        "Sizing questions from quizzer, one note per part of a question. Type a plain number in the unit "
        f"the card names; {ANSWERSET} grades it within the question's tolerance (the answer field is "
        "written value?factor). Re-exporting the same deck updates these notes."
    )


def _check_target(path: str) -> bool:
    """Refuse a path Anki would not import or that cannot be written; True when it replaces a deck.

    A file already there is replaced only if it is an Anki package (a zip holding a collection).
    """
    if not path.lower().endswith(".apkg"):
        raise UsageError(f"{path}: the deck's name must end in .apkg (Anki imports a deck by that extension)")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        what = "is not a folder" if os.path.exists(folder) else "does not exist"
        raise UsageError(f"{path}: the folder {folder} {what}; make it first or choose another path")
    if os.path.isdir(path):
        raise UsageError(
            f"{path} is a folder; give the deck's file name (e.g. {path.rstrip(os.sep)}/quizzer.apkg)"
        )
    if not os.path.exists(path):
        return False
    if not _is_deck(path):
        raise UsageError(f"{path} exists and is not an Anki deck: not overwritten; choose another name")
    return True


def _is_deck(path: str) -> bool:
    """Whether ``path`` is an Anki package: a zip that holds collection.anki2 or collection.anki21."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except (OSError, zipfile.BadZipFile):
        return False
    return bool(names & {"collection.anki2", "collection.anki21"})


def _write(package: Any, path: str) -> None:
    """Write ``package`` to a temporary file beside ``path``, then rename it over ``path`` (atomic on one
    file system): an interrupted export leaves the old deck whole."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    os.close(handle)
    try:
        with _own_temp_folder():
            package.write_to_file(temporary)
        os.chmod(temporary, _mode(path))
        os.replace(temporary, path)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


@contextmanager
def _own_temp_folder() -> Iterator[None]:
    """genanki 0.13 builds the collection in a ``tempfile.mkstemp()`` file it never removes: while it
    writes, the temporary folder is one of ours, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="quizzer-deck-") as scratch:
        saved = tempfile.tempdir
        tempfile.tempdir = scratch
        try:
            yield
        finally:
            tempfile.tempdir = saved


def _mode(path: str) -> int:
    """The permissions of the deck: those of the file it replaces, else read-write as the umask allows."""
    try:
        return os.stat(path).st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
