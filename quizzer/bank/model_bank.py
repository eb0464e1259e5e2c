"""A bank posed for one model: the templates that take a model, each asked about that model (``--model``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quizzer.bank.errors import TemplateError
from quizzer.bank.generate.instance import Instance
from quizzer.bank.loader import Bank
from quizzer.bank.read.schema import Template
from quizzer.core.errors import QuizzerError


def model_variable(template: Template) -> str | None:
    """The name of the template's model (preset) variable, the first one if it has several; None if none."""
    return next((v.name for part in template.parts for v in part.variables if v.kind == "preset"), None)


#: The instances a template is tried on before it is posed for a model (a drill that meets a failure later
#: leaves the template out, as for any template).
CHECKED_SEEDS = (1, 2, 3)


class ModelBank(Bank):
    """``bank`` with every template that takes a model posed for ``model`` (a preset name, a name with own
    fields, or a registered config); the others, and those the model cannot be posed in, are left out, each
    with a one-line reason in ``skipped``. An instance's id names the model: ``ID#SEED@MODEL``."""

    def __init__(self, bank: Bank, model: str) -> None:
        self.__dict__.update(bank.__dict__)
        self.model = model
        from quizzer.core.presets import preset

        #: How the model is named to the user ("Llama 3 8B", "your model (config.json)").
        self.title = preset(model).title
        self.skipped: dict[str, str] = {}
        self._variable: dict[str, str] = {}
        for template in bank.templates():
            name = model_variable(template)
            if name is None:
                self.skipped[template.id] = "takes no model"
                continue
            reason = self._why_not(bank, template, name)
            if reason:
                self.skipped[template.id] = reason
            else:
                self._variable[template.id] = name

    def _why_not(self, bank: Bank, template: Template, name: str) -> str:
        """Why ``template`` cannot be asked about the model ("" if it can), when the core refuses the model
        or the model breaks a constraint: the feature the question is about that the model lacks (a dense
        model and an expert question), else the refusal or the constraint itself."""
        for seed in CHECKED_SEEDS:
            try:
                instance = bank.generate(template.id, seed, {name: self.model})
            except (TemplateError, QuizzerError) as exc:
                refused = str(getattr(exc, "message", exc)).splitlines()[0]
                if "no draw in" in refused:
                    refused = "no draw of its other numbers fits this model"
                return missing_feature(template, name, self.model, refused) or refused
            if instance.warnings:
                broken = instance.warnings[0].replace("outside this template's usual range: ", "")
                return (
                    missing_feature(template, name, self.model, broken)
                    or f"the model breaks its constraint {broken}"
                )
        return ""

    def posed(self) -> list[str]:
        """The ids posed for the model, in load order."""
        return list(self._variable)

    def scanned_ids(self) -> list[str]:
        return self.posed()

    def ids(self) -> list[str]:
        return self.posed()

    def matching_ids(self, *, topic: str | None = None, difficulty: str | None = None) -> list[str]:
        wanted = (
            set(Bank.matching_ids(self, topic=topic, difficulty=difficulty)) if topic or difficulty else None
        )
        return [tid for tid in self.posed() if wanted is None or tid in wanted]

    def templates(self) -> list[Template]:
        return [self.get(tid) for tid in self.posed()]

    def generate(
        self, template_id: str, seed: int, overrides: Mapping[str, Any] | None = None, *, lazy: bool = False
    ) -> Instance:
        if template_id not in self._variable:
            return Bank.generate(self, template_id, seed, overrides, lazy=lazy)
        return posed_for(self, template_id, seed, self.model, overrides)


