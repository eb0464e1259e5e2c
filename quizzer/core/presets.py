"""Real-model presets, shipped as data in presets.toml beside this module."""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from functools import cache
from types import MappingProxyType
from typing import Any

from quizzer.core.checks import did_you_mean
from quizzer.core.errors import UnknownNameError
from quizzer.core.hf import from_hf_config
from quizzer.core.record import Record
from quizzer.core.spec import ModelSpec
from quizzer.core.trace import Result

_PRESETS_FILE = os.path.join(os.path.dirname(__file__), "presets.toml")


class Preset(Record):
    """A real model: its name, a title, the source of its shapes, its config.json fields and its spec."""

    name: str
    title: str
    """Its name in words ("DeepSeek-V3"), as prompts say it: no count or shape a question could ask."""
    source: str
    config: MappingProxyType[str, Any]
    spec: ModelSpec
    about: str = ""
    """What `quizzer count --list` adds to the title ("671B, 37B active; MLA, 1 shared + 256 routed...")."""


#: A table's header in presets.toml: the preset's name, bare or quoted, and the rest of a dotted header
#: (``[deepseek-v3.config]`` is a table of ``deepseek-v3``).
_HEADER = re.compile(r'^\[(?:"([^"\n]+)"|([A-Za-z0-9_-]+))(?:\.[^\]\n]*)?\][ \t]*$', re.MULTILINE)
#: A preset's aliases, on one line of its table.
_ALIASES = re.compile(r"^aliases[ \t]*=[ \t]*(\[[^\n]*\])[ \t]*$", re.MULTILINE)


@cache
def _sections() -> tuple[dict[str, str], dict[str, str]]:
    """(canonical name -> the text of its tables, alias or name -> canonical name), in file order, read from
    the header and aliases lines without parsing the file: a preset is parsed from its own tables when
    first built (the whole file was ~4 ms of every start that names one). tests/core/test_presets_file.py
    holds presets.toml to the shape this reads: each preset's tables together, its aliases on one line."""
    with open(_PRESETS_FILE, encoding="utf-8") as fh:
        text = fh.read()
    starts: list[tuple[str, int]] = []
    for header in _HEADER.finditer(text):
        name = header.group(1) or header.group(2)
        if not starts or starts[-1][0] != name:
            starts.append((name, header.start()))
    ends = [start for _, start in starts[1:]] + [len(text)]
    sections = {name: text[start:end] for (name, start), end in zip(starts, ends, strict=True)}
    names = {name: name for name in sections}
    for name, table in sections.items():
        aliases = _ALIASES.search(table)
        if aliases is not None:
            names.update(dict.fromkeys(tomllib.loads(f"aliases = {aliases.group(1)}")["aliases"], name))
    return sections, names


def _entry(name: str) -> dict[str, Any]:
    """The TOML table of the preset ``name`` (canonical), parsed from its own tables."""
    table: dict[str, Any] = tomllib.loads(_sections()[0][name])[name]
    return table


def preset_names() -> list[str]:
    """Canonical preset names, in file order (aliases left out).

    >>> "llama-3-8b" in preset_names()
    True
    """
    return list(_sections()[0])


@cache
def _build(name: str) -> Preset:
    entry = _entry(name)
    # TOML has no null: ``unset`` names the fields config.json sets to null.
    config = MappingProxyType({**entry["config"], **dict.fromkeys(entry.get("unset", ()))})
    spec = from_hf_config(config)
    return Preset(name, entry["title"], entry["source"], config, spec, entry.get("about", ""))


#: Models given by the user (a config.json, read by the verbs), by the name ``register_config`` gave them
#: (model_names reads it).
_OWN: dict[str, Preset] = {}


