"""`quizzer export-deck`, read back as Anki reads it: notes, fields, tags, answers, stable ids, --topic."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.anki.deck_reader import Deck
from tests.cli_run import run_cli

#: The answer field as answerset reads a number with its factor: digits, one optional point, "?", the same.
ANSWERSET = re.compile(r"^(\d+(?:\.\d+)?)\?(\d+(?:\.\d+)?)$")


def show(ref: str) -> dict[str, Any]:
    """``quizzer show REF --json``: the instance's own numbers, from the command users run."""
    ran = run_cli("show", ref, "--json")
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout)


def listed(topic: str) -> list[str]:
    """The template ids of ``topic``, from ``quizzer list``."""
    ran = run_cli("list", "--topic", topic, "--json")
    assert ran.returncode == 0, ran.stderr
    return [row["id"] for row in json.loads(ran.stdout)]


def export(path: Path, *args: str) -> Deck:
    ran = run_cli("export-deck", str(path), *args)
    assert ran.returncode == 0, ran.stderr
    return Deck(path)


@pytest.fixture(scope="module")
def kv_deck(tmp_path_factory: pytest.TempPathFactory) -> Deck:
    """The kv-cache topic, two instances per template."""
    return export(tmp_path_factory.mktemp("deck") / "kv.apkg", "--topic", "kv-cache", "--count", "2")


def answer(field: str) -> tuple[Decimal, Decimal]:
    """(number, factor) of an answer field, which must be in answerset's syntax."""
    match = ANSWERSET.match(field)
    assert match, f"not value?factor: {field!r}"
    return Decimal(match.group(1)), Decimal(match.group(2))


def test_one_note_per_part_of_every_instance_of_the_topic(kv_deck: Deck) -> None:
    ids = listed("kv-cache")
    assert ids
    expected = {(f"{tid}#{seed}", part) for tid in ids for seed in (1, 2) for part in _parts(f"{tid}#{seed}")}
    assert {(n.instance, n.part) for n in kv_deck.notes} == expected
    assert len(kv_deck.notes) == len(expected)  # no duplicate
    assert kv_deck.card_count == len(expected)  # one card per note


def _parts(ref: str) -> range:
    return range(1, show(ref)["part_count"] + 1)


def test_fields_hold_the_prompt_conventions_unit_and_explanation(kv_deck: Deck) -> None:
    data = show("kv-cache-bytes#1")
    note = kv_deck.note("kv-cache-bytes#1", 1)
    assert set(note.fields) == {"Question", "Answer", "Explanation", "Instance"}
    front, back = note.fields["Question"], note.fields["Explanation"]
    assert "How much memory does the KV cache take for the whole batch?" in front
    assert data["tolerance"]["text"] in front  # the tolerance sentence
    assert "GiB = 2^30 bytes" in front  # a convention
    assert "Type the answer as a plain number <b>in GiB</b>" in front  # the unit, plainly
    assert f"Answer: <b>{data['answer']['display']}</b>" in back  # as people write it
    assert "<table>" in back
    assert "<th>Formula</th>" in back
    assert "**" not in back
    assert "`" not in back
    assert note.fields["Instance"].startswith("kv-cache-bytes#1 part 1 of 3")


def test_a_later_part_shows_the_earlier_answers_and_asks_its_own(kv_deck: Deck) -> None:
    data = show("kv-cache-bytes#1")
    note = kv_deck.note("kv-cache-bytes#1", 3)
    front = note.fields["Question"]
    assert f"Answer to part 1: <b>{data['answer']['display']}</b>" in front
    assert f"Answer to part 2: <b>{data['parts'][0]['answer']['display']}</b>" in front
    assert "Part 3 of 3" in front
    assert data["parts"][1]["tolerance"]["text"] in front
    assert "Answer to part 3" not in front  # its own answer is on the back only


def test_tags_name_topic_difficulty_and_have_no_spaces(kv_deck: Deck) -> None:
    for note in kv_deck.notes:
        data = show(note.instance)
        assert "quizzer" in note.tags
        assert "quizzer::topic::kv-cache" in note.tags
        assert f"quizzer::difficulty::{data['difficulty']}" in note.tags
        assert f"quizzer::template::{data['id']}" in note.tags
        assert all(" " not in tag for tag in note.tags)


