"""The KV cache of a ModelSpec by layer kind: per token, beyond every window, the cap, the total at T.

The window conventions ("paper": W tokens; "hf": W − 1, what transformers' sliding cache keeps) are described
in ``quizzer.core.kv``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quizzer.core.checks import counts, one_of
from quizzer.core.kv import MLA_CACHES, READINGS, WINDOW_CONVENTIONS, window_cap
from quizzer.core.layers import SOFTMAX_KINDS
from quizzer.core.memory import dtype_factor
from quizzer.core.record import Record
from quizzer.core.trace import Factor, Result, Trace, num, tags
from quizzer.core.units import Unit, dtype_bytes_text, elements_bytes

if TYPE_CHECKING:
    from quizzer.core.spec import ModelSpec

B = Unit.BYTES


class KVKind(Record):
    """The layers of one attention kind and what each caches per token (in elements, before the dtype)."""

    kind: str
    layers: tuple[int, ...]
    window: int | None
    """Window or chunk in tokens; None for full attention."""
    elements_per_token_per_layer: int

    @property
    def n_layers(self) -> int:
        return len(self.layers)

    def cap_tokens(self, convention: str = "paper") -> int | None:
        """Most tokens a layer of this kind keeps (None: no cap)."""
        return None if self.window is None else window_cap(self.window, convention)

    def tokens_cached(self, seq_len: int, convention: str = "paper") -> int:
        """Tokens a layer of this kind keeps for ``seq_len`` tokens."""
        cap = self.cap_tokens(convention)
        return seq_len if cap is None else min(seq_len, cap)


def kv_kinds(spec: ModelSpec, mla_cache: str = "latent") -> tuple[KVKind, ...]:
    """The decoder's layers by attention kind, in order of first appearance, with their cache per token.

    Per layer and token: ordinary attention 2 K/V heads' worth, n_kv_heads × (head_dim + v_head_dim);
    MLA's latent kv_lora_rank + qk_rope_head_dim ('latent') or every head's K and V ('decompressed').

    >>> from quizzer.core.spec import ModelSpec
    >>> spec = ModelSpec(vocab_size=8, d_model=64, n_layers=6, n_heads=4, d_ff=8, sliding_window=16,
    ...                  layer_types=("sliding",) * 5 + ("full",))
    >>> [(k.kind, k.n_layers, k.window) for k in kv_kinds(spec)]
    [('sliding', 5, 16), ('full', 1, None)]
    """
    one_of("mla_cache", mla_cache, MLA_CACHES)
    if spec.is_mla and mla_cache == "latent":
        per = spec.kv_lora_rank + spec.qk_rope_head_dim
    else:
        per = spec.n_kv_heads * (spec.head_dim + spec.v_head_dim)
    if mla_cache == "latent":  # DeepSeek-V3.2's indexer caches one key per token and layer (transformers 5)
        per += spec.index_head_dim
    kinds = spec.attention_kinds
    order = [kind for kind in dict.fromkeys(kinds) if kind in SOFTMAX_KINDS]  # mixers keep a fixed state
    return tuple(
        KVKind(kind, tuple(i for i, k in enumerate(kinds) if k == kind), spec.window_of(kind), per)
        for kind in order
    )


def _per_token_factors(spec: ModelSpec, mla_cache: str) -> tuple[Factor, ...]:
    """The named factors of a layer's elements per token: 2 (K and V) × KV heads × head_dim (the query heads
    are what a slip puts for the KV heads); the KV heads alone when keys and values differ in width; none for
    MLA's latent."""
    if (spec.is_mla and mla_cache == "latent") or spec.index_head_dim:
        return ()
    if spec.head_dim != spec.v_head_dim:
        return tags(kv_heads=(spec.n_kv_heads, spec.n_heads))
    return tags(kv=2, kv_heads=(spec.n_kv_heads, spec.n_heads), head_dim=spec.head_dim)


