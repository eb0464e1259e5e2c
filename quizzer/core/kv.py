"""The KV cache by layer kind: full, sliding and chunked layers, MLA's latent, and the two window conventions.

Window convention: a layer with a window of W tokens attends to the last W tokens, itself included. Papers
(Mistral 7B, Gemma 2/3) and most servers size its cache as W tokens ("paper"); Hugging Face's sliding cache
(``DynamicSlidingWindowLayer``) keeps W − 1 past tokens between steps and adds the new one as it attends
("hf"). Chunked layers (Llama 4) are cached the same way, the chunk size as W. Full layers keep every token.
"""

from __future__ import annotations

from quizzer.core.checks import count, counts, one_of
from quizzer.core.memory import dtype_factor
from quizzer.core.trace import Result, Trace, num, tags
from quizzer.core.units import Unit, dtype_bytes_text, elements_bytes

B = Unit.BYTES
WINDOW_CONVENTIONS = ("paper", "hf")
MLA_CACHES = ("latent", "decompressed")
READINGS = {
    "paper": "windows of W tokens (papers, servers)",
    "hf": "W − 1 past tokens per window (transformers)",
}


def window_cap(window: int, convention: str) -> int:
    """Tokens a layer with a window of W keeps: W ("paper") or W − 1 ("hf")."""
    one_of("convention", convention, WINDOW_CONVENTIONS)
    return window if convention == "paper" else window - 1


def kv_tokens_cached(seq_len: int, window: int | None = None, convention: str = "paper") -> Result:
    """Tokens one layer keeps for a sequence of ``seq_len`` tokens: all of them, or at most its window.

    ``convention`` 'paper' caps at W tokens, 'hf' at W − 1 (what transformers' sliding cache holds).

    >>> kv_tokens_cached(32768, 4096).value, kv_tokens_cached(32768, 4096, "hf").value
    (4096, 4095)
    >>> kv_tokens_cached(100).value
    100
    """
    (seq_len,) = counts(seq_len=seq_len)
    t = Trace()
    if window is None:
        value = t.step("Tokens cached (full attention)", "seq_len", num(seq_len), seq_len, Unit.TOKENS)
        return t.done(value, Unit.TOKENS, "full attention keeps every token")
    cap = window_cap(count("window", window), convention)
    formula = "min(seq_len, W)" if convention == "paper" else "min(seq_len, W − 1)"
    value = t.step(
        "Tokens cached (windowed layer)",
        formula,
        f"min({num(seq_len)}, {num(cap)})",
        min(seq_len, cap),
        Unit.TOKENS,
    )
    return t.done(value, Unit.TOKENS, READINGS[convention])


def windowed_kv_cache_bytes(
    n_full_layers: int,
    n_window_layers: int,
    window: int,
    n_kv_heads: int,
    head_dim: int,
    seq_len: int,
    batch: int = 1,
    dtype: str = "bf16",
    convention: str = "paper",
) -> Result:
    """KV cache of a model mixing full and sliding (or chunked) layers, at a context of ``seq_len`` tokens:
    2 × n_kv_heads × head_dim × bytes × (T × full layers + min(T, cap) × window layers) × batch.

    cap = W ('paper') or W − 1 ('hf'). Gemma 3 4B (5 full, 29 sliding layers of 1024, 4 KV heads of 256) at
    32K tokens is 793 MB in transformers, not the 4.6 GB one formula for every layer gives.

    >>> windowed_kv_cache_bytes(5, 29, 1024, 4, 256, 32768, convention="hf").value
    792604672
    >>> windowed_kv_cache_bytes(0, 32, 4096, 8, 128, 32768).value  # Mistral 7B: every layer slides
    536870912
    """
    full, windowed = (
        count(name, value, 0)
        for name, value in (("n_full_layers", n_full_layers), ("n_window_layers", n_window_layers))
    )
    w, k, hd, s, b = counts(
        window=window, n_kv_heads=n_kv_heads, head_dim=head_dim, seq_len=seq_len, batch=batch
    )
    cap = window_cap(w, convention)
    t = Trace()
    pair = tags(kv=2, kv_heads=k, head_dim=hd)
    per_layer = t.step(
        "K and V per token per layer",
        "2 × n_kv_heads × head_dim",
        f"2 × {k} × {hd}",
        2 * k * hd,
        Unit.COUNT,
        pair,
    )
    tokens = t.step(
        "Cached token-layers",
        "T × full + min(T, cap) × windowed",
        f"{num(s)} × {full} + {num(min(s, cap))} × {windowed}",
        s * full + min(s, cap) * windowed,
        Unit.COUNT,
    )
    shown = f"{num(per_layer)} × {num(tokens)} × {num(b)} × {dtype_bytes_text(dtype)}"
    factors = (*pair, *tags(batch=b), dtype_factor(dtype))  # the token-layers are a sum: no layers factor
    value = t.step(
        "KV cache",
        "elements × batch × bytes(dtype)",
        shown,
        elements_bytes(per_layer * tokens * b, dtype),
        B,
        factors,
    )
    return t.done(value, B, f"{dtype} cache; {READINGS[convention]}")


