"""from_hf_config: build a ModelSpec from a Hugging Face config.json (as a dict)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from quizzer.core import hf_2026, hf_classic, hf_recent
from quizzer.core.errors import ConfigError, SpecError
from quizzer.core.hf_fields import Config, get, windowed
from quizzer.core.spec import ModelSpec

_get = get


def _gpt2(c: Config) -> dict[str, Any]:
    d = _get(c, "n_embd")
    return dict(
        vocab_size=_get(c, "vocab_size"),
        d_model=d,
        n_layers=_get(c, "n_layer"),
        n_heads=_get(c, "n_head"),
        d_ff=c.get("n_inner") or 4 * d,
        mlp="gelu",
        norm="layernorm",
        qkv_bias=True,
        out_bias=True,
        mlp_bias=True,
        tie_embeddings=c.get("tie_word_embeddings", True),
        positions="learned",
        n_positions=_get(c, "n_positions"),
    )


def _gpt_neox(c: Config) -> dict[str, Any]:
    bias = c.get("attention_bias", True)
    return dict(
        vocab_size=_get(c, "vocab_size"),
        d_model=_get(c, "hidden_size"),
        n_layers=_get(c, "num_hidden_layers"),
        n_heads=_get(c, "num_attention_heads"),
        d_ff=_get(c, "intermediate_size"),
        mlp="gelu",
        norm="layernorm",
        qkv_bias=bias,
        out_bias=bias,
        mlp_bias=True,
        tie_embeddings=c.get("tie_word_embeddings", False),
        positions="rotary",
    )


def _opt(c: Config) -> dict[str, Any]:
    d = _get(c, "hidden_size")
    if c.get("word_embed_proj_dim", d) != d:
        raise ConfigError(
            f"OPT with word_embed_proj_dim ({c['word_embed_proj_dim']}) != hidden_size ({d}) "
            "(project_in/project_out layers, as in OPT-350m) is not supported"
        )
    if not c.get("layer_norm_elementwise_affine", True):
        raise ConfigError("OPT with layer_norm_elementwise_affine = false is not supported")
    bias = c.get("enable_bias", True)
    pre_norm = c.get("do_layer_norm_before", True)
    return dict(
        vocab_size=_get(c, "vocab_size"),
        d_model=d,
        n_layers=_get(c, "num_hidden_layers"),
        n_heads=_get(c, "num_attention_heads"),
        d_ff=_get(c, "ffn_dim"),
        mlp="gelu",
        norm="layernorm",
        qkv_bias=bias,
        out_bias=bias,
        mlp_bias=bias,
        tie_embeddings=c.get("tie_word_embeddings", True),
        # OPTLearnedPositionalEmbedding keeps 2 extra rows (positions are looked up at offset 2).
        positions="learned",
        n_positions=_get(c, "max_position_embeddings") + 2,
        final_norm=pre_norm and not c.get("_remove_final_layer_norm", False),
        norm_placement="pre" if pre_norm else "post",
    )


def _llama_like(
    tie_default: bool, qkv_bias_key: str | None = "attention_bias", qkv_bias_default: bool = False
) -> Callable[[Config], dict[str, Any]]:
    def build(c: Config) -> dict[str, Any]:
        n_heads = _get(c, "num_attention_heads")
        bias = c.get(qkv_bias_key, qkv_bias_default) if qkv_bias_key else qkv_bias_default
        spec = dict(
            vocab_size=_get(c, "vocab_size"),
            d_model=_get(c, "hidden_size"),
            n_layers=_get(c, "num_hidden_layers"),
            n_heads=n_heads,
            n_kv_heads=c.get("num_key_value_heads") or n_heads,
            head_dim=c.get("head_dim"),
            d_ff=_get(c, "intermediate_size"),
            mlp="gated",
            norm="rmsnorm",
            qkv_bias=bias,
            out_bias=bias if qkv_bias_key == "attention_bias" else False,
            mlp_bias=c.get("mlp_bias", False),
            tie_embeddings=c.get("tie_word_embeddings", tie_default),
            positions="rotary",
        )
        window = c.get("sliding_window")
        if window and c.get("use_sliding_window", True):
            spec["sliding_window"] = window
        return spec

    return build


def _qwen2(c: Config) -> dict[str, Any]:
    """Qwen2: biases on q, k and v, none on the output; with use_sliding_window, layers from max_window_layers
    on slide (transformers' layer_types rule)."""
    spec = _llama_like(tie_default=False, qkv_bias_key=None, qkv_bias_default=True)(c)
    spec.pop("sliding_window", None)
    return windowed(spec, hf_recent.qwen_layer_types(c, spec["n_layers"]), c.get("sliding_window"))


def _mixtral(c: Config) -> dict[str, Any]:
    spec = _llama_like(tie_default=False)(c)
    spec.update(n_experts=_get(c, "num_local_experts"), experts_per_token=_get(c, "num_experts_per_tok"))
    return spec


def _bert(c: Config) -> dict[str, Any]:
    if c.get("position_embedding_type", "absolute") != "absolute":
        raise ConfigError("BERT with relative position embeddings is not supported")
    return dict(
        vocab_size=_get(c, "vocab_size"),
        d_model=_get(c, "hidden_size"),
        n_layers=_get(c, "num_hidden_layers"),
        n_heads=_get(c, "num_attention_heads"),
        d_ff=_get(c, "intermediate_size"),
        mlp="gelu",
        norm="layernorm",
        qkv_bias=True,
        out_bias=True,
        mlp_bias=True,
        positions="learned",
        n_positions=_get(c, "max_position_embeddings"),
        type_vocab_size=c.get("type_vocab_size", 2),
        embedding_norm=True,
        final_norm=False,
        lm_head=False,
        pooler=True,
        norm_placement="post",
    )  # BertModel: post-norm layers, pooler, no LM head


#: model_type -> builder of ModelSpec keyword arguments. Defaults follow transformers' config classes.
BUILDERS: dict[str, Callable[[Config], dict[str, Any]]] = {
    "gpt2": _gpt2,
    "gpt_neox": _gpt_neox,
    "opt": _opt,
    "llama": _llama_like(tie_default=False),
    "mistral": _llama_like(tie_default=False),
    "mixtral": _mixtral,
    "qwen2": _qwen2,
    "gemma": _llama_like(tie_default=True),
    "phi3": _llama_like(tie_default=False),
    "bert": _bert,
    **hf_recent.BUILDERS,
    **hf_classic.BUILDERS,
    **hf_2026.BUILDERS,
}


#: The config.json fields that give the multi-token-prediction modules a checkpoint ships.
MTP_FIELDS = ("num_nextn_predict_layers", "mtp_num_hidden_layers")


def from_hf_config(config: Config, *, mtp: bool = False) -> ModelSpec:
    """Build a ModelSpec from a Hugging Face ``config.json`` dict.

    Fields the file leaves out take the defaults of the transformers config class (``save_pretrained`` writes
    only what differs from them); the size fields are required. Multi-token-prediction modules are left out,
    as transformers builds none; ``mtp=True`` counts the ones the config gives (``MTP_FIELDS``).

    >>> spec = from_hf_config({"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096,
    ...     "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
    ...     "intermediate_size": 14336})
    >>> spec.n_kv_heads, spec.head_dim, spec.tie_embeddings
    (8, 128, False)
    >>> from_hf_config({"model_type": "mamba"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    quizzer.core.errors.ConfigError: unsupported model_type 'mamba'; supported: apertus, bert, bloom, ...
    """
    if not isinstance(config, Mapping):
        raise ConfigError(f"config.json must hold a JSON object, not {type(config).__name__}")
    model_type = config.get("model_type")
    # a model_type that is not a string (None, a list) is no key of BUILDERS: the usual "unsupported" message
    builder = BUILDERS.get(model_type) if isinstance(model_type, str) else None
    if builder is None:
        raise ConfigError(f"unsupported model_type {model_type!r}; supported: {', '.join(sorted(BUILDERS))}")
    kwargs = builder(config)
    if mtp:
        kwargs["mtp_layers"] = next((config[k] for k in MTP_FIELDS if config.get(k)), 0)
    try:
        return ModelSpec(**kwargs)
    except SpecError as exc:
        raise ConfigError(f"config.json for model_type {model_type!r}: {exc}") from None
