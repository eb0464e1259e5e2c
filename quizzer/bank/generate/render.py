"""A template turned into an instance: each part's variables drawn from the seed, its answer, its texts."""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from operator import itemgetter
from typing import Any, cast

from quizzer.bank.errors import ExprError, PartError, TemplateError
from quizzer.bank.expr.expression import Budget, Expr, plain
from quizzer.bank.expr.text import (
    TextError,
    TextTooLong,
    answer_display,
    derivation_table,
    display_scale,
    render_text,
)
from quizzer.bank.generate.derivation import derive, gradable, template_labels
from quizzer.bank.generate.draw import draw, draw_count, draw_part, expand, n_layers_in
from quizzer.bank.generate.instance import Instance, MistakeValue, Part, new_lock
from quizzer.bank.generate.pending import Pending
from quizzer.bank.generate.per_template import per_template
from quizzer.bank.generate.tolerance import tolerance_text
from quizzer.bank.heap import settle_compiled
from quizzer.bank.limits import MAX_TEXT_CHARS
from quizzer.bank.read.answer_fields import MistakeSpec
from quizzer.bank.read.names import calculators
from quizzer.bank.read.overrides import split_overrides
from quizzer.bank.read.schema import PartSpec, Template
from quizzer.bank.read.texts import TextPart
from quizzer.core.checks import did_you_mean
from quizzer.core.errors import QuizzerError
from quizzer.core.trace import Step
from quizzer.grading.bands import plainly_finite
from quizzer.grading.figures import figures_of_values
from quizzer.grading.grade import GradeContext, title_from_name
from quizzer.grading.slips import slips

#: The start of the warning an instance carries for each constraint a user's own numbers break.
OUTSIDE_RANGE = "outside this template's usual range: "
#: ``{part1}`` or ``{part1:style}``: hidden in a masked prompt.
_ANY_ANSWER_RE = re.compile(r"(?<!\{)\{part([0-9]+)(?::[a-z-]+(?:\([^{}()\n]*\))?)?\}(?!\})")


#: A placeholder already in parentheses: "the fixed state ({part2})" (no second pair is added).
_PAREN_ANSWER_RE = re.compile(r"\(" + _ANY_ANSWER_RE.pattern + r"\)")
#: A styled placeholder with its unit after it: "{part4:count} bytes" is the answer in that unit.
_UNIT_ANSWER_RE = re.compile(_ANY_ANSWER_RE.pattern + r" (bytes|params|parameters|tokens|FLOPs)\b")


def masked(text: str) -> str:
    """``_masked(text)``, once per text (a template's texts are masked again and again; the same object
    each time, whose placeholders ``render_text`` has split once)."""
    found = _MASKED.get(text)
    if found is None:
        if len(_MASKED) > 4096:  # the later parts' prompts of every pack loaded: never let them pile up
            _MASKED.clear()
        found = _MASKED[text] = _masked(text)
    return found


#: ``masked``'s answers, by text.
_MASKED: dict[str, str] = {}


def _masked(text: str) -> str:
    """``text`` with each ``{partK}`` placeholder (any style) as "(your answer to part K)", one pair of
    parentheses when the text already puts it in some.

    >>> masked("With {part1} per sequence and {part2:si} sequences")
    'With (your answer to part 1) per sequence and (your answer to part 2) sequences'
    >>> masked("plus the fixed state ({part2})")
    'plus the fixed state (your answer to part 2)'
    >>> masked("each needs {part4:count} bytes")
    'each needs (your answer to part 4, in bytes)'
    """
    text = _PAREN_ANSWER_RE.sub(lambda m: f"(your answer to part {m.group(1)})", text)
    text = _UNIT_ANSWER_RE.sub(lambda m: f"(your answer to part {m.group(1)}, in {m.group(2)})", text)
    return _ANY_ANSWER_RE.sub(lambda m: f"(your answer to part {m.group(1)})", text)


