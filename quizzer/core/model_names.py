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
    own = _OWN.get(base.lower())
    if own is not None:  # a user's config: the preset whose config it is, if any
        return _preset_with_config(dict(own.config))
    return preset(base).name


def _preset_with_config(config: dict[str, object]) -> str:
    """The preset whose config.json is ``config`` exactly ("" for none): a user's copy of a preset's config
    is that model, its published facts included."""
    from quizzer.core.presets import preset_names

    return next((n for n in preset_names() if dict(preset(n).config) == config), "")


__all__ = ["model_base"]