def register_config(config: Mapping[str, Any], title: str = "") -> str:
    """Register a user's config.json as a model and return its name, ``config-<digest>``: the first 10 hex
    digits of the SHA-256 of the config written canonically (sorted keys, no spaces), so the same config has
    the same name on every machine. A config quizzer cannot read raises ConfigError, as ``count`` does.

    >>> name = register_config({"model_type": "llama", "vocab_size": 32000, "hidden_size": 512,
    ...     "num_hidden_layers": 2, "num_attention_heads": 8, "intermediate_size": 1024})
    >>> name, preset(name).spec.d_model
    ('config-fc45c18974', 512)
    """
    import hashlib
    import json

    spec = from_hf_config(config)
    canonical = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    name = "config-" + hashlib.sha256(canonical.encode()).hexdigest()[:10]
    if name not in _OWN:
        label = title or str(config.get("_name_or_path") or "") or f"your {config.get('model_type')} model"
        _OWN[name] = Preset(name, label, "the user's config.json", MappingProxyType(dict(config)), spec)
    return name


def config_of(name: str) -> Mapping[str, Any] | None:
    """The config.json registered as ``name`` (None for a preset): what a history or set file keeps."""
    own = _OWN.get(name.lower().partition("{")[0])
    return None if own is None else own.config


def model_spec_text(base: str, fields: Mapping[str, Any]) -> str:
    """The canonical name of model ``base`` with some spec fields replaced: ``base{field=value,...}``.

    >>> model_spec_text("llama-3-8b", {"n_layers": 30})
    'llama-3-8b{n_layers=30}'
    """
    base_name, own = _split_model(base)
    merged = {**own, **fields}
    if not merged:
        return base_name
    return base_name + "{" + ",".join(f"{k}={merged[k]!r}" for k in sorted(merged)) + "}"


def _split_model(text: str) -> tuple[str, dict[str, Any]]:
    """(base name, replaced fields) of a model's name; fields are read as Python literals (numbers, booleans,
    quoted text, tuples), never evaluated."""
    import ast

    base, brace, rest = text.strip().partition("{")
    if not brace:
        return base, {}
    if not rest.endswith("}"):
        raise UnknownNameError(f"model {text!r}: replaced fields go in braces, name{{field=value,...}}")
    fields: dict[str, Any] = {}
    for item in filter(None, _top_level_split(rest[:-1])):
        key, eq, value = item.partition("=")
        if not eq:
            raise UnknownNameError(f"model {text!r}: write field=value, not {item!r}")
        try:
            fields[key.strip()] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            problem = f"{value.strip()!r} is not a number, boolean or text"
            raise UnknownNameError(f"model {text!r}: {problem}") from None
    return base.strip(), fields


def _top_level_split(text: str) -> list[str]:
    """``text`` split at the commas outside parentheses (a tuple field keeps its commas)."""
    items, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += 1 if char in "([" else -1 if char in ")]" else 0
        if char == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return items