def generate(
    template: Template,
    seed: int,
    overrides: Mapping[str, Any] | None = None,
    budget: Budget | None = None,
    *,
    lazy: bool = False,
) -> Instance:
    """The instance of ``template`` for ``seed`` (deterministic); ``overrides`` fix some of part 1's
    variables.

    Part 1 draws from ``random.Random(f"{id}#{seed}")``; part ``k`` then from ``f"{id}#{seed}#part{k}"``
    with the names of the parts before it: adding a part never changes an earlier number. Overrides that
    break a constraint still pose the question, with a warning per broken constraint. Raises TemplateError
    naming the field for anything the template asks that cannot be done: a failed evaluation (a calculator
    refusing the values), a spent ``budget`` (default: ``MAX_EVAL_STEPS``), a mistake that is not a
    number, a value that cannot be shown, texts beyond ``MAX_TEXT_CHARS`` in all.

    With ``lazy``, what a question shows first is made now (part 1's prompt, value, display and tolerance
    sentence, the conventions, and the derived variables those read), the rest on first need
    (``Instance.LATER``, ``Part.LATER``: the later parts, the derivation and teaching texts, the mistakes'
    feedback, the variables), and a TemplateError about the rest
    is raised when it is made: ``complete()`` makes it at a moment of the caller's choosing.

    Without own numbers, a ``budget`` or ``lazy``, a seed that drew the numbers an earlier seed drew is
    given that instance again under its own id and seed (``_remembered``).
    """
    if not overrides and budget is None and not lazy:
        return _remembered(template, seed)
    budget = budget or Budget()
    by_part = split_overrides(template, overrides) if overrides else {}
    rng = random.Random(f"{template.id}#{seed}")
    env, broken = draw(template, rng, by_part.get(1, {}), budget, lazy=lazy)
    instance = _rendered(template, seed, env, broken, by_part, budget)
    if not lazy:
        instance.complete()
    settle_compiled()  # what the expressions compiled for it hold, frozen out of the collector's scans
    return instance


def _remembered(template: Template, seed: int) -> Instance:
    """``generate(template, seed)`` (whole, no own numbers, its own budget), the earlier seed's instance
    again, under this id and seed, when part 1 drew the same numbers (with the same types) and no later
    part draws any: the instance follows from them (as ``instances`` finds a repeat). An instance is
    kept with the steps its rendering charged, and is given again only when the budget left after this
    seed's draw would have paid for them (a draw that took more attempts may leave less): else it is
    made, and fails, as it would be without memory."""
    budget = Budget()
    env, broken = draw(template, random.Random(f"{template.id}#{seed}"), {}, budget, lazy=True)
    key = _draw_key(template, env)
    made = _made(template)
    found = made.get(key) if key is not None else None
    if found is not None and budget.left >= found[1]:
        return found[0].replace(id=f"{template.id}#{seed}", seed=seed)
    left = budget.left
    if isinstance(env, Pending):  # as ``draw`` leaves it without ``lazy``: every derived variable settled
        env = env.settled()
    instance = _rendered(template, seed, env, broken, {}, budget).complete()
    settle_compiled()  # what the expressions compiled for it hold, frozen out of the collector's scans
    if key is not None:
        if len(made) >= _KEPT_INSTANCES:
            made.clear()
        made[key] = (instance, left - budget.left)
    return instance


#: A template keeps each whole instance ``_remembered`` makes when part 1 can draw at most this many
#: sets of numbers (the most instances it keeps, then); one that can draw more seldom draws one again.
_KEPT_INSTANCES = 64


@per_template
def _made(template: Template) -> dict[tuple[Any, ...], tuple[Instance, int]]:
    """The whole instances of a template made so far, by ``_draw_key``, with the steps they charged."""
    return {}


@per_template
def _drawn_names(template: Template) -> Callable[[Mapping[str, Any]], tuple[Any, ...]] | None:
    """A function giving the values of part 1's drawn variables from its env, in order; None when a
    later part draws a number too (part 1's draw does not tell the instance then), or when part 1 can
    draw more than ``_KEPT_INSTANCES`` sets of numbers."""
    if _later_parts_draw(template):
        return None
    drawn = [var for var in template.main.variables if var.expr is None]
    if math.prod(draw_count(var) for var in drawn) > _KEPT_INSTANCES:
        return None
    names = [var.name for var in drawn]
    if len(names) == 1:
        (name,) = names
        return lambda env: (env[name],)
    return (
        cast(Callable[[Mapping[str, Any]], tuple[Any, ...]], itemgetter(*names)) if names else lambda env: ()
    )


