"""pick_instances and fit_instances: seeded sets of distinct questions for a mock (fitted to its time)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import islice

from quizzer.bank.errors import TemplateError
from quizzer.bank.generate.render import Instance, generate
from quizzer.bank.loader import Bank
from quizzer.bank.read.schema import Template
from quizzer.core.errors import QuizzerError
from quizzer.core.words import counted

#: How far the expected minutes of a fitted mock may be from its limit: ±20%.
BUDGET_SLACK = 0.2
#: Swaps tried before the draw gives up on a budget its bounds allow (never reached on the built-in bank).
MAX_SWAPS = 500


def _matching(
    bank: Bank, rng: random.Random, topic: str | None, difficulty: str | None
) -> Iterator[Template]:
    """The valid templates that match, in an order shuffled by ``rng`` (invalid ones left out); each is
    parsed only when it is reached."""
    candidates = bank.scanned_ids()
    rng.shuffle(candidates)
    for template_id in candidates:
        raw = bank.peek(template_id)
        if raw is None or (topic is not None and raw.get("topic") != topic):
            continue
        if difficulty is not None and raw.get("difficulty") != difficulty:
            continue
        try:
            yield bank.get(template_id)
        except TemplateError:
            continue


def pick_instances(
    bank: Bank, *, count: int, seed: int, topic: str | None = None, difficulty: str | None = None
) -> list[Instance]:
    """``count`` questions from distinct templates that match (repeating templates only when there are
    fewer than ``count``), each with its own seed; the same seed gives the same questions.

    Raises ValueError when no template matches.
    """
    rng = random.Random(seed)
    chosen = list(islice(_matching(bank, rng, topic, difficulty), count))
    return _instances(chosen, count, rng)


def _instances(chosen: list[Template], count: int, rng: random.Random) -> list[Instance]:
    if not chosen:
        raise ValueError("no template matches these filters")
    instances = []
    for i in range(count):
        try:
            instances.append(generate(chosen[i % len(chosen)], rng.randrange(1_000_000)))
        except TemplateError:  # this template cannot make an instance: the mock has one question fewer
            continue
    if not instances:
        raise ValueError("no template matches these filters")
    return instances


def _number(value: float) -> str:
    return f"{value:g}"


def _no_set(count: int, verb: str, minutes: float, which: str, total: float) -> str:
    """ "no 8 questions fit 5 minutes: the shortest 8 take 14" (one: "no question fits 1 minute: ...").

    >>> _no_set(2, "fit", 1, "shortest", 3), _no_set(1, "fill", 5, "longest", 2)
    ('no 2 questions fit 1 minute: the shortest 2 take 3', 'no question fills 5 minutes: the longest takes 2')
    """
    if count == 1:
        return f"no question {verb}s {counted(minutes, 'minute')}: the {which} takes {_number(total)}"
    return (
        f"no {count} questions {verb} {counted(minutes, 'minute')}: the {which} {count} take {_number(total)}"
    )


def budget_bounds(minutes: float) -> tuple[float, float]:
    """The expected minutes a mock of ``minutes`` may add up to: (lowest, highest), ±20%."""
    return minutes * (1 - BUDGET_SLACK), minutes * (1 + BUDGET_SLACK)


def fit_instances(
    bank: Bank,
    *,
    count: int,
    minutes: float,
    seed: int,
    topic: str | None = None,
    difficulty: str | None = None,
) -> list[Instance]:
    """``count`` questions from distinct templates whose expected minutes add up to within ±20% of
    ``minutes``, each with its own seed; the same seed gives the same questions.

    With fewer matching templates than ``count``, every one is asked (some twice or more), as in
    ``pick_instances``, if that fits. Raises ValueError with a sentence to show when nothing matches or no
    set fits ("no 8 questions fit 5 minutes: the shortest 8 take 14").
    """
    rng = random.Random(seed)
    templates = list(_matching(bank, rng, topic, difficulty))
    if not templates:
        raise ValueError("no template matches these filters")
    pool = [templates[i % len(templates)] for i in range(max(count, len(templates)))]
    low, high = budget_bounds(minutes)
    by_minutes = sorted(t.minutes for t in pool)
    shortest, longest = sum(by_minutes[:count]), sum(by_minutes[-count:])
    if shortest > high:
        raise ValueError(_no_set(count, "fit", minutes, "shortest", shortest))
    if longest < low:
        raise ValueError(_no_set(count, "fill", minutes, "longest", longest))
    chosen, rest = pool[:count], pool[count:]
    total = sum(t.minutes for t in chosen)
    for _ in range(MAX_SWAPS):
        distance = abs(total - minutes)
        # every swap of a chosen template for one left out, scored by how near it brings the total
        swaps = [
            (abs(total - a.minutes + b.minutes - minutes), i, j)
            for i, a in enumerate(chosen)
            for j, b in enumerate(rest)
        ]
        fitting = [s for s in swaps if low <= total - chosen[s[1]].minutes + rest[s[2]].minutes <= high]
        nearer = [s for s in fitting if s[0] < distance]
        if low <= total <= high and not nearer:
            return _instances(chosen, count, rng)
        if nearer:  # the nearest to the limit, at random among equals
            best_distance = min(nearer)[0]
            nearest = [s for s in nearer if s[0] == best_distance]
            _, i, j = nearest[rng.randrange(len(nearest))]
        else:
            best = min(swaps, default=(distance, -1, -1))
            if best[0] >= distance:
                break
            _, i, j = best
        total += rest[j].minutes - chosen[i].minutes
        chosen[i], rest[j] = rest[j], chosen[i]
    raise ValueError(
        f"no {counted(count, 'question')} found whose minutes add up to {_number(minutes)} (±20%)"
    )


#: The first line of a set file (``quizzer mock --save-set``); lines starting with # are comments.
SET_HEADER = "# quizzer mock set: {count}, {minutes}; replay with `quizzer mock --set-file FILE`"


def format_set(instances: list[Instance] | tuple[Instance, ...], minutes: float) -> str:
    """A set file's text: a header comment, then one ``id#seed`` a line (``parse_set`` reads it back)."""
    header = SET_HEADER.format(count=counted(len(instances), "question"), minutes=counted(minutes, "minute"))
    return header + "\n" + _model_lines(instances) + "".join(f"{i.id}\n" for i in instances)


