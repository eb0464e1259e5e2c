"""An exported deck read back as Anki would: the .apkg is a zip holding an SQLite collection.

Only the standard library (zipfile, sqlite3, json): nothing of quizzer or genanki, so what the tests see is
what Anki's importer reads.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
import zipfile
from pathlib import Path
from typing import Any

#: Anki's notes table joins a note's fields with the unit separator.
FIELD_SEPARATOR = "\x1f"


class Note:
    """One row of the collection's notes table: id, GUID, note type, tags and fields by name."""

    def __init__(self, guid: str, model_id: int, tags: list[str], fields: dict[str, str]) -> None:
        self.guid, self.model_id, self.tags, self.fields = guid, model_id, tags, fields

    @property
    def instance(self) -> str:
        """ "ID#SEED" (before any " part K of N")."""
        return self.fields["Instance"].split(" ")[0]

    @property
    def part(self) -> int:
        """The part number the note asks (1 for a question of one part)."""
        words = self.fields["Instance"].split(" · ")[0].split()
        return int(words[2]) if len(words) > 2 and words[1] == "part" else 1


class Deck:
    """What a .apkg holds: its notes, its cards' deck ids, its note types and decks (the col row's JSON)."""

    def __init__(self, path: Path) -> None:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            name = "collection.anki21" if "collection.anki21" in names else "collection.anki2"
            data = archive.read(name)
        with tempfile.TemporaryDirectory() as folder:
            db = Path(folder) / name
            db.write_bytes(data)
            connection = sqlite3.connect(db)
            try:
                models_json, decks_json = connection.execute("SELECT models, decks FROM col").fetchone()
                self.models: dict[str, Any] = json.loads(models_json)
                self.decks: dict[str, Any] = json.loads(decks_json)
                rows = connection.execute("SELECT guid, mid, tags, flds FROM notes").fetchall()
                self.card_decks = {did for (did,) in connection.execute("SELECT did FROM cards")}
                self.card_count = connection.execute("SELECT count(*) FROM cards").fetchone()[0]
            finally:
                connection.close()
        self.notes: list[Note] = []
        for guid, model_id, tags, fields in rows:
            names_of = [f["name"] for f in self.models[str(model_id)]["flds"]]
            values = fields.split(FIELD_SEPARATOR)
            self.notes.append(Note(guid, model_id, tags.split(), dict(zip(names_of, values, strict=True))))

    def note(self, instance: str, part: int = 1) -> Note:
        """The note of ``instance`` ("ID#SEED") and part ``part``."""
        return next(n for n in self.notes if n.instance == instance and n.part == part)
