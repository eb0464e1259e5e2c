"""Real-model presets, shipped as data in presets.toml beside this module."""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Any

from quizzer.core.errors import UnknownNameError
from quizzer.core.hf import from_hf_config
from quizzer.core.spec import ModelSpec


@dataclass(frozen=True, slots=True)
class Preset:
    """A real model: its name, a title, the source of its shapes, its config.json fields and its spec."""

    name: str
    title: str
    source: str
    config: MappingProxyType[str, Any]
    spec: ModelSpec


@cache
def _table() -> dict[str, Preset]:
    # Package data read once; the core stays free of user I/O (the file is part of the code).
    text = resources.files("quizzer.core").joinpath("presets.toml").read_text(encoding="utf-8")
    presets: dict[str, Preset] = {}
    for name, entry in tomllib.loads(text).items():
        preset = Preset(name, entry["title"], entry["source"], MappingProxyType(dict(entry["config"])),
                        from_hf_config(entry["config"], name=name))
        for key in (name, *entry.get("aliases", ())):
            presets[key] = preset
    return presets


def preset_names() -> list[str]:
    """Canonical preset names, in file order (aliases left out).

    >>> "llama-3-8b" in preset_names()
    True
    """
    return [name for name, preset in _table().items() if preset.name == name]


def preset(name: str) -> Preset:
    """The preset called ``name`` (or one of its aliases), case-insensitive.

    >>> preset("Llama-3-8B").spec.n_kv_heads
    8
    >>> preset("llama-3-8")
    Traceback (most recent call last):
    ...
    quizzer.core.errors.UnknownNameError: unknown model preset 'llama-3-8' (did you mean 'llama-3-8b'?); see `quizzer count --list`
    """
    table = _table()
    try:
        return table[name.lower()]
    except KeyError:
        hint = difflib.get_close_matches(name.lower(), list(table), n=1)
        close = f" (did you mean {hint[0]!r}?)" if hint else ""
        raise UnknownNameError(f"unknown model preset {name!r}{close}; see `quizzer count --list`") from None


def preset_spec(name: str) -> ModelSpec:
    """The ModelSpec of a preset."""
    return preset(name).spec