#: What a question is about (a field of the model it reads, or a calculator it calls) -> whether a spec
#: has it, and the reason given when it has not.
_FEATURES: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (
        ("_mixer_", "mixer_params_of", "state_bytes_of", "state_crossover"),
        "has_mixer",
        "no fixed-state mixer: every layer is attention",
    ),
    (
        ("_kv_lora_rank", "_q_lora_rank", "_qk_rope_head_dim", "_qk_nope_head_dim", "mla_"),
        "is_mla",
        "no multi-head latent attention (MLA)",
    ),
    (
        ("_index_n_heads", "_index_head_dim", "_index_topk", "dsa_"),
        "index_n_heads",
        "no sparse-attention indexer",
    ),
    (("_sliding_window", "n_global", "window_cap"), "sliding_window", "no sliding-window layers"),
    (
        ("_n_experts", "_experts_per_token", "_n_shared_experts", "_d_ff_expert"),
        "is_moe",
        "a dense model: the question is about experts",
    ),
    (("_n_positions", "position_params"), "n_positions", "no learned position table"),
    (("_qk_norm",), "qk_norm", "no q/k norms"),
)


def _has(spec: Any, field: str) -> bool:
    """Whether ``spec`` has the feature its ``field`` names (a text field: anything but "none")."""
    value = getattr(spec, field)
    return value != "none" if isinstance(value, str) else bool(value)


def missing_feature(template: Template, name: str, model: str, failed: str = "") -> str:
    """The feature the question asks about that ``model`` lacks, in words ("" when it lacks none): read first
    in ``failed`` (the expression that refused the model, or the constraint it broke), else anywhere in the
    template."""
    from quizzer.bank.check.chip_names import part_expressions
    from quizzer.core.presets import preset

    try:
        spec = preset(model).spec
    except QuizzerError as exc:
        return str(exc)
    for keys, has, reason in _FEATURES:
        if any(k in failed for k in keys) and not _has(spec, has):
            return reason
    words = {
        n for part in template.parts for _, e in part_expressions(template, part) for n in e.names | e.calls
    }
    for keys, has, reason in _FEATURES:
        used = any(
            any(k in w for k in keys) for w in words if w.startswith(name + "_") or not w.startswith(name)
        )
        if used and not _has(spec, has):
            return reason
    return ""


#: The keys an instance asked about a model adds to its variables (and so to each attempt the history
#: records): the model's name, and for a user's config.json the config itself, so that it replays.
MODEL_KEY, CONFIG_KEY = "@model", "@config"


def posed_for(
    bank: Bank, template_id: str, seed: int, model: str, overrides: Mapping[str, Any] | None = None
) -> Instance:
    """``template_id#seed`` asked about ``model``: its id ``ID#SEED@MODEL`` (the model as posed, own fields
    included), its variables marked with ``MODEL_KEY`` (and ``CONFIG_KEY`` for a config.json). A KeyError
    for an unknown id, a QuizzerError for a template that takes no model."""
    from quizzer.core.presets import config_of

    variable = model_variable(bank.get(template_id))
    if variable is None:
        raise QuizzerError(f"{template_id} takes no model")
    # Bank's own generate: a ModelBank's would pose its model again
    instance = Bank.generate(bank, template_id, seed, {variable: model, **(overrides or {})})
    posed = str(instance.variables.get(variable, model))
    config = config_of(posed)
    marks: dict[str, Any] = {MODEL_KEY: posed}
    if config is not None:
        marks[CONFIG_KEY] = dict(config)
    return instance.replace(id=f"{template_id}#{seed}@{posed}", variables={**instance.variables, **marks})


def replay(bank: Bank, template_id: str, seed: int, variables: Mapping[str, Any]) -> Instance:
    """The instance an attempt answered, from its recorded ``variables``: asked about the model they name
    (its config registered again from them), else ``ID#SEED`` as drawn."""
    model = variables.get(MODEL_KEY)
    if not isinstance(model, str):
        return bank.generate(template_id, seed)
    config = variables.get(CONFIG_KEY)
    if isinstance(config, dict):
        from quizzer.core.presets import register_config

        register_config(config)
    return posed_for(bank, template_id, seed, model)


__all__ = [
    "CONFIG_KEY",
    "MODEL_KEY",
    "ModelBank",
    "model_variable",
    "posed_for",
    "replay",
]