def _describe(kinds: tuple[KVKind, ...]) -> str:
    return " + ".join(f"{k.n_layers} {k.kind}" for k in kinds)


def model_kv_bytes_per_token(spec: ModelSpec, dtype: str = "bf16", mla_cache: str = "latent") -> Result:
    """KV bytes per token while the context is shorter than every window: every layer grows.

    >>> from quizzer.core.spec import ModelSpec
    >>> model_kv_bytes_per_token(ModelSpec(vocab_size=8, d_model=4096, n_layers=32, n_heads=32, n_kv_heads=8,
    ...                                    d_ff=8)).value
    131072
    """
    kinds = kv_kinds(spec, mla_cache)
    t = Trace()
    if not kinds:
        return _no_kv(t, spec)
    elements = sum(k.n_layers * k.elements_per_token_per_layer for k in kinds)
    per = kinds[0].elements_per_token_per_layer
    n = sum(k.n_layers for k in kinds)
    shown = f"{n} × {num(per)} × {dtype_bytes_text(dtype)}"
    factors = (*tags(layers=n), *_per_token_factors(spec, mla_cache), dtype_factor(dtype))
    which = "every softmax-attention layer" if spec.has_mixer or n < spec.n_layers else "every layer"
    value = t.step(
        f"KV cache per token, {which} (context within every window)",
        "layers × elements per token per layer × bytes(dtype)",
        shown,
        elements_bytes(elements, dtype),
        B,
        factors,
    )
    return t.done(value, B, _convention(spec, dtype, mla_cache))


def model_kv_growth_bytes_per_token(
    spec: ModelSpec, dtype: str = "bf16", mla_cache: str = "latent"
) -> Result:
    """KV bytes each further token adds once the context is past every window: only the full layers grow."""
    kinds = [k for k in kv_kinds(spec, mla_cache) if k.window is None]
    t = Trace()
    n = sum(k.n_layers for k in kinds)
    per = kinds[0].elements_per_token_per_layer if kinds else 0
    shown = f"{n} × {num(per)} × {dtype_bytes_text(dtype)}"
    factors = (*tags(layers=n), *_per_token_factors(spec, mla_cache), dtype_factor(dtype)) if n else ()
    windowed = any(k.window is not None for k in kv_kinds(spec, mla_cache))
    value = t.step(
        "KV growth per token beyond every window (full layers only)"
        if windowed
        else "KV growth per token (every softmax-attention layer grows)",
        "full layers × elements per token per layer × bytes(dtype)"
        if windowed
        else "layers × elements per token per layer × bytes(dtype)",
        shown,
        elements_bytes(n * per, dtype),
        B,
        factors,
    )
    return t.done(value, B, _convention(spec, dtype, mla_cache))


def model_kv_window_cap_bytes(
    spec: ModelSpec, dtype: str = "bf16", convention: str = "paper", mla_cache: str = "latent"
) -> Result:
    """The fixed size the sliding and chunked layers reach and keep: window layers × cap × per-token bytes."""
    kinds = [k for k in kv_kinds(spec, mla_cache) if k.window is not None]
    t = Trace()
    elements = sum(
        k.n_layers * (k.cap_tokens(convention) or 0) * k.elements_per_token_per_layer for k in kinds
    )
    terms = [
        f"{k.n_layers} × {num(k.cap_tokens(convention) or 0)} × {num(k.elements_per_token_per_layer)}"
        for k in kinds
    ]
    shown = " + ".join(terms) or "0"
    factors = (*_per_token_factors(spec, mla_cache), dtype_factor(dtype)) if kinds else ()
    value = t.step(
        "Cap of the windowed layers",
        "Σ layers × cap × elements per token per layer × bytes(dtype)",
        f"({shown}) × {dtype_bytes_text(dtype)}",
        elements_bytes(elements, dtype),
        B,
        factors,
    )
    return t.done(value, B, f"{_convention(spec, dtype, mla_cache)}; {READINGS[convention]}")


