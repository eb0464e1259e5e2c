"""What an answer reads of a model preset: the names its expressions use and the spec fields calculators read.

The calculators that take a preset's name (``model_params_of(model)``...) look its spec up themselves. Here
each is called on a copy of the spec whose class records every field read (``recording``), so a lint sees
which fields a number rests on. ``Calls`` stands in for the calculators in an evaluation: it records those
reads, remembers results (calculators are pure), and can answer with a changed spec (a field set to what
a student would assume), without the input token table (``table_free``) or with the other window
convention (``flip_window``): the variants the contained lint weighs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from importlib import import_module
from typing import TYPE_CHECKING, Any

from quizzer.bank.errors import ExprError
from quizzer.bank.expr.expression import Expr, plain
from quizzer.bank.generate.draw import expand
from quizzer.bank.read.names import calculators
from quizzer.core.errors import QuizzerError
from quizzer.core.presets import preset_spec
from quizzer.core.spec import ModelSpec

if TYPE_CHECKING:
    from quizzer.bank.generate.instance import Instance
    from quizzer.bank.read.schema import Template
    from quizzer.bank.read.variables import Variable

#: Each calculator that takes a preset's name, as (module, the function it calls with the preset's spec):
#: ``name(model, *rest)`` is ``function(preset_spec(model), *rest)``. A test holds this to quizzer.core.
SPEC_CALCULATORS: dict[str, tuple[str, str]] = {
    "model_params_of": ("model", "model_params"),
    "model_active_params_of": ("model", "model_active_params"),
    "model_non_embedding_params_of": ("model", "non_embedding_params"),
    "model_kv_bytes_per_token_of": ("kv_model", "model_kv_bytes_per_token"),
    "model_kv_cache_bytes_of": ("kv_model", "model_kv_cache_bytes"),
    "model_kv_growth_bytes_per_token_of": ("kv_model", "model_kv_growth_bytes_per_token"),
    "model_kv_window_cap_bytes_of": ("kv_model", "model_kv_window_cap_bytes"),
    "model_mixer_params_of": ("hybrid", "model_mixer_params"),
    "model_state_bytes_of": ("hybrid", "model_state_bytes"),
    "model_cache_bytes_of": ("hybrid", "model_cache_bytes"),
    "model_state_crossover_of": ("hybrid", "model_state_crossover"),
    "model_mtp_params_of": ("model", "mtp_module_params"),
}
#: The calculators whose count includes the input token table (the one a decode step looks rows up in).
TABLE_COUNTS = frozenset({"model_params_of", "model_active_params_of"})
#: The two window conventions of quizzer.core.kv ('paper': W tokens; 'hf': W - 1).
_OTHER_WINDOW = {"paper": "hf", "hf": "paper"}
#: What an evaluation can raise on a changed input: the variant is then no answer.
FAILURES = (ExprError, QuizzerError, ArithmeticError, TypeError, ValueError)


def recording(spec: ModelSpec, log: set[str]) -> ModelSpec:
    """A copy of ``spec`` that adds to ``log`` the name of every field read from it (copies made from it
    with ``replace`` record into the same log).

    >>> log: set[str] = set()
    >>> spy = recording(ModelSpec(vocab_size=8, d_model=64, n_layers=2, n_heads=4, d_ff=128), log)
    >>> spy.n_layers * spy.d_model, sorted(log)
    (128, ['d_model', 'n_layers'])
    """
    fields = ModelSpec._field_set

    def read(self: ModelSpec, name: str) -> Any:
        if name in fields:
            log.add(name)
        return object.__getattribute__(self, name)

    spy = type("RecordingSpec", (ModelSpec,), {"__getattribute__": read})
    copy: ModelSpec = spy(**spec.as_dict())
    log.clear()  # building the copy read every field
    return copy


def _convention_index(fn: Callable[..., Any]) -> int | None:
    """The position of a ``convention`` parameter of ``fn`` (None: it has none)."""
    code = getattr(fn, "__wrapped__", fn).__code__  # the calculator under its memo (quizzer.core)
    names = code.co_varnames[: code.co_argcount]
    return names.index("convention") if "convention" in names else None


class Calls(Mapping[str, Callable[..., Any]]):
    """The calculators, for one template's evaluations: the fields of presets read are added to ``fields``
    as (preset name, field); results are remembered by arguments.

    ``specs`` replaces a preset's spec by name (a field changed), ``table_free`` leaves the input token
    table out of the counts of an untied model (``TABLE_COUNTS``), ``flip_window`` calls every calculator
    that takes a window convention with the other one.
    """

    def __init__(
        self,
        specs: Mapping[str, ModelSpec] | None = None,
        *,
        table_free: bool = False,
        flip_window: bool = False,
        memo: dict[Any, Any] | None = None,
    ) -> None:
        self.base = calculators()
        self.specs = dict(specs or {})
        self.table_free, self.flip_window = table_free, flip_window
        self.fields: set[tuple[str, str]] = set()
        self.memo: dict[Any, Any] = {} if memo is None else memo

    def __getitem__(self, name: str) -> Callable[..., Any]:
        found: Callable[..., Any] | None = self.get(name)
        if found is None:
            raise KeyError(name)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self.base)

    def __len__(self) -> int:
        return len(self.base)

    def get(self, name: str, default: Any = None) -> Any:
        fn = self.base.get(name)
        if fn is None:
            return default

        def call(*args: Any, **kwargs: Any) -> Any:
            if self.flip_window:
                args, kwargs = _flipped(fn, args, kwargs)
            model = args[0] if name in SPEC_CALCULATORS and args and isinstance(args[0], str) else None
            changed = self.specs.get(model) if model is not None else None
            key = (name, changed, *((type(a), a) for a in args), *sorted(kwargs.items()))
            if key not in self.memo:
                if len(self.memo) > 50_000:
                    self.memo.clear()
                self.memo[key] = self._call(name, fn, model, changed, args, kwargs)
            result, read = self.memo[key]
            if model is not None:
                self.fields.update((model, field) for field in read)
                if self.table_free and name in TABLE_COUNTS:
                    return plain(result) - table_params(changed or preset_spec(model))
            return result

        return call

    def _call(
        self,
        name: str,
        fn: Callable[..., Any],
        model: str | None,
        changed: ModelSpec | None,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> tuple[Any, frozenset[str]]:
        if model is None:
            return fn(*args, **kwargs), frozenset()
        module, function = SPEC_CALCULATORS[name]
        inner = getattr(import_module(f"quizzer.core.{module}"), function)
        log: set[str] = set()
        result = inner(recording(changed or preset_spec(model), log), *args[1:], **kwargs)
        return result, frozenset(log)


def _flipped(
    fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The arguments of a call of ``fn`` with its window convention swapped (left as they are if it takes
    none)."""
    index = _convention_index(fn)
    if index is None:
        return args, kwargs
    if "convention" in kwargs:
        kwargs = {**kwargs, "convention": _OTHER_WINDOW.get(kwargs["convention"], kwargs["convention"])}
    elif index < len(args):
        args = (*args[:index], _OTHER_WINDOW.get(args[index], args[index]), *args[index + 1 :])
    else:
        kwargs = {**kwargs, "convention": "hf"}  # the default is 'paper'
    return args, kwargs