@per_template
def _later_parts_draw(template: Template) -> bool:
    """Whether a later part draws a number of its own (part 1's draw then does not tell the instance)."""
    return any(var.expr is None for spec in template.parts[1:] for var in spec.variables)


def _draw_key(template: Template, env: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """Part 1's drawn values and their types (2 and 2.0 show apart), when they tell the instance and can
    be a key: None for a later part that draws, a value that cannot be hashed, or a float zero (0.0 and
    -0.0 are equal keys that show apart)."""
    values_of = _drawn_names(template)
    if values_of is None:
        return None
    values = values_of(env)
    for value in values:
        if type(value) is float and not value:
            return None
    key = values + tuple(map(type, values))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def instances(template: Template, seeds: Iterable[int]) -> Iterator[tuple[int, Instance, bool]]:
    """``generate(template, seed)`` for each of ``seeds``, and whether it repeats an earlier seed's: every
    part drew the same numbers (the instance is then the earlier one's, but for its id and seed). When no
    later part draws a number, part 1's draw tells a repeat, and a repeat is not rendered again. Raises
    TemplateError as ``generate`` does at the first seed that fails, its message starting with that seed
    ("seed 7: ..."); the seeds before it are yielded."""
    drawn: dict[str, Instance] = {}
    early = not _later_parts_draw(template)
    for seed in seeds:
        try:
            found = _instance(template, seed, early, drawn)
        except TemplateError as exc:
            raise TemplateError(exc.path, exc.template_id, exc.field, f"seed {seed}: {exc.message}") from None
        yield seed, *found


def _instance(
    template: Template, seed: int, early: bool, drawn: dict[str, Instance]
) -> tuple[Instance, bool]:
    """``instances``' answer for one seed; ``drawn`` holds the instances by the numbers drawn so far."""
    budget = Budget()
    if early:
        env, broken = draw(template, random.Random(f"{template.id}#{seed}"), {}, budget)
        key = repr([env[var.name] for var in template.main.variables])
        if key in drawn:
            return drawn[key].replace(id=f"{template.id}#{seed}", seed=seed), True
        instance = _rendered(template, seed, env, broken, {}, budget).complete()
        settle_compiled()
    else:
        instance = generate(template, seed, budget=budget)
        key = repr([part.variables for part in instance.parts])
        if key in drawn:
            return instance, True
    drawn[key] = instance
    return instance, False


def _rendered(
    template: Template,
    seed: int,
    env: dict[str, Any],
    broken: tuple[Expr, ...],
    by_part: Mapping[int, Mapping[str, Any]],
    budget: Budget,
) -> Instance:
    """The instance of ``template`` for ``seed`` from part 1's draw (``env``, the constraints it breaks):
    part 1 rendered, the template's conventions; on first need (``Instance.LATER``) the rest of part 1,
    the memory aid and follow-ups, then each later part drawn and rendered, in that order."""
    scope = _Scope(template, env, budget)
    lock = new_lock()
    first = _Renderer(template, template.main, scope)
    pending = isinstance(env, Pending)  # a derived variable is evaluated when first read
    names = template.main.variables
    main = first.render(None if pending else {v.name: env[v.name] for v in names}, lock)
    conventions = first.conventions(main.tolerance_text)
    broken_parts: list[str] = []

    def rest() -> dict[str, Any]:
        parts = [main.complete()]
        if pending:  # the later parts read the names as a plain dict, in the variables' order
            scope.env = cast(Pending, env).settled()
        teaching = first.teaching()
        scope.answered(1, main)
        for spec in template.parts[1:]:
            given = by_part.get(spec.number, {})
            # a part that draws nothing (and is given no numbers) never reads its stream: none is seeded
            draws = given or any(var.expr is None for var in spec.variables)
            rng = random.Random(f"{template.id}#{seed}#part{spec.number}") if draws else _UNREAD
            own, part_broken = draw_part(template, spec, rng, scope.env, budget, given)
            broken_parts.extend(f"{c.source} (part {spec.number})" for c in part_broken)
            part = _Renderer(template, spec, scope).render(own, lock).complete()
            parts.append(part)
            scope.answered(spec.number, part)
        made = {"parts": tuple(parts), **teaching}
        return {**made, "variables": {v.name: env[v.name] for v in names}} if pending else made

    known: dict[str, Any] = {
        "id": f"{template.id}#{seed}",
        "template_id": template.id,
        "seed": seed,
        "title": template.title,
        "topic": template.topic,
        "difficulty": template.difficulty,
        "kind": template.kind,
        "minutes": template.minutes,
        "conventions": conventions,
        "references": _references(template),
        "n_layers": n_layers_in(env, template),
        "warnings": tuple(OUTSIDE_RANGE + c.source for c in broken),
        "_main": main,
        "_count": len(template.parts),
    }
    if not pending:
        known["variables"] = {v.name: env[v.name] for v in names}
    if any(number > 1 for number in by_part):  # a later part's own numbers may break its constraints:
        made = rest()  # the warnings name them, so the parts are drawn now
        known["warnings"] += tuple(OUTSIDE_RANGE + c for c in broken_parts)
        return Instance(**{k: v for k, v in known.items() if not k.startswith("_")}, **made)
    return Instance.lazy(known, rest, lock)


#: The stream given a later part that draws no number and has none given: never read (``draw_part``
#: reads a part's stream only to draw a variable or a given preset's own fields).
_UNREAD = random.Random(0)


def grade_context(question: Part) -> GradeContext:
    """What the grader needs to know of a part beyond its value: the unit a bare number means, the dtype,
    the layers in scope and their name, whether the question asks for one layer, the named factors the
    answer is proportional to (its derivation's last step's, which make the slips of their families) and
    the derivation itself (a typed product is read against its last step)."""
    factors = question.derivation[-1].factors if question.derivation else ()
    return GradeContext(
        question.display_unit,
        question.dtype,
        question.layers,
        question.layers_label,
        question.per_layer,
        factors,
        question.derivation,
    )


@per_template
def _derivations(template: Template) -> dict[tuple[Any, ...], tuple[tuple[Step, ...], str]]:
    """The derivations of a template's answers made so far, with their tables, by part and by the values
    (and types) of the names the answer reads: a derivation follows from them (the calculators are pure,
    a part's labels are the template's)."""
    return {}


@per_template
def _figures(template: Template) -> dict[tuple[Any, ...], tuple[int | None]]:
    """The figures a template's parts needed so far, by part, the answer's value and type, the grading
    context's dtype, layers and their label, and the mistakes' values: the figures follow from them (the
    built-in slips from the answer and the context)."""
    return {}


@per_template
def _said(template: Template) -> dict[tuple[Any, ...], tuple[str, str]]:
    """The answers shown and the tolerance sentences of a template's parts so far, by part, the answer's
    value and type, and the figures: they follow from these (and the part)."""
    return {}


@per_template
def _references(template: Template) -> tuple[tuple[str, str], ...]:
    """The template's references as (title, URL) pairs, as an instance holds them."""
    return tuple((r.title, r.url) for r in template.references)


@per_template
def _part_names(
    template: Template,
) -> tuple[tuple[dict[str, tuple[str | None, str | None]], dict[str, str]], ...]:
    """For each part, its variables' formats (style, unit) and labels, as ``_Scope.enter`` adds them: once
    per template (shared: never change them)."""
    return tuple(
        (
            {v.name: (v.format, v.unit) for v in spec.variables},
            {v.name: v.label for v in spec.variables if v.label},
        )
        for spec in template.parts
    )


class _Scope:
    """What the parts of one instance share as they are rendered in order: the names known so far (each
    earlier part's answer as ``partK`` too), their display forms, labels and formats, the evaluation
    budget, and the characters of text left."""

    def __init__(self, template: Template, env: dict[str, Any], budget: Budget) -> None:
        self.template = template
        self.env = env if isinstance(env, Pending) else dict(env)  # a Pending is the draw's, not shared
        self.displays: dict[str, str] = {}
        self._labels: dict[str, str] | None = None  # made on first need: a question shown reads none
        self.formats: dict[str, tuple[str | None, str | None]] = {}
        self.budget = budget
        self.left = MAX_TEXT_CHARS

    @property
    def labels(self) -> dict[str, str]:
        """How formulas name the variables in words (``template_labels``, then each later part's own and
        ``partK``)."""
        if self._labels is None:
            self._labels = template_labels(self.template)
        return self._labels

    def enter(self, spec: PartSpec) -> None:
        """Part ``spec`` is rendered next: its variables' formats and labels join the scope."""
        formats, labels = _part_names(self.template)[spec.number - 1]
        self.formats.update(formats)
        if spec.number > 1:
            self.labels.update(labels)

    def answered(self, number: int, part: Part) -> None:
        """Part ``number`` is rendered: later parts know its answer as ``part{number}``."""
        self.env[f"part{number}"] = part.value
        self.displays[f"part{number}"] = part.display
        self.labels[f"part{number}"] = f"part {number}"


class _Renderer:
    """Renders one part: its answer and derivation, mistakes, figures, tolerance sentence and texts."""

    def __init__(self, template: Template, spec: PartSpec, scope: _Scope) -> None:
        self.template, self.spec, self.scope = template, spec, scope
        scope.enter(spec)
        self.env = scope.env
        self.fns = calculators()
        # the names the texts show: a copy, or one reading through a Pending (evaluating what it shows)
        self.shown: dict[str, Any] = _Shown(scope.env) if isinstance(scope.env, Pending) else dict(scope.env)
        self._derived: tuple[tuple[Step, ...], str] | None = None

    def fail(self, field: str, message: str) -> TemplateError:
        return TemplateError(self.template.path, self.template.id, self.spec.field(field), message)

    def value(self, expr: Expr, field: str) -> Any:
        """``expr``'s value (the calculators are pure: remembered), else a TemplateError naming ``field``."""
        try:
            return expr.remembered(self.env, self.fns, self.scope.budget)
        except ExprError as exc:
            raise self.fail(field, str(exc)) from None

    def _says_bare_percent(self, spec: PartSpec) -> bool:
        """Whether the conventions shown with part ``spec`` already say a bare number is a percentage
        (part 1's are the template's; a later part shows only its tolerance sentence)."""
        shown = self.template.conventions if spec.number == 1 else ()
        return any("bare number" in c.lower() and "percent" in c.lower() for c in shown)

    def text(self, source: str, field: str, hide: bool = False) -> str:
        if self._derived is None and _shows_derivation(source):  # a text showing it: the derivation first
            self.derivation()
        if hide:
            source = masked(source)
        try:  # an earlier part's answer, {part1}, shows in its display form (``displays``)
            out = render_text(source, self.shown, self.scope.formats, self.scope.left, self.scope.displays)
        except TextTooLong:
            message = (
                f"with placeholders filled in, the texts of one instance pass {MAX_TEXT_CHARS:,} characters"
            )
            raise self.fail(field, message) from None
        except TextError as exc:
            raise self.fail(field, str(exc)) from None
        self.scope.left -= len(out)
        return out

    def number(self, expr: Expr, field: str) -> int | float:
        """The value of ``expr``, a number the grader can take (else a TemplateError naming ``field``)."""
        value = self.value(expr, field)
        if plainly_finite(value):  # most: a number that is a float too, no field named
            return value  # type: ignore[no-any-return]
        return gradable(self.template, value, self.spec.field(field))

    def holds(self, condition: Expr | None, field: str) -> bool:
        return condition is None or bool(self.value(condition, field))

    def joined(self, key: str, chosen: tuple[TextPart, ...]) -> tuple[str, list[TextPart]]:
        """A field's text from the parts whose condition holds (joined by blank lines), and those parts."""
        if len(chosen) == 1 and chosen[0].when is None:
            return self.text(chosen[0].text, key), list(chosen)
        kept = [
            (i, p) for i, p in enumerate(chosen) if p.when is None or self.holds(p.when, f"{key}[{i}].when")
        ]
        joined = "\n\n".join(self.text(p.text, f"{key}[{i}].text").strip("\n") for i, p in kept)
        return joined, [p for _, p in kept]

    def render(self, own: dict[str, Any] | None, lock: Any) -> Part:
        """The part, its own variables ``own`` drawn: what a question shows now (the answer's value, the
        figures that tell it from its mistakes, the tolerance sentence and the prompt: the figures need the
        mistakes' values), and on first need (``Part.LATER``, under ``lock``) the derivation, the
        explanation, the mistakes' feedback, the TL;DR and the nudges (and the variables, when ``own`` is
        None: read from the env, a ``Pending``, when first needed)."""
        spec = self.spec
        value = self.number(spec.answer, "answer.expr")
        # an estimate (a factor tolerance) asks for no figures: its mistakes' values are not read until
        # the rest is made (the figures are the only thing here that reads them)
        chosen = None if spec.tolerance.kind == "factor" else self.chosen()
        dtype, layers = self.dtype(), self.layers()
        label_key = spec.context_key("layers_label")
        layers_label = self.text(spec.layers_label, label_key) if spec.layers_label else None
        per_unit = display_scale(spec.unit, spec.display) if spec.display else 1
        figures = None
        if chosen is not None:
            # the figures follow from the answer, the grading context and the mistakes' values: kept
            made = _figures(self.template)
            key = (spec.number, value, type(value), dtype, layers, layers_label, *(v for _, _, v in chosen))
            kept = made.get(key)  # (figures,): None is an answer too (no figures fit)
            if kept is not None:
                figures = kept[0]
            else:
                context = _context(spec.display, dtype, layers, layers_label, spec.per_layer)
                # the built-in slips as the grader will try them: only their values are read here
                # (``slips`` writes a feedback sentence when it is read: builtin_mistakes writes each now)
                found = slips(value, spec.unit, context, tolerance=spec.tolerance)
                # the template's mistakes and the slips by their values (all the figures are worked out from)
                tried = [*(v for _, _, v in chosen), *(slip.value for slip in found)]
                figures = figures_of_values(value, spec.tolerance, tried, per_unit=per_unit)[0]
                if len(made) >= 512:
                    made.clear()
                made[key] = (figures,)
        # the answer shown and the tolerance sentence follow from the value and the figures: kept (not
        # for 0: 0.0 and -0.0 are equal keys)
        said = _said(self.template)
        at: tuple[Any, ...] | None = (spec.number, value, type(value), figures) if value else None
        texts = said.get(at) if at is not None else None
        if texts is None:
            try:
                shown = answer_display(value, spec.unit, spec.display, figures)
            except (ValueError, ArithmeticError) as exc:
                raise self.fail("answer.expr", f"cannot be shown: {exc}") from None
            stated = tolerance_text(
                spec.tolerance,
                kind=self.template.kind,
                unit=spec.unit,
                value=value,
                figures=figures,
                display_unit=spec.display,
                per_unit=per_unit,
            )
            if spec.display == "%" and not self._says_bare_percent(spec):
                stated += " A bare number is read as a percentage (52 means 52%)."
            texts = (shown, stated)
            if at is not None:
                if len(said) >= 512:
                    said.clear()
                said[at] = texts
        self.shown["answer"], stated = texts
        prompt = self.text(spec.prompt, "prompt")
        known = {
            "number": spec.number,
            "prompt": prompt,
            "value": value,
            "unit": spec.unit,
            "display": self.shown["answer"],
            "display_unit": spec.display,
            "tolerance": spec.tolerance,
            "tolerance_text": stated,
            "needed_figures": figures,
            "carry": spec.carry,
            "dtype": dtype,
            "layers": layers,
            "layers_label": layers_label,
            "per_layer": spec.per_layer,
            "masked_prompt": prompt if spec.number == 1 else self.text(spec.prompt, "prompt", hide=True),
        }
        if own is not None:
            known["variables"] = own
            return Part.lazy(known, lambda: self.rest(chosen), lock)
        env = self.env
        return Part.lazy(
            known,
            lambda: {**self.rest(chosen), "variables": {v.name: env[v.name] for v in spec.variables}},
            lock,
        )

    def chosen(self) -> list[tuple[int, MistakeSpec, int | float]]:
        """The part's mistakes whose condition holds, each with its index and value."""
        return [
            (i, m, self.number(m.expr, f"mistakes[{i}].answer"))
            for i, m in enumerate(self.spec.mistakes)
            if m.when is None or self.holds(m.when, f"mistakes[{i}].when")
        ]

    def rest(self, chosen: list[tuple[int, MistakeSpec, int | float]] | None) -> dict[str, Any]:
        """The fields of ``Part.LATER``: the derivation, the explanation (the derivation's table after it
        unless it shows ``{derivation}``), the ``chosen`` mistakes (None: an estimate's, evaluated now)
        with their feedback, TL;DR, nudges."""
        spec = self.spec
        if chosen is None:
            chosen = self.chosen()
        derivation, table = self.derivation()
        explanation, kept = self.joined("explanation", spec.explanation_parts)
        if not any("{derivation}" in p.text for p in kept):
            explanation = f"{explanation.rstrip()}\n\n{table}"
        mistakes = tuple(
            MistakeValue(
                name=m.name,
                value=v,
                feedback=self.text(m.feedback, f"mistakes[{i}].feedback"),
                title=m.title or title_from_name(m.name),
                family=m.family or "own",
            )
            for i, m, v in chosen
        )
        return {
            "mistakes": mistakes,
            "derivation": derivation,
            "explanation": explanation,
            "tldr": self.joined("tldr", spec.tldr_parts)[0] if spec.tldr_parts else "",
            "nudges": tuple(self.text(n, f"nudges[{i}]") for i, n in enumerate(spec.nudges)),
        }

    def derivation(self) -> tuple[tuple[Step, ...], str]:
        """The answer's derivation and its table (which the texts may show), made once; its evaluation is
        not charged to the budget again (the answer's value was)."""
        if self._derived is None:
            spec = self.spec
            made = _derivations(self.template)  # the same numbers make the same derivation: kept
            try:
                key: tuple[Any, ...] | None = (spec.number, *spec.answer.memo_key(self.env))
            except (KeyError, TypeError):
                key = None
            found = made.get(key) if key is not None else None
            if found is None:
                field = spec.field("answer.expr")
                _, derivation = derive(
                    self.template, spec.answer, spec.unit, self.env, self.scope.labels, field
                )
                try:
                    table = derivation_table(derivation)
                except (ValueError, ArithmeticError) as exc:
                    raise self.fail("answer.expr", f"cannot be shown: {exc}") from None
                found = (derivation, table)
                if key is not None:
                    if len(made) >= 256:
                        made.clear()
                    made[key] = found
            self.shown["derivation"] = found[1]  # the answer joins it once its figures are known
            self.scope.left -= len(found[1])
            self._derived = found
        return self._derived

    def conventions(self, stated: str) -> tuple[str, ...]:
        """The template's conventions rendered with this part's names (part 1's), then the tolerance
        sentence ``stated``."""
        template = self.template
        return (*(self.text(c, f"conventions[{i}]") for i, c in enumerate(template.conventions)), stated)

    def teaching(self) -> dict[str, Any]:
        """The template's memory aid and the follow-ups whose conditions hold, with this part's names."""
        template = self.template
        aid = template.memory_aid_parts
        follow_ups = tuple(
            (
                self.text(f.question, f"follow_ups[{i}].question"),
                self.text(f.answer, f"follow_ups[{i}].answer"),
            )
            for i, f in enumerate(template.follow_ups)
            if f.when is None or self.holds(f.when, f"follow_ups[{i}].when")
        )
        return {"memory_aid": self.joined("memory_aid", aid)[0] if aid else "", "follow_ups": follow_ups}

    def dtype(self) -> str | None:
        """The dtype the answer counts bytes of: the part's ``dtype``, else the ``dtype`` variable."""
        if self.spec.dtype is None:
            value = self.env.get("dtype")
            return value if isinstance(value, str) else None
        key = self.spec.context_key("dtype")
        value = self.value(self.spec.dtype, key)
        if not isinstance(value, str):
            raise self.fail(key, f"gives {value!r}, not a dtype name")
        from quizzer.core.units import DTYPE_BITS

        if value not in DTYPE_BITS:
            raise self.fail(key, f"gives {value!r}, not a dtype{did_you_mean(value, DTYPE_BITS)}")
        return value

    def layers(self) -> int | None:
        """The layers in scope: the part's ``layers`` expression, else the model's layer count."""
        if self.spec.layers is None:
            return n_layers_in(self.env, self.template)
        key = self.spec.context_key("layers")
        value = self.value(self.spec.layers, key)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise self.fail(key, f"gives {value!r}, not a whole number of layers")
        return value


def _shows_derivation(source: str) -> bool:
    """Whether a text shows ``{derivation}`` (told once per text: it is read for each instance)."""
    found = _SHOWS_DERIVATION.get(source)
    if found is None:
        if len(_SHOWS_DERIVATION) > 20_000:  # the texts of every pack loaded: never let them pile up
            _SHOWS_DERIVATION.clear()
        found = _SHOWS_DERIVATION[source] = "{derivation" in source
    return found


#: ``_shows_derivation``'s answers, by text.
_SHOWS_DERIVATION: dict[str, bool] = {}


def _context(
    display: str | None, dtype: str | None, layers: int | None, layers_label: str | None, per_layer: bool
) -> GradeContext:
    """``GradeContext(display, dtype, layers, layers_label, per_layer)``, one object for each (a context
    is immutable; the parts of a template make the same few again and again)."""
    key = (display, dtype, layers, layers_label, per_layer)
    found = _CONTEXTS.get(key)
    if found is None:
        if len(_CONTEXTS) >= 1024:
            _CONTEXTS.clear()
        found = _CONTEXTS[key] = GradeContext(display, dtype, layers, layers_label, per_layer)
    return found


#: ``_context``'s contexts.
_CONTEXTS: dict[tuple[Any, ...], GradeContext] = {}


class _Shown(dict[str, Any]):
    """The names part 1's texts show when the env is a ``Pending``: each read through it on first need,
    beside what the renderer adds (the answer, the derivation table)."""

    __slots__ = ("env",)

    def __init__(self, env: Pending) -> None:
        super().__init__()
        self.env = env

    def __missing__(self, name: str) -> Any:
        value = self[name] = self.env[name]
        return value


def recompute_part(
    template: Template, instance: Instance, number: int, given: Mapping[int, int | float]
) -> int | float | None:
    """Part ``number``'s answer with ``part{k}`` replaced by ``given[k]`` for each earlier part k in
    ``given`` (the other earlier parts keep their true values); deterministic.

    The part variables keep the values the instance drew (a constraint the given values break is not
    re-checked and nothing is redrawn); only the derived ones are recomputed, so only what depends on a
    given value changes. None when an evaluation fails for those values (a calculator's SpecError, a
    division by zero...) or the answer is not a finite positive number. Raises PartError for a part the
    chain does not have, or a given part that is not before ``number``.
    """
    if not 2 <= number <= instance.part_count or len(template.parts) != len(instance.parts):
        raise PartError(f"part {number}: {instance.id} has parts 2 to {instance.part_count}")
    for k in given:
        if not 1 <= k < number:
            raise PartError(f"part {k} is not an earlier part of part {number}")
    fns, budget = calculators(), Budget()
    env: dict[str, Any] = {}
    try:
        for var in template.main.variables:
            expand(var, instance.variables[var.name], env)
        env["part1"] = given.get(1, instance.value)
        for spec, part in zip(template.parts[1:number], instance.parts[1:number], strict=True):
            for var in spec.variables:
                value = (
                    _derived(var.expr, env, fns, budget) if var.expr is not None else part.variables[var.name]
                )
                expand(var, value, env)
            if spec.number < number:
                env[f"part{spec.number}"] = given.get(spec.number, part.value)
        value = plain(template.parts[number - 1].answer.evaluate(env, fns, budget))
    except (QuizzerError, ArithmeticError, TypeError, ValueError, KeyError):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        finite = math.isfinite(float(value))
    except OverflowError:
        return None
    return value if finite and value > 0 else None


def _derived(
    expr: Expr, env: Mapping[str, Any], fns: Mapping[str, Callable[..., Any]], budget: Budget
) -> Any:
    return plain(expr.evaluate(env, fns, budget))


__all__ = [
    "OUTSIDE_RANGE",
    "Instance",
    "MistakeValue",
    "Part",
    "generate",
    "grade_context",
    "instances",
    "masked",
    "recompute_part",
]