def mla_kv_bytes_per_token(
    n_layers: int, kv_lora_rank: int, qk_rope_head_dim: int, dtype: str = "bf16"
) -> Result:
    """What an MLA-aware runtime caches per token: the latent and the decoupled rotary key in every layer,
    L × (kv_lora_rank + qk_rope_head_dim) × bytes, one vector for all heads and no ×2 (DeepSeek-V2 §2.1.2).

    >>> mla_kv_bytes_per_token(61, 512, 64).value  # DeepSeek-V3
    70272
    """
    layers, r, rope = counts(n_layers=n_layers, kv_lora_rank=kv_lora_rank, qk_rope_head_dim=qk_rope_head_dim)
    t = Trace()
    shown = f"{layers} × ({r} + {rope}) × {dtype_bytes_text(dtype)}"
    value = t.step(
        "MLA cache per token (latent + rotary key)",
        "L × (KV rank + rope) × bytes(dtype)",
        shown,
        elements_bytes(layers * (r + rope), dtype),
        B,
        (*tags(layers=layers), dtype_factor(dtype)),  # one latent for K and V: no ×2
    )
    return t.done(value, B, f"{dtype} cache; MLA-aware runtime (vLLM, SGLang): the latent, not K and V")


def mla_decompressed_kv_bytes_per_token(
    n_layers: int,
    n_heads: int,
    qk_nope_head_dim: int,
    qk_rope_head_dim: int,
    v_head_dim: int,
    dtype: str = "bf16",
) -> Result:
    """What a runtime that decompresses MLA caches per token (transformers' cache): every head's key
    (nope + rope wide) and value, L × H × (nope + rope + v) × bytes.

    >>> mla_decompressed_kv_bytes_per_token(61, 128, 128, 64, 128).value  # DeepSeek-V3: 71× the latent
    4997120
    """
    layers, h, nope, rope, v = counts(
        n_layers=n_layers,
        n_heads=n_heads,
        qk_nope_head_dim=qk_nope_head_dim,
        qk_rope_head_dim=qk_rope_head_dim,
        v_head_dim=v_head_dim,
    )
    t = Trace()
    shown = f"{layers} × {h} × ({nope} + {rope} + {v}) × {dtype_bytes_text(dtype)}"
    value = t.step(
        "Decompressed K and V per token",
        "L × H × (nope + rope + v) × bytes(dtype)",
        shown,
        elements_bytes(layers * h * (nope + rope + v), dtype),
        B,
        (*tags(layers=layers, heads=h), dtype_factor(dtype)),  # K and V differ in width: no ×2 factor
    )
    return t.done(value, B, f"{dtype} cache; K and V per head, as transformers caches MLA")
