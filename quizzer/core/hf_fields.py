"""Reading config.json fields for from_hf_config: required fields, layer types, transformers' defaults."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from quizzer.core.errors import ConfigError
from quizzer.core.layers import HF_LAYER_TYPES

Config = Mapping[str, Any]
Builder = Callable[[Config], dict[str, Any]]


def get(config: Config, key: str, default: Any = ..., *aliases: str) -> Any:
    """A config field (or the first of its older names present); missing required fields name the model type
    and the key."""
    for name in (key, *aliases):
        if config.get(name) is not None:
            return config[name]
    value = config.get(key, default)
    if value is ... or (value is None and default is ...):
        raise ConfigError(f"config.json for model_type {config.get('model_type')!r} is missing {key!r}")
    return value


def layer_types(
    config: Config, n_layers: int, default: Callable[[int], str] | None = None
) -> tuple[str, ...]:
    """The attention kind of each layer from ``layer_types`` (transformers >= 4.53), else from the model
    type's default rule (``default(i)`` gives layer i's kind), else ()."""
    listed = config.get("layer_types")
    if listed:
        if not isinstance(listed, Sequence) or isinstance(listed, str):
            raise ConfigError(f"layer_types ({listed!r}) must be a list")
        kinds = []
        for name in listed:
            if name not in HF_LAYER_TYPES:
                known = ", ".join(HF_LAYER_TYPES)
                raise ConfigError(f"layer_types entry {name!r} is not supported (known: {known})")
            kinds.append(HF_LAYER_TYPES[name])
        return tuple(kinds)
    if default is None:
        return ()
    return tuple(default(i) for i in range(n_layers))


def sliding_every(pattern: int) -> Callable[[int], str]:
    """transformers' default: every ``pattern``-th layer full, the others sliding (Gemma 2: 2, Gemma 3: 6)."""
    return lambda i: "sliding" if (i + 1) % pattern else "full"


def windowed(spec: dict[str, Any], kinds: tuple[str, ...], window: Any) -> dict[str, Any]:
    """Add layer kinds and the window to builder arguments; no sliding layer drops the window."""
    if "sliding" in kinds:
        spec.update(layer_types=kinds, sliding_window=window)
    elif kinds and set(kinds) != {"full"}:
        spec["layer_types"] = kinds
    return spec