#: Spec fields derived from another when a config leaves them out: (derived, its source, the derivation).
_DERIVED: tuple[tuple[str, str, Any], ...] = (
    ("n_kv_heads", "n_heads", lambda s: s.n_heads),
    ("head_dim", "d_model", lambda s: s.d_model // s.n_heads),
    ("head_dim", "n_heads", lambda s: s.d_model // s.n_heads),
    ("v_head_dim", "head_dim", lambda s: s.head_dim),
    ("d_ff_expert", "d_ff", lambda s: s.d_ff),
    ("d_ff_shared", "d_ff_expert", lambda s: s.d_ff_expert),
)


def _rederived(spec: ModelSpec, fields: Mapping[str, Any]) -> dict[str, None]:
    """The derived fields to derive again (None) when the user sets their source: a field that was derived
    follows it (head_dim set, v_head_dim follows), one the config gives stays; one the user sets is kept.

    >>> _rederived(preset_spec("gpt2"), {"head_dim": 32})
    {'v_head_dim': None}
    >>> _rederived(preset_spec("llama-3-8b"), {"n_heads": 16})  # 8 KV heads are the config's own
    {'head_dim': None, 'v_head_dim': None}
    """
    again: dict[str, None] = {}
    changed = set(fields)
    for derived, source, rule in _DERIVED:
        if source in changed and derived not in fields and getattr(spec, derived) == rule(spec):
            again[derived] = None
            changed.add(derived)
    return again


@cache
def _with_fields(base: str, fields_text: str) -> Preset:
    """Preset ``base`` with the spec fields of ``fields_text`` replaced (checked by ModelSpec)."""
    from quizzer.core.errors import SpecError

    found = preset(base)
    fields = _split_model(base + fields_text)[1]
    unknown = [k for k in fields if k not in ModelSpec._field_set]
    if unknown:
        raise SpecError(f"a model has no field {unknown[0]!r}{did_you_mean(unknown[0], ModelSpec._fields)}")
    said = ", ".join(f"{k} {v}" for k, v in sorted(fields.items()))
    spec = found.spec.replace(**fields, **_rederived(found.spec, fields))
    return Preset(base + fields_text, f"{found.title} with {said}", found.source, found.config, spec)


def preset(name: str) -> Preset:
    """The preset called ``name`` (or one of its aliases), case-insensitive.

    >>> preset("Llama-3-8B").spec.n_kv_heads
    8
    >>> preset("llama-3-8")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    quizzer.core.errors.UnknownNameError: unknown model preset 'llama-3-8' (did you mean 'llama-3-8b'?); ...
    """
    if "{" in name:
        base, brace, rest = name.strip().partition("{")
        return _with_fields(base.strip(), brace + rest)
    own = _OWN.get(name.lower())
    if own is not None:
        return own
    names = _sections()[1]
    canonical = names.get(name.lower())
    if canonical is None:
        close = did_you_mean(name.lower(), names)
        raise UnknownNameError(f"unknown model preset {name!r}{close}; see `quizzer count --list`")
    return _build(canonical)


def preset_spec(name: str) -> ModelSpec:
    """The ModelSpec of a preset."""
    return preset(name).spec


def model_params_of(model: str) -> Result:
    """Total parameters of a preset, with the derivation part by part.

    >>> model_params_of("gpt2").value
    124439808
    """
    from quizzer.core.model import model_params

    return model_params(preset_spec(model))


def model_active_params_of(model: str) -> Result:
    """Parameters one token uses in a preset (the total for dense models).

    >>> model_active_params_of("mixtral-8x7b").value
    12879925248
    """
    from quizzer.core.model import model_active_params

    return model_active_params(preset_spec(model))


def model_kv_bytes_per_token_of(model: str, dtype: str = "bf16", mla_cache: str = "latent") -> Result:
    """KV-cache bytes per token of a preset while the context is shorter than every window (every layer
    grows): 2 × n_layers × n_kv_heads × head_dim × bytes(dtype) for ordinary attention; for MLA the latent
    plus rotary key per layer (``mla_cache="latent"``) or every head's K and V (``"decompressed"``).

    >>> model_kv_bytes_per_token_of("llama-3-8b").value
    131072
    >>> model_kv_bytes_per_token_of("deepseek-v3").value
    70272
    >>> model_kv_bytes_per_token_of("deepseek-v3", mla_cache="decompressed").value
    4997120
    """
    from quizzer.core.kv_model import model_kv_bytes_per_token

    return model_kv_bytes_per_token(preset_spec(model), dtype, mla_cache)


def model_kv_cache_bytes_of(
    model: str,
    seq_len: int,
    batch: int = 1,
    dtype: str = "bf16",
    convention: str = "paper",
    mla_cache: str = "latent",
) -> Result:
    """The exact KV cache of a preset at ``seq_len`` tokens, layer kind by layer kind: full layers keep every
    token, sliding and chunked layers at most their window (W tokens, or W − 1 with ``convention="hf"``, what
    transformers' cache holds).

    >>> model_kv_cache_bytes_of("gemma-3-4b", 32768, convention="hf").value
    792604672
    >>> model_kv_cache_bytes_of("mistral-7b", 32768).value  # every layer slides: 4096 tokens
    536870912
    """
    from quizzer.core.kv_model import model_kv_cache_bytes

    return model_kv_cache_bytes(preset_spec(model), seq_len, batch, dtype, convention, mla_cache)


def model_kv_growth_bytes_per_token_of(model: str, dtype: str = "bf16", mla_cache: str = "latent") -> Result:
    """KV bytes a preset adds per token once the context is past every window (its full layers only).

    >>> model_kv_growth_bytes_per_token_of("gpt-oss-20b").value
    24576
    >>> model_kv_growth_bytes_per_token_of("mistral-7b").value  # every layer slides
    0
    """
    from quizzer.core.kv_model import model_kv_growth_bytes_per_token

    return model_kv_growth_bytes_per_token(preset_spec(model), dtype, mla_cache)


def model_kv_window_cap_bytes_of(
    model: str, dtype: str = "bf16", convention: str = "paper", mla_cache: str = "latent"
) -> Result:
    """The fixed size a preset's sliding and chunked layers reach (per sequence).

    >>> model_kv_window_cap_bytes_of("gpt-oss-20b", convention="hf").value
    3121152
    """
    from quizzer.core.kv_model import model_kv_window_cap_bytes

    return model_kv_window_cap_bytes(preset_spec(model), dtype, convention, mla_cache)


def model_non_embedding_params_of(model: str) -> Result:
    """Non-embedding parameters of a preset (Kaplan et al.'s N).

    >>> model_non_embedding_params_of("gpt2").value
    85056000
    """
    from quizzer.core.model import non_embedding_params

    return non_embedding_params(preset_spec(model))


def model_mixer_params_of(model: str) -> Result:
    """One fixed-state mixer layer of a hybrid preset (its gated norm counted with the norms).

    >>> model_mixer_params_of("qwen3-next-80b-a3b").value
    33718336
    """
    from quizzer.core.hybrid import model_mixer_params

    return model_mixer_params(preset_spec(model))


def model_state_bytes_of(model: str, dtype: str = "bf16", state_dtype: str = "fp32") -> Result:
    """The fixed state one sequence keeps in a hybrid preset's mixer layers (conv state in ``dtype``, the
    recurrent state in fp32 as Hugging Face keeps it, or in ``dtype`` with ``state_dtype="model"``).

    >>> model_state_bytes_of("qwen3-next-80b-a3b").value
    77856768
    """
    from quizzer.core.hybrid import model_state_bytes

    return model_state_bytes(preset_spec(model), dtype, state_dtype)


def model_cache_bytes_of(
    model: str,
    seq_len: int,
    batch: int = 1,
    dtype: str = "bf16",
    state_dtype: str = "fp32",
    convention: str = "paper",
    mla_cache: str = "latent",
) -> Result:
    """Everything a preset caches for ``batch`` sequences of ``seq_len`` tokens: the KV cache of its softmax
    layers plus, in a hybrid, the mixers' fixed state.

    >>> model_cache_bytes_of("qwen3-next-80b-a3b", 32768).value
    883163136
    """
    from quizzer.core.hybrid import model_cache_bytes

    return model_cache_bytes(preset_spec(model), seq_len, batch, dtype, state_dtype, convention, mla_cache)


def model_state_crossover_of(model: str, dtype: str = "bf16", state_dtype: str = "fp32") -> Result:
    """The context at which a hybrid preset's growing KV cache reaches its fixed state (batch 1).

    >>> model_state_crossover_of("qwen3-next-80b-a3b").value
    3168
    """
    from quizzer.core.hybrid import model_state_crossover

    return model_state_crossover(preset_spec(model), dtype, state_dtype)


def model_mtp_params_of(model: str) -> Result:
    """One multi-token-prediction module shaped like a preset (DeepSeek-V3/V3.2, GLM-4.5 and Qwen3-Next ship
    one; `quizzer count MODEL --mtp` says whether its config gives them): one layer like the model's last, a
    2·d_model → d_model projection and three norms; the embedding and head are shared with the model.

    >>> model_mtp_params_of("deepseek-v3").value
    11610067968
    """
    from quizzer.core.model import mtp_module_params

    return mtp_module_params(preset_spec(model))
