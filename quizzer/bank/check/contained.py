"""The contained lint: a preset field a derivation reads that the prompt and conventions never state.

Two findings, both about what a part's answer rests on that the student is not told:

- **unstated**: a model preset's field the answer reads (by name, ``model_n_layers``, or inside a
  calculator given the preset, ``model_params_of(model)``: see ``contained_trace``), through the answer
  and the derived variables it uses that the student is not shown (a placeholder of a prompt read so far
  or of a convention, or a number printed there, is shown; so is an earlier part's answer), when the texts
  read before the part do not state it (``contained_stated``) and a student who assumes it (its default,
  or what the spec derives from stated fields) would not grade correct.
- **reading**: a convention that changes the number left unsaid: reading a step the other way (the token
  table read whole or as a lookup, W or W − 1 tokens in a window: ``contained_readings``) grades outside
  the band, and no sentence read before the part says which way; or a sentence says how the table is
  read and the derivation reads it the other way.

Each finding is reported once per part and route (the variable the field is read through), with the
first seed that shows it and the other presets that share it. What a student may assume is weighed on the
first instance of each preset and field, then remembered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quizzer.bank.check.base import Lint
from quizzer.bank.check.contained_readings import ABOUT, leaves_table_out, moved, readings_of, said
from quizzer.bank.check.contained_stated import (
    EITHER_WAY,
    Shown,
    assumed,
    counted,
    field_text,
    perturbed,
    printed,
    shown,
    summed,
    worded,
)
from quizzer.bank.check.contained_trace import Calls, reads, reevaluate, same_change
from quizzer.bank.check.lints import part_env, scope
from quizzer.bank.check.omissions import givens
from quizzer.bank.errors import TemplateError
from quizzer.bank.expr.text import answer_display
from quizzer.bank.read.variables import PART_NAME_RE
from quizzer.core.presets import preset
from quizzer.core.spec import ModelSpec
from quizzer.grading.bands import is_within

if TYPE_CHECKING:
    from quizzer.bank.expr.expression import Expr
    from quizzer.bank.generate.instance import Instance
    from quizzer.bank.read.schema import Template

#: Fields a message lists before "and N more".
MAX_LISTED = 8
#: What ``needs`` maps a (preset variable, field) to: the derived variable it is read through (None: the
#: answer's own expression).
Route = str | None


class Contained(Lint):
    """Preset fields an answer reads that no text read before it states; readings of a step left unsaid."""

    name = "contained"
    finds = "a preset field a derivation reads that the prompt and conventions never state"

    def __init__(self, template: Template) -> None:
        super().__init__(template)
        variables = [v for part in template.parts for v in part.variables]
        self.presets = [v.name for v in variables if v.kind == "preset"]
        self.field_of = {f"{p}_{f}": (p, f) for p in self.presets for f in ModelSpec._fields}
        self.derived: dict[str, Expr] = {v.name: v.expr for v in variables if v.expr is not None}
        self.givens = [givens(scope(template, part.number)) for part in template.parts]
        self.memo: dict[Any, Any] = {}
        self.calls = Calls(memo=self.memo)
        self.readings = readings_of(template)
        self.accepted: dict[tuple[int, str, str], tuple[bool, tuple[str, ...]]] = {}
        #: (part, route) -> the first seed, then each (preset variable, preset)'s unstated (field, value)
        self.unstated: dict[tuple[int, Route], tuple[int, dict[tuple[str, str], list[tuple[str, Any]]]]] = {}
        #: (part, reading) already reported
        self.settled: set[tuple[int, str]] = set()

    def visit(self, instance: Instance, seed: int) -> None:
        for part in self.template.parts:
            number = part.number
            readings = [
                (reading, parts)
                for reading, parts in self.readings.items()
                if number in parts and (number, reading) not in self.settled
            ]
            if not self.presets and not readings:  # nothing to weigh: what the texts show is not read
                continue
            seen = self._shown(instance, number)
            if self.presets:
                self._contained(instance, seed, number, seen)
            for reading, parts in readings:
                self._reading(instance, seed, number, reading, parts, seen)

    def _shown(self, instance: Instance, number: int) -> Shown:
        template = self.template
        raw = [*(p.prompt for p in template.parts[:number]), *template.conventions]
        rendered = [*(p.prompt for p in instance.parts[:number]), *instance.conventions]
        return shown(raw, rendered)

    def _contained(self, instance: Instance, seed: int, number: int, seen: Shown) -> None:
        env = part_env(self.template, instance, number)
        given = frozenset(self.givens[number - 1] | seen.names)
        needs = self._needs(env, number, given, seen)
        missing: dict[Route, list[tuple[str, str]]] = {}
        queue, done = list(needs.items()), set(needs)
        while queue:
            (variable, field), route = queue.pop(0)
            if self._stated(env, variable, field, given, seen):
                continue
            ok, extra = self._accept(instance, number, env, variable, field, given)
            for more in extra:
                if (variable, more) not in done:
                    done.add((variable, more))
                    queue.append(((variable, more), route))
            if not ok:
                missing.setdefault(route, []).append((variable, field))
        for route, fields in missing.items():
            _, models = self.unstated.setdefault((number, route), (seed, {}))
            for variable, field in fields:
                listed = models.setdefault((variable, env[variable]), [])
                if field not in (f for f, _ in listed):
                    listed.append((field, getattr(preset(env[variable]).spec, field)))

    def _needs(
        self, env: dict[str, Any], number: int, given: frozenset[str], seen: Shown
    ) -> dict[tuple[str, str], Route]:
        """Each (preset variable, field) part ``number``'s answer reads, with the route it is read by."""
        needs: dict[tuple[str, str], Route] = {}
        queue: list[tuple[Route, Expr]] = [(None, self.template.parts[number - 1].answer)]
        visited: set[str] = set()
        while queue:
            route, expr = queue.pop(0)
            names, fields = reads(expr, env, self.calls)
            for name in sorted(names):
                if name in given or PART_NAME_RE.match(name):
                    continue
                if name in self.field_of:
                    needs.setdefault(self.field_of[name], route)
                elif name in self.derived and name not in visited and not printed(env[name], seen):
                    visited.add(name)
                    queue.append((name, self.derived[name]))
            for model, field in sorted(fields):
                for variable in self.presets:
                    if env.get(variable) == model:
                        needs.setdefault((variable, field), route)
        return needs

    def _stated(
        self, env: dict[str, Any], variable: str, field: str, given: frozenset[str], seen: Shown
    ) -> bool:
        """Whether the texts read state ``field`` of the preset ``variable``: its placeholder, a shown
        variable made from it and equal to it, its value printed, or words for it."""
        name = f"{variable}_{field}"
        value = getattr(preset(env[variable]).spec, field)
        if name in given or counted(value, seen) or summed(value, seen) or worded(field, value, seen):
            return True
        return any(
            other in self.derived
            and name in self.derived[other].names
            and (env.get(other) == value or isinstance(env.get(other), str))
            for other in given
        )

    def _accept(
        self,
        instance: Instance,
        number: int,
        env: dict[str, Any],
        variable: str,
        field: str,
        given: frozenset[str],
    ) -> tuple[bool, tuple[str, ...]]:
        """Whether part ``number`` may leave ``field`` unstated, and the fields that rests on; weighed on
        the first instance of each part, preset and field."""
        key = (number, env[variable], field)
        if key not in self.accepted:
            self.accepted[key] = self._weigh(instance, number, env, variable, field, given)
        return self.accepted[key]

    def _weigh(
        self,
        instance: Instance,
        number: int,
        env: dict[str, Any],
        variable: str,
        field: str,
        given: frozenset[str],
    ) -> tuple[bool, tuple[str, ...]]:
        """A field may go unstated when a student who assumes it (``assumed``) grades correct, when the
        answer hardly depends on it (a field with no default doubled, a flag flipped, still grades correct),
        or when what it changes reaches the answer only through a number the texts show (a change of the
        field moves the answer exactly as it moves a shown variable: the active parameters from a shown
        total)."""
        spec = preset(env[variable]).spec
        guess, extra = assumed(spec, field)
        if guess is not None and field not in EITHER_WAY and getattr(guess, field) == getattr(spec, field):
            return True, extra
        part = instance.parts[number - 1]
        changed = guess if guess is not None else perturbed(spec, field)
        if changed is None:
            return False, ()
        held = self._recompute(instance, number, env, variable, field, changed, given)
        if held is not None and is_within(held[f"part{number}"], part.value, part.tolerance):
            return True, ()
        moved = self._recompute(instance, number, env, variable, field, changed)
        if moved is None:
            return False, ()
        after = moved[f"part{number}"]
        return after == part.value or any(
            same_change(part.value, after, env[v], moved.get(v)) for v in given
        ), ()

    def _recompute(
        self,
        instance: Instance,
        number: int,
        env: dict[str, Any],
        variable: str,
        field: str,
        spec: ModelSpec,
        hold: frozenset[str] = frozenset(),
    ) -> dict[str, Any] | None:
        """Part ``number``'s names with the preset of ``variable`` replaced by ``spec`` (``field`` changed),
        the variables in ``hold`` and the earlier answers kept."""
        value = getattr(spec, field)
        return reevaluate(
            self.template,
            instance,
            number,
            Calls({env[variable]: spec}, memo=self.memo),
            fields={f"{variable}_{field}": 0 if value is None else value},
            hold=hold,
            held_parts=frozenset(range(1, number)),
        )

    def _reading(
        self, instance: Instance, seed: int, number: int, reading: str, parts: frozenset[int], seen: Shown
    ) -> None:
        way = said(reading, [seen.text])
        if way == "said":
            return
        other = moved(reading, self.template, instance, number, parts, self.memo)
        if other is None:
            return
        part = instance.parts[number - 1]
        share = abs(other - part.value) / abs(part.value)
        shown_other = answer_display(other, part.unit, part.display_unit)
        if way is None:
            what, fix = ABOUT[reading]
            message = (
                f"seed {seed}: no prompt or convention read before this part says {what}; the other "
                f"reading moves the answer by {share:.1%} (to {shown_other}), outside the band: {fix}"
            )
        else:
            out = leaves_table_out(self.template, instance, number, parts, self.memo)
            if out is None or out == (way == "row"):
                return
            text = "one row per sequence (a lookup)" if way == "row" else "whole"
            done = "reads it whole" if way == "row" else "leaves it out"
            message = (
                f"seed {seed}: the texts read before this part say a decode step reads the token table "
                f"{text}, but the derivation {done}: the other reading moves the answer by {share:.1%} (to "
                f"{shown_other}); make the derivation follow the convention (a variable both use)"
            )
        self.report(self.template.parts[number - 1], "answer.expr", reading, message)
        self.settled.add((number, reading))

    def problems(self) -> list[TemplateError]:
        for (number, route), (seed, models) in self.unstated.items():
            self._report_unstated(number, route, seed, models)
        return super().problems()

    def _report_unstated(
        self, number: int, route: Route, seed: int, models: dict[tuple[str, str], list[tuple[str, Any]]]
    ) -> None:
        ((variable, first), fields), *others = models.items()
        listed = ", ".join(f"{f} ({field_text(v)})" for f, v in fields[:MAX_LISTED])
        if len(fields) > MAX_LISTED:
            listed += f" and {len(fields) - MAX_LISTED} more"
        through = f" through {route}" if route else ""
        also = "; ".join(
            f"{model}: {', '.join(f for f, _ in more[:MAX_LISTED])}" for (_, model), more in others
        )
        placeholders = " ".join(f"{{{variable}_{f}}}" for f, _ in fields[:MAX_LISTED])
        fix = f"show {{{route}}} or state {placeholders}" if route else f"state {placeholders}"
        message = (
            f"seed {seed}: the answer reads {first}'s {listed}{through}, and no prompt or convention read "
            f"before it states them{f' (also {also})' if also else ''}: {fix} in the prompt or a convention, "
            "or change the preset or the calculator"
        )
        self.report(self.template.parts[number - 1], "answer.expr", f"unstated {route}", message)


__all__ = ["Contained"]