def table_params(spec: ModelSpec) -> int:
    """The input token table a decode step looks rows up in, when a separate (untied) head is what the step
    reads whole; 0 for a tied model, whose head is that table.

    >>> table_params(preset_spec("llama-3-8b")), table_params(preset_spec("gemma-3-4b"))
    (525336576, 0)
    """
    if spec.tie_embeddings or not spec.lm_head:
        return 0
    return spec.vocab_size * spec.d_model


class Reading(dict[str, Any]):
    """The names of an evaluation, noting in ``read`` each one it reads."""

    def __init__(self, env: Mapping[str, Any]) -> None:
        super().__init__(env)
        self.read: set[str] = set()

    def __getitem__(self, name: str) -> Any:
        self.read.add(name)
        return super().__getitem__(name)


def reads(expr: Expr, env: Mapping[str, Any], calls: Calls) -> tuple[set[str], set[tuple[str, str]]]:
    """The names ``expr`` reads from ``env`` (the branches taken only) and the preset fields its calculators
    read, as (preset name, field); both empty when it fails."""
    names = Reading(env)
    calls.fields = set()
    try:
        expr.evaluate(names, calls)
    except FAILURES:
        return set(), set()
    return names.read, calls.fields


def reevaluate(
    template: Template,
    instance: Instance,
    number: int,
    calls: Calls,
    *,
    fields: Mapping[str, Any] | None = None,
    hold: frozenset[str] = frozenset(),
    held_parts: frozenset[int] = frozenset(),
) -> dict[str, Any] | None:
    """The names of part ``number`` recomputed with ``calls``, its answer as ``part{number}``: every drawn
    value as ``instance`` drew it, ``fields`` setting preset fields (``model_n_layers``...) after their
    preset is expanded, the derived variables in ``hold`` kept at their values, the other derived ones and
    the answers of earlier parts not in ``held_parts`` recomputed (a held part keeps its true value). None
    when it cannot be computed.
    """
    fields = fields or {}
    env: dict[str, Any] = {}

    def define(var: Variable, value: Any) -> None:
        if var.expr is None or var.name in hold:
            expand(var, value, env)
            if var.kind == "preset":
                env.update({k: v for k, v in fields.items() if k.startswith(f"{var.name}_")})
        else:
            env[var.name] = plain(var.expr.evaluate(env, calls))

    try:
        for var in template.main.variables:
            define(var, instance.variables[var.name])
        for spec, part in zip(template.parts[:number], instance.parts[:number], strict=True):
            if spec.number > 1:
                earlier = spec.number - 1
                if earlier in held_parts:
                    env[f"part{earlier}"] = instance.parts[earlier - 1].value
                for var in spec.variables:
                    define(var, part.variables[var.name])
            env[f"part{spec.number}"] = plain(spec.answer.evaluate(env, calls))
    except FAILURES:
        return None
    return env


def same_change(before: Any, after: Any, shown_before: Any, shown_after: Any) -> bool:
    """Whether a shown number moved as the answer did (by the same amount, or the same factor)."""
    numbers = (before, after, shown_before, shown_after)
    if not all(isinstance(n, int | float) and not isinstance(n, bool) for n in numbers):
        return False
    if shown_after == shown_before:
        return False
    if math.isclose(after - before, shown_after - shown_before, rel_tol=1e-9):
        return True
    return bool(before and shown_before) and math.isclose(
        after / before, shown_after / shown_before, rel_tol=1e-9
    )


__all__ = [
    "FAILURES",
    "SPEC_CALCULATORS",
    "TABLE_COUNTS",
    "Calls",
    "Reading",
    "reads",
    "recording",
    "reevaluate",
    "same_change",
    "table_params",
]