def model_kv_cache_bytes(
    spec: ModelSpec,
    seq_len: int,
    batch: int = 1,
    dtype: str = "bf16",
    convention: str = "paper",
    mla_cache: str = "latent",
) -> Result:
    """The exact KV cache at a context of ``seq_len`` tokens: Σ over layer kinds of layers × tokens cached ×
    elements per token per layer, × batch × bytes(dtype), rounded up to whole bytes once.

    >>> from quizzer.core.spec import ModelSpec
    >>> gemma3 = ModelSpec(vocab_size=8, d_model=2560, n_layers=34, n_heads=8, n_kv_heads=4, head_dim=256,
    ...                    d_ff=8, sliding_window=1024, layer_types=("sliding",) * 5 + ("full",))
    >>> model_kv_cache_bytes(gemma3, 32768, convention="hf").value
    792604672
    """
    s, b = counts(seq_len=seq_len, batch=batch)
    one_of("convention", convention, WINDOW_CONVENTIONS)
    kinds = kv_kinds(spec, mla_cache)
    t = Trace()
    if not kinds:
        return _no_kv(t, spec)
    token_layers = []
    for k in kinds:
        cached = k.tokens_cached(s, convention)
        shown = f"{k.n_layers} × {num(cached)}"
        token_layers.append(
            t.step(
                f"{k.kind.capitalize()} layers: layers × tokens cached",
                "layers × tokens",
                shown,
                k.n_layers * cached,
                Unit.COUNT,
            )
        )
    elements = sum(n * k.elements_per_token_per_layer for n, k in zip(token_layers, kinds, strict=True))
    per = kinds[0].elements_per_token_per_layer
    shown = (
        f"({' + '.join(num(n) for n in token_layers)}) × {num(per)} × {num(b)} × {dtype_bytes_text(dtype)}"
    )
    # One kind of layer: layers × tokens; several: a sum of them, which names neither.
    whole = (
        tags(layers=kinds[0].n_layers, tokens=kinds[0].tokens_cached(s, convention))
        if len(kinds) == 1
        else ()
    )
    factors = (*whole, *_per_token_factors(spec, mla_cache), *tags(batch=b), dtype_factor(dtype))
    value = t.step(
        f"KV cache at {num(s)} tokens ({_describe(kinds)} layers)",
        "token-layers × elements per token per layer × batch × bytes(dtype)",
        shown,
        elements_bytes(elements * b, dtype),
        B,
        factors,
    )
    return t.done(value, B, f"{_convention(spec, dtype, mla_cache)}; {READINGS[convention]}")


def _no_kv(t: Trace, spec: ModelSpec) -> Result:
    """A model without softmax-attention layers caches no K or V (its mixers keep a fixed state)."""
    value = t.step("KV cache (no softmax-attention layer)", "0", "0", 0, B)
    return t.done(
        value, B, "no layer caches K and V" + ("; the mixers keep a fixed state" if spec.has_mixer else "")
    )


def cross_attention_kv_bytes_per_source_token(spec: ModelSpec, dtype: str = "bf16") -> int:
    """An encoder-decoder's cross-attention cache per encoder token: K and V in every decoder layer (fixed by
    the source length, computed once)."""
    return elements_bytes(spec.n_layers * spec.n_kv_heads * (spec.head_dim + spec.v_head_dim), dtype)


def _convention(spec: ModelSpec, dtype: str, mla_cache: str) -> str:
    if spec.is_mla:
        what = (
            "MLA latent + rotary key per layer" if mla_cache == "latent" else "decompressed K and V per head"
        )
        if spec.index_head_dim:
            what += " + the indexer's key"
        return f"{dtype} cache; {what}"
    hybrid = "; the mixer layers keep a fixed state instead" if spec.has_mixer else ""
    return f"{dtype} cache; n_kv_heads, not query heads{hybrid}"