#: A set file's line keeping a config.json a question is asked about: ``# model NAME = {json}``.
MODEL_LINE = "# model "


def _model_lines(instances: list[Instance] | tuple[Instance, ...]) -> str:
    """One ``# model NAME = {config}`` line for each user's config the set's questions are asked about, so
    that the set replays on another machine."""
    import json

    from quizzer.core.presets import config_of

    lines = []
    for name in dict.fromkeys(i.id.partition("@")[2] for i in instances):
        config = config_of(name) if name else None
        if config is not None:
            base = name.partition("{")[0]
            lines.append(f"{MODEL_LINE}{base} = {json.dumps(dict(config), sort_keys=True)}\n")
    return "".join(dict.fromkeys(lines))


def _register_models(text: str, where: str) -> None:
    """Register the configs a set file keeps (``# model NAME = {json}``), checking each gets its name."""
    import json

    from quizzer.core.presets import register_config

    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.startswith(MODEL_LINE):
            continue
        name, _, config_text = raw[len(MODEL_LINE) :].partition(" = ")
        name = name.strip()[:40]
        try:
            registered = register_config(json.loads(config_text))
        except (ValueError, QuizzerError) as exc:
            raise ValueError(f"{where}:{number}: the model {name!r} cannot be read: {exc}") from None
        if registered != name:
            raise ValueError(f"{where}:{number}: the config kept for {name!r} is not the one it names")


def parse_set(bank: Bank, text: str, where: str) -> list[Instance]:
    """The instances of a set file's ``text``, in order (blank lines and # comments skipped).

    Raises ValueError naming ``where`` and the line for a line that is not ID#SEED, an unknown id or a
    template that cannot make the instance, and for a set with no question.
    """
    instances = []
    _register_models(text, where)
    for number, raw in enumerate(text.splitlines(), 1):
        entry = raw.strip()
        if not entry or entry.startswith("#"):
            continue
        entry, _, model = entry.partition("@")
        template_id, hash_mark, seed_text = entry.partition("#")
        template_id = template_id.strip()
        if not hash_mark or not template_id or not seed_text.strip().isdigit():
            raise ValueError(
                f"{where}:{number}: {entry[:60]!r} is not ID#SEED (a template id, #, a whole number)"
            )
        try:
            instances.append(_generate(bank, template_id, int(seed_text), model.strip()))
        except KeyError:
            raise ValueError(f"{where}:{number}: no template has the id {template_id[:60]!r}") from None
        except (TemplateError, QuizzerError) as exc:
            raise ValueError(f"{where}:{number}: {template_id} cannot make this question: {exc}") from None
    if not instances:
        raise ValueError(f"{where}: the set has no question (one ID#SEED a line)")
    return instances


def _generate(bank: Bank, template_id: str, seed: int, model: str) -> Instance:
    """``template_id#seed``, asked about ``model`` when one is named (``ID#SEED@MODEL``)."""
    if not model:
        return bank.generate(template_id, seed)
    from quizzer.bank.model_bank import posed_for

    return posed_for(bank, template_id, seed, model)
