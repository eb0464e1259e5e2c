"""ModelSpec: a validated, frozen description of a decoder or encoder transformer."""

from __future__ import annotations

from quizzer.core.checks import count, one_of
from quizzer.core.errors import SpecError
from quizzer.core.record import Record

MLP_KINDS = ("gelu", "gated")
NORM_KINDS = ("layernorm", "rmsnorm")
POSITION_KINDS = ("learned", "rotary", "none")


class ModelSpec(Record):
    """The shapes that decide a transformer's parameter count, FLOPs and KV cache.

    ``n_kv_heads`` defaults to ``n_heads`` (multi-head attention) and ``head_dim`` to ``d_model // n_heads``;
    after construction both hold their resolved values.

    >>> spec = ModelSpec(vocab_size=32000, d_model=4096, n_layers=32, n_heads=32, d_ff=11008)
    >>> spec.n_kv_heads, spec.head_dim
    (32, 128)
    >>> ModelSpec(vocab_size=8, d_model=64, n_layers=1, n_heads=32, n_kv_heads=6, d_ff=8)
    Traceback (most recent call last):
    ...
    quizzer.core.errors.SpecError: n_heads (32) must be divisible by n_kv_heads (6)
    """

    vocab_size: int
    """Rows of the token embedding table."""
    d_model: int
    """Width of the residual stream."""
    n_layers: int
    """Transformer blocks."""
    n_heads: int
    """Query heads per layer."""
    d_ff: int
    """Hidden width of the MLP (of each expert, unless ``d_ff_expert`` is set)."""
    n_kv_heads: int = None  # type: ignore[assignment]
    """Key/value heads: ``n_heads`` for MHA, 1 for MQA, a divisor of ``n_heads`` for GQA."""
    head_dim: int = None  # type: ignore[assignment]
    """Width of one head; not always ``d_model // n_heads`` (Gemma-7B: 256 with d_model 3072, 16 heads)."""
    mlp: str = "gated"
    """'gelu': two matrices (up, down; any pointwise activation). 'gated': three (gate, up, down; SwiGLU)."""
    norm: str = "rmsnorm"
    """'layernorm' (weight and bias, 2·d_model) or 'rmsnorm' (weight only, d_model)."""
    qkv_bias: bool = False
    """Biases on the query, key and value projections."""
    out_bias: bool = False
    """Bias on the attention output projection."""
    mlp_bias: bool = False
    """Biases on the MLP projections."""
    tie_embeddings: bool = False
    """The LM head reuses the token embedding matrix (adds no parameters)."""
    positions: str = "rotary"
    """'learned' (a table of ``n_positions`` rows), 'rotary' or 'none' (no parameters)."""
    n_positions: int = 0
    """Rows of the learned position table (OPT: max_position_embeddings + 2)."""
    type_vocab_size: int = 0
    """Rows of the token-type (segment) table (BERT: 2)."""
    embedding_norm: bool = False
    """A norm right after the embeddings (BERT)."""
    final_norm: bool = True
    """A norm after the last layer (pre-norm decoders; BERT's post-norm layers have none)."""
    norms_per_layer: int = 2
    """Norms inside each layer (before attention and before the MLP, or after them for post-norm)."""
    lm_head: bool = True
    """The model ends in a vocabulary projection (BERT's base model does not)."""
    pooler: bool = False
    """BERT's pooler: a d_model × d_model dense layer with bias on the first token."""
    n_experts: int = 0
    """Routed experts per MoE layer; 0 for a dense model."""
    experts_per_token: int = 0
    """Routed experts each token uses (top-k)."""
    n_shared_experts: int = 0
    """Experts every token uses (DeepSeek-style), each of width ``d_ff_expert``."""
    d_ff_expert: int = None  # type: ignore[assignment]
    """Hidden width of one expert; defaults to ``d_ff``."""
    router_bias: bool = False
    """A bias on the router's logits."""
    sliding_window: int | None = None
    """Attention window in tokens: the KV cache holds at most this many tokens per sequence."""

    def __post_init__(self) -> None:
        for name in ("vocab_size", "d_model", "n_layers", "n_heads", "d_ff"):
            object.__setattr__(self, name, count(name, getattr(self, name)))
        if self.n_kv_heads is None:
            object.__setattr__(self, "n_kv_heads", self.n_heads)
        object.__setattr__(self, "n_kv_heads", count("n_kv_heads", self.n_kv_heads))
        if self.n_heads % self.n_kv_heads:
            raise SpecError(f"n_heads ({self.n_heads}) must be divisible by n_kv_heads ({self.n_kv_heads})")
        if self.head_dim is None:
            if self.d_model % self.n_heads:
                raise SpecError(
                    f"d_model ({self.d_model}) must be divisible by n_heads ({self.n_heads}) "
                    "when head_dim is not given"
                )
            object.__setattr__(self, "head_dim", self.d_model // self.n_heads)
        object.__setattr__(self, "head_dim", count("head_dim", self.head_dim))
        one_of("mlp", self.mlp, MLP_KINDS)
        one_of("norm", self.norm, NORM_KINDS)
        one_of("positions", self.positions, POSITION_KINDS)
        for name in (
            "qkv_bias",
            "out_bias",
            "mlp_bias",
            "tie_embeddings",
            "embedding_norm",
            "final_norm",
            "lm_head",
            "pooler",
            "router_bias",
        ):
            if not isinstance(getattr(self, name), bool):
                raise SpecError(f"{name} ({getattr(self, name)!r}) must be true or false")
        for name in (
            "n_positions",
            "type_vocab_size",
            "norms_per_layer",
            "n_experts",
            "experts_per_token",
            "n_shared_experts",
        ):
            object.__setattr__(self, name, count(name, getattr(self, name), 0))
        if self.positions == "learned" and self.n_positions == 0:
            raise SpecError("n_positions (0) must be positive when positions is 'learned'")
        if self.positions != "learned" and self.n_positions:
            raise SpecError(
                f"n_positions ({self.n_positions}) must be 0 when positions is {self.positions!r} "
                "(only a learned table has parameters)"
            )
        if self.tie_embeddings and not self.lm_head:
            raise SpecError("tie_embeddings (true) needs lm_head (false): there is no head to tie")
        self._check_experts()
        if self.sliding_window is not None:
            object.__setattr__(self, "sliding_window", count("sliding_window", self.sliding_window))

    def _check_experts(self) -> None:
        if self.d_ff_expert is None:
            object.__setattr__(self, "d_ff_expert", self.d_ff)
        object.__setattr__(self, "d_ff_expert", count("d_ff_expert", self.d_ff_expert))
        if self.n_experts == 0:
            if self.experts_per_token or self.n_shared_experts or self.router_bias:
                raise SpecError(
                    "experts_per_token, n_shared_experts and router_bias need n_experts > 0 "
                    "(a dense model has no router)"
                )
        elif not 1 <= self.experts_per_token <= self.n_experts:
            raise SpecError(
                f"experts_per_token ({self.experts_per_token}) must be between 1 and "
                f"n_experts ({self.n_experts})"
            )

    @property
    def is_moe(self) -> bool:
        """True for a mixture of experts."""
        return self.n_experts > 0
