"""Stats read with the facts of the app's loaded bank are the Stats read with a bank loaded for the read."""

from __future__ import annotations

from collections import Counter

from quizzer.grading.slip_families import family_of
from quizzer.paths import questions_dir
from quizzer.session.bank_facts import bank_facts
from quizzer.session.chain import template_lookup
from quizzer.session.records import Attempt, CardState
from quizzer.session.slips import family_counts, mistake_families, slip_counts
from quizzer.session.stats import Stats
from quizzer.session.stats_summary import SUMMARY_FIELDS
from quizzer.store.history import HistoryStore
from quizzer.tui.reader import HistoryReader, shown
from quizzer.tui.writer import HistoryWriter
from tests.builtin_bank import builtin_bank

NOW = 1_780_000_000.0


def _history() -> HistoryStore:
    """Every own mistake of every built-in template, in its part (and one part past the last), built-in
    slips, an unknown template, skips, and two suspended leeches."""
    store = HistoryStore.memory()
    n = 0

    def add(template_id: str, mistake: str | None, part: int | None, verdict: str = "wrong") -> None:
        nonlocal n
        n += 1
        store.record(
            Attempt(
                template_id, n, {}, "1", 1, 2, "", verdict, 0.5, mistake, 30.0, 0,
                at=NOW - 3_600 * n, topic="t", part=part,
            )
        )  # fmt: skip

    for template in builtin_bank().templates()[::3]:
        for number, part in enumerate(template.parts, start=1):
            for mistake in part.mistakes:
                add(template.id, mistake.name, number if len(template.parts) > 1 else None)
                add(template.id, mistake.name, len(template.parts) + 1)
        add(template.id, None, None, "exact")
        add(template.id, "gb-vs-gib", None)
        add(template.id, None, None, "skipped")
    add("no-such-template", "a-mistake-no-template-has", None)
    for template_id in ("kv-cache-bytes", "no-such-template"):
        store.put_card(CardState(template_id, "{}", NOW - 86_400, NOW, lapses=8, suspended=NOW - 3_600))
    return store


def test_stats_with_the_loaded_banks_facts_are_the_stats_read_with_a_bank_of_its_own() -> None:
    store, writer = _history(), HistoryWriter()
    try:
        reader = HistoryReader(
            store, writer, [questions_dir()], wall=lambda: NOW, new_per_day=10, desired_retention=0.9
        )
        read = reader.stats()
        summaries: list[Stats] = []
        given = reader.stats(bank_facts(builtin_bank()), summaries.append)
        attempts = store.attempts()
    finally:
        writer.close()
        store.close()
    assert read.top_slip is not None
    assert read.by_difficulty
    assert len(read.leeches) == 2
    assert given == read
    [summary] = summaries  # given first, from its light pass: the figures of the summary line
    assert [getattr(summary, f) for f in SUMMARY_FIELDS] == [getattr(read, f) for f in SUMMARY_FIELDS]
    counts = family_counts(attempts, bank_facts(builtin_bank()).families)
    assert counts == slip_counts(attempts, template_lookup(builtin_bank()))
    assert counts == _oracle_counts(attempts)
    assert len(counts) > 3  # own families of several parts, not only the built-in slip


def _oracle_counts(attempts: list[Attempt]) -> Counter[str]:
    """The families counted as the templates say, read one by one (a plain model of ``slip_counts``)."""
    counts: Counter[str] = Counter()
    for a in attempts:
        if not a.mistake:
            continue
        family = family_of(a.mistake)
        if family is None and a.template_id in builtin_bank():
            parts = builtin_bank().get(a.template_id).parts
            part = parts[a.part - 1] if a.part and a.part <= len(parts) else parts[0]
            family = next((m.family or "own" for m in part.mistakes if m.name == a.mistake), "own")
        if family not in (None, "own"):
            counts[family] += 1
    return counts


def test_the_facts_are_the_banks_tables_and_its_valid_templates_mistake_families() -> None:
    bank = builtin_bank()
    facts = bank_facts(bank)
    assert facts.families == {t.id: mistake_families(t) for t in bank.templates()}
    assert facts.difficulty_of["kv-cache-bytes"] == bank.get("kv-cache-bytes").difficulty
    assert facts.title_of["kv-cache-bytes"] == bank.peek("kv-cache-bytes")["title"]


def test_shown_escapes_the_control_characters_of_the_attempts_that_hold_them_and_keeps_the_others() -> None:
    plain = Attempt("a", 1, {}, "4", 4, 4, "", "exact", 0.0, None, 5.0, 0)
    bad = plain.replace(answer="\x1b[2J", mistake_title="x\x9b")
    out = shown([plain, bad, plain])
    assert out[0] is plain
    assert out[2] is plain
    assert (out[1].answer, out[1].mistake_title) == ("\\x1b[2J", "x\\x9b")
    assert shown([plain, plain]) == [plain, plain]