def test_the_answers_of_a_known_instance_computed_by_hand(kv_deck: Deck) -> None:
    data = show("kv-cache-bytes#1")
    # part 1: bytes shown in GiB (2^30 bytes), within a relative 1%: factor 1 + r
    assert (data["answer"]["unit"], data["grading"]["display_unit"]) == ("bytes", "GiB")
    assert data["tolerance"]["kind"] == "rel"
    number, factor = answer(kv_deck.note("kv-cache-bytes#1", 1).fields["Answer"])
    assert number == Decimal(data["answer"]["value"]) / Decimal(2**30)
    assert factor == 1 + Decimal(str(data["tolerance"]["value"]))
    # part 2: bytes in KiB (1024 bytes)
    second = data["parts"][0]
    assert second["grading"]["display_unit"] == "KiB"
    number, factor = answer(kv_deck.note("kv-cache-bytes#1", 2).fields["Answer"])
    assert number == Decimal(second["answer"]["value"]) / 1024
    assert factor == 1 + Decimal(str(second["tolerance"]["value"]))
    # part 3: a whole count within ±0.5: the factor band v/f..v·f inside v ± a is f = 1 + a / v
    third = data["parts"][1]
    assert third["tolerance"]["kind"] == "abs"
    number, factor = answer(kv_deck.note("kv-cache-bytes#1", 3).fields["Answer"])
    assert number == Decimal(third["answer"]["value"])
    expected = 1 + Decimal(str(third["tolerance"]["value"])) / Decimal(third["answer"]["value"])
    assert abs(factor - expected) <= Decimal("0.001") * (expected - 1)  # three figures, rounded down
    assert factor <= expected


def test_a_count_in_the_billions_is_asked_in_billions(tmp_path: Path) -> None:
    deck = export(tmp_path / "params.apkg", "--topic", "model-params", "--count", "1")
    data = show("llama-total-params#1")
    value, rel = data["answer"]["value"], Decimal(str(data["tolerance"]["value"]))
    assert data["grading"]["display_unit"] is None
    assert value > 10**9
    note = deck.note("llama-total-params#1", 1)
    assert "<b>in billions of params (B)</b>" in note.fields["Question"]
    number, factor = answer(note.fields["Answer"])
    exact = Decimal(value) / Decimal(10**9)
    assert abs(number - exact) <= exact * rel / 100  # rounded within 1% of the band
    assert factor == 1 + rel


def test_stable_ids_across_two_exports(tmp_path: Path, kv_deck: Deck) -> None:
    again = export(tmp_path / "again.apkg", "--topic", "kv-cache", "--count", "2")
    assert {n.guid for n in again.notes} == {n.guid for n in kv_deck.notes}
    assert len({n.guid for n in again.notes}) == len(again.notes)
    by_guid = {n.guid: n for n in kv_deck.notes}
    for note in again.notes:  # the same note under the same GUID, the same note type and deck
        assert note.fields == by_guid[note.guid].fields
        assert note.model_id == by_guid[note.guid].model_id
    assert again.card_decks == kv_deck.card_decks
    assert len(again.card_decks) == 1
    assert set(again.models) == set(kv_deck.models)
    # a bigger export keeps the notes it shares with the smaller one: importing it adds only the new seeds
    bigger = export(tmp_path / "bigger.apkg", "--topic", "kv-cache", "--count", "3")
    assert {n.guid for n in kv_deck.notes} < {n.guid for n in bigger.notes}
    assert {n.instance.split("#")[1] for n in bigger.notes} == {"1", "2", "3"}
    # --seed S starts the seeds at S: seed 2 and 3 are the bigger export's notes
    later = export(tmp_path / "later.apkg", "--topic", "kv-cache", "--count", "2", "--seed", "2")
    assert {n.instance.split("#")[1] for n in later.notes} == {"2", "3"}
    assert {n.guid for n in later.notes} < {n.guid for n in bigger.notes}


def test_the_card_asks_for_the_answer_typed(kv_deck: Deck) -> None:
    (model,) = kv_deck.models.values()
    (template,) = model["tmpls"]
    assert "{{type:Answer}}" in template["qfmt"]
    assert "{{type:Answer}}" in template["afmt"]
    assert "{{Explanation}}" in template["afmt"]
    assert "{{Explanation}}" not in template["qfmt"]


def test_topic_filter(kv_deck: Deck) -> None:
    assert {n.instance.split("#")[0] for n in kv_deck.notes} == set(listed("kv-cache"))
    assert all("quizzer::topic::kv-cache" in n.tags for n in kv_deck.notes)


def test_help_says_a_re_export_updates() -> None:
    ran = run_cli("export-deck", "--help")
    assert ran.returncode == 0
    text = " ".join(ran.stdout.split())
    assert "updates the notes already imported instead of adding copies" in text
    assert "seeds 1..N" in text


def test_the_verb_never_loads_the_tui(tmp_path: Path) -> None:
    args = [str(tmp_path / "d.apkg"), "--topic", "kv-cache", "--count", "1"]
    code = (
        "import sys\nfrom quizzer.cli import main\n"
        f"assert main(['export-deck', *{args!r}]) == 0\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert proc.stdout.strip().splitlines()[-1] == "[]"
