"""The transformer's shape as formulas name it (notation, not code), and a preset field's name in words."""

from __future__ import annotations

#: The shape of a transformer as the literature and every formula of the core name it: notation, not code.
#: (The core's ModelSpec fields beyond these are code: say them in words.)
NOTATION = frozenset(
    {
        "d_model",  # Vaswani et al.'s width
        "d_ff",  # the feed-forward width (Vaswani et al.)
        "head_dim",  # the width of one attention head
        "n_layers",  # the decoder's layers
        "n_heads",  # the query heads
        "n_kv_heads",  # the key/value heads of grouped-query attention
        "n_experts",  # an MoE layer's routed experts
        "n_positions",  # a learned position table's rows (GPT-2)
        "vocab_size",  # the embedding table's rows
        "seq_len",  # the tokens of a sequence
    }
)

#: Preset fields whose words are not their name with spaces for underscores.
_WORDS = {
    "experts_per_token": "experts per token",
    "n_shared_experts": "shared experts",
    "d_ff_expert": "expert width",
    "d_ff_shared": "shared expert width",
    "q_lora_rank": "query rank",
    "kv_lora_rank": "KV rank",
    "qk_rope_head_dim": "rope dim",
    "qk_nope_head_dim": "nope dim",
    "v_head_dim": "value head dim",
    "type_vocab_size": "token types",
    "n_encoder_layers": "encoder layers",
    "first_dense_layers": "dense layers",
    "moe_layer_step": "MoE layer step",
    "attention_chunk_size": "attention chunk",
    "sliding_window": "window",
}


def field_words(field: str) -> str:
    """How a formula names a preset field: notation as it is (d_model), the rest in words.

    >>> field_words("n_kv_heads"), field_words("kv_lora_rank"), field_words("nope_layers")
    ('n_kv_heads', 'KV rank', 'nope layers')
    """
    if field in NOTATION:
        return field
    return _WORDS.get(field, field.replace("_", " "))


__all__ = ["NOTATION", "field_words"]
