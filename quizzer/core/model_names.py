"""A model's names for templates: the preset a model given with own fields starts from."""

from __future__ import annotations

from quizzer.core.presets import _OWN, preset


def model_base(model: str) -> str:
    """The preset a model starts from ("" for a user's config.json): for a remark or a published fact that
    belongs to that preset (its training tokens), never for a number its shape gives.

    >>> model_base("llama-3-8b{n_layers=30}"), model_base("Llama-3-8B")
    ('llama-3-8b', 'llama-3-8b')
    """
    base = model.strip().partition("{")[0]
    if base.lower() in _OWN:
        return ""
    return preset(base).name


__all__ = ["model_base"]
