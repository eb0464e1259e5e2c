"""The identifiers lint: a snake_case name in a text a student reads (a formula, a label)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quizzer.bank.check.base import Lint
from quizzer.bank.check.identifiers_names import code_names
from quizzer.bank.check.identifiers_rows import mislabels, owners, preset_prefix, step_names
from quizzer.bank.check.lints import part_env
from quizzer.bank.check.literals_texts import source_texts
from quizzer.bank.expr.text import derivation_table
from quizzer.bank.read.schema import PartSpec, Template

if TYPE_CHECKING:
    from quizzer.bank.generate.instance import Instance, Part

_CODE_FIX = (
    "a student reads it as code: write it in words or notation, or quote a config key, module or "
    "function as code in backticks"
)


class Identifiers(Lint):
    """A name with an underscore that a student reads outside a code span (notation such as d_model or W_q
    aside, see ``identifiers_names``): written in a text of the template (found in ``__init__``), shown by
    a placeholder's value, or in a row of a derivation, the generated "Answer" row (a variable without a
    ``label``) or a calculator's step (a label or formula of quizzer/core); and a calculator's step whose
    formula names a field of the template's model (or ``k``) while it shows another number.
    """

    name = "identifiers"
    finds = "a snake_case name in a text a student reads (a formula, a label)"

    def __init__(self, template: Template) -> None:
        super().__init__(template)
        self.owners = owners(template)
        self.prefix = preset_prefix(template)
        #: The names written in each rendered field's source (a rendered name not among them came from a
        #: placeholder's value), by (part number or 0 for the template's texts, kind of text).
        self.written: dict[tuple[int, str], set[str]] = {}
        for text in source_texts(template):
            names = code_names(text.text, source=True)
            key = (text.part.number if text.part else 0, text.kind)
            self.written.setdefault(key, set()).update(names)
            for name in names:
                self.report(text.part, text.field, name, f"writes {name!r}: {_CODE_FIX}")
        #: The names the variables' labels write (a derivation's Answer row shows them).
        self.labelled: set[str] = set()
        for part in template.parts:
            for var in part.variables:
                for name in code_names(var.label or ""):
                    self.labelled.add(name)
                    self.report(
                        part,
                        f"variables.{var.name}.label",
                        name,
                        f"writes {name!r}, which a derivation's Answer row shows: {_CODE_FIX}",
                    )

    def visit(self, instance: Instance, seed: int) -> None:
        for spec, part in zip(self.template.parts, instance.parts, strict=True):
            self._texts(spec, part, seed)
            self._derivation(instance, spec, part, seed)
        shared = [
            *((f"conventions[{i}]", "conventions", c) for i, c in enumerate(instance.conventions)),
            ("memory_aid", "memory_aid", instance.memory_aid),
            *(("follow_ups", "follow_up", f"{q}\n{a}") for q, a in instance.follow_ups),
        ]
        for field, kind, text in shared:
            self._rendered(None, field, kind, text, seed)

    def _texts(self, spec: PartSpec, part: Part, seed: int) -> None:
        """The part's rendered texts: a name there that its source does not write came from a value."""
        table = derivation_table(part.derivation)
        index = {m.name: i for i, m in enumerate(spec.mistakes)}
        texts = [
            ("prompt", "prompt", part.prompt),
            ("explanation", "explanation", part.explanation.replace(table, "")),
            ("tldr", "tldr", part.tldr),
            *((f"nudges[{i}]", "nudge", n) for i, n in enumerate(part.nudges)),
            *((f"mistakes[{index[m.name]}].feedback", "feedback", m.feedback) for m in part.mistakes),
            ("layers_label", "layers_label", part.layers_label or ""),
        ]
        for field, kind, text in texts:
            self._rendered(spec, field, kind, text, seed)

    def _rendered(self, spec: PartSpec | None, field: str, kind: str, text: str, seed: int) -> None:
        written = self.written.get((spec.number if spec else 0, kind), set())
        for name in code_names(text):
            if name not in written:
                self.report(
                    spec,
                    field,
                    name,
                    f"seed {seed}: a placeholder shows {name!r}: a student reads it as code; give the text "
                    "a variable whose value is in words (an expr variable mapping the name)",
                )

    def _derivation(self, instance: Instance, spec: PartSpec, part: Part, seed: int) -> None:
        """Names of code in the part's derivation rows, and calculator steps that show another count."""
        env = None
        where = "" if len(instance.parts) == 1 else f" of part {spec.number}"
        for step in part.derivation:
            for name in step_names(step):
                self._row_name(spec, step.label, name, where, seed)
            if step.label == "Answer":
                continue
            if env is None:
                env = part_env(self.template, instance, spec.number)
            for symbol, field, value in mislabels(step, env, self.prefix):
                self.report(
                    spec,
                    "answer.expr",
                    f"mislabel {step.label} {symbol}",
                    f"seed {seed}: the derivation{where} row {step.label!r} writes {step.formula!r}: its "
                    f"{symbol!r} names the model's {field} ({value:,}), which its numbers "
                    f"({step.substituted}) do not hold; the row counts something else under that name: "
                    "name it for what it counts (a step label in quizzer/core)",
                )

    def _row_name(self, spec: PartSpec, label: str, name: str, where: str, seed: int) -> None:
        owner = self.owners.get(name)
        if label == "Answer" and name in self.labelled:
            return  # a variable's label, reported where it is written
        if label == "Answer" and owner is not None:
            self.report(
                owner.part,
                f"variables.{owner.variable}",
                name,
                f"seed {seed}: shows as {name!r} in the Answer row of the derivation{where}: give the "
                'variable a label in words (label = "...")',
            )
            return
        preset = f"{self.prefix}_{name}" if self.prefix else None
        if label == "Answer" and preset in self.owners:
            fix = (
                f"the preset field shows by its name: use an expr variable for {preset} with a label in words"
            )
        elif label == "Answer":
            fix = "it is a calculator result's step label: reword that step in quizzer/core"
        else:
            fix = f"the row {label!r} comes from a calculator: reword its label or formula in quizzer/core"
        self.report(
            spec,
            "answer.expr",
            name,
            f"seed {seed}: the derivation{where} writes {name!r}; {fix}",
        )


__all__ = ["Identifiers"]
