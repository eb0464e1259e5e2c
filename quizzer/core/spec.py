"""ModelSpec: a validated, frozen description of a decoder, encoder or encoder-decoder transformer."""

from __future__ import annotations

from quizzer.core.checks import count, one_of
from quizzer.core.errors import SpecError
from quizzer.core.layers import (
    ATTENTION_KINDS,
    MIXER_KINDS_OF_LAYERS,
    SOFTMAX_KINDS,
    expand_pattern,
    layer_indices,
    moe_layer_flags,
)
from quizzer.core.record import Record

MLP_KINDS = ("gelu", "gated")
NORM_KINDS = ("layernorm", "rmsnorm", "nonparametric")
POSITION_KINDS = ("learned", "rotary", "none", "alibi", "relative")
QK_NORM_KINDS = ("none", "head", "projection", "l2")
NORM_PLACEMENTS = ("pre", "post", "sandwich")
MIXER_KINDS = ("none", "gated_deltanet", "kda", "mamba2", "short_conv")
#: The shape fields each mixer needs (positive): the others stay 0.
MIXER_FIELDS = {
    "none": (),
    "gated_deltanet": (
        "mixer_heads", "mixer_key_heads", "mixer_key_dim", "mixer_value_dim", "mixer_conv_kernel"
    ),
    "kda": ("mixer_heads", "mixer_key_dim", "mixer_conv_kernel"),
    "mamba2": ("mixer_heads", "mixer_key_heads", "mixer_key_dim", "mixer_value_dim", "mixer_conv_kernel"),
    "short_conv": ("mixer_conv_kernel",),
}  # fmt: skip

_FLAGS = (
    "qkv_bias", "out_bias", "mlp_bias", "tie_embeddings", "embedding_norm", "final_norm", "lm_head", "pooler",
    "router_bias", "qk_norm_bias", "attention_sinks", "parallel_attention", "lm_head_bias", "expert_bias",
    "mixer_conv_bias", "mixer_bias", "attention_output_gate", "shared_expert_gate", "mixer_norm",
)  # fmt: skip
_COUNTS = (
    "n_positions", "type_vocab_size", "n_experts", "experts_per_token", "n_shared_experts", "q_lora_rank",
    "kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "first_dense_layers", "n_encoder_layers",
    "relative_attention_buckets", "mixer_heads", "mixer_key_heads", "mixer_key_dim", "mixer_value_dim",
    "mixer_conv_kernel", "index_n_heads", "index_head_dim", "index_topk", "mlp_activation_params",
    "mtp_layers",
)  # fmt: skip


class ModelSpec(Record):
    """The shapes that decide a transformer's parameter count, FLOPs and KV cache.

    ``n_kv_heads`` defaults to ``n_heads`` (multi-head attention), ``head_dim`` to ``d_model // n_heads`` (to
    ``qk_nope_head_dim + qk_rope_head_dim`` with MLA), ``v_head_dim`` to ``head_dim`` and ``norms_per_layer``
    to 2 (4 for sandwich norms); after construction they hold their resolved values.

    >>> spec = ModelSpec(vocab_size=32000, d_model=4096, n_layers=32, n_heads=32, d_ff=11008)
    >>> spec.n_kv_heads, spec.head_dim, spec.attention_kinds[:2]
    (32, 128, ('full', 'full'))
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
    """Transformer blocks (of the decoder, in an encoder-decoder model)."""
    n_heads: int
    """Query heads per layer."""
    d_ff: int
    """Hidden width of the MLP (of each expert unless ``d_ff_expert`` is set; of a MoE's dense layers)."""
    n_kv_heads: int = None  # type: ignore[assignment]  # None until __post_init__ derives it
    """Key/value heads: ``n_heads`` for MHA, 1 for MQA, a divisor of ``n_heads`` for GQA."""
    head_dim: int = None  # type: ignore[assignment]  # None until __post_init__ derives it
    """Width of one query/key head; not always ``d_model // n_heads`` (Gemma-7B: 256, Qwen3-30B-A3B: 128)."""
    mlp: str = "gated"
    """'gelu': two matrices (up, down; any pointwise activation). 'gated': three (gate, up, down; SwiGLU)."""
    norm: str = "rmsnorm"
    """'layernorm' (weight and bias: 2·d_model), 'rmsnorm' (weight: d_model), 'nonparametric' (OLMo: 0)."""
    qkv_bias: bool = False
    """Biases on the query, key and value projections (with MLA: on its down-projections)."""
    out_bias: bool = False
    """Bias on the attention output projection."""
    mlp_bias: bool = False
    """Biases on the MLP projections."""
    tie_embeddings: bool = False
    """The LM head reuses the token embedding matrix (adds no parameters)."""
    positions: str = "rotary"
    """'learned' (a table), 'rotary', 'none', 'alibi' (BLOOM: no parameters) or 'relative' (T5's table)."""
    n_positions: int = 0
    """Rows of the learned position table (OPT: max_position_embeddings + 2)."""
    type_vocab_size: int = 0
    """Rows of the token-type (segment) table (BERT: 2)."""
    embedding_norm: bool = False
    """A norm right after the embeddings (BERT, BLOOM)."""
    final_norm: bool = True
    """A norm after the last layer (of each stack; BERT's post-norm layers have none)."""
    norms_per_layer: int = None  # type: ignore[assignment]  # None until __post_init__ derives it
    """d_model-wide norms inside each layer: 2 by default, 4 for sandwich norms, 1 for GPT-J's shared one."""
    lm_head: bool = True
    """The model ends in a vocabulary projection (BERT's base model does not)."""
    pooler: bool = False
    """BERT's pooler: a d_model × d_model dense layer with bias on the first token."""
    n_experts: int = 0
    """Routed experts per MoE layer; 0 for a dense model."""
    experts_per_token: int = 0
    """Routed experts each token uses (top-k)."""
    n_shared_experts: int = 0
    """Experts every token uses (DeepSeek, Llama 4), each of width ``d_ff_shared``."""
    d_ff_expert: int = None  # type: ignore[assignment]  # None until __post_init__ derives it
    """Hidden width of one routed expert; defaults to ``d_ff``."""
    router_bias: bool = False
    """A bias on the router's logits (gpt-oss)."""
    sliding_window: int | None = None
    """Window of the 'sliding' layers in tokens; with no ``layer_types`` every layer slides (Mistral 7B)."""
    layer_types: tuple[str, ...] = ()
    """Attention kind of each layer ('full', 'sliding', 'chunked'): n_layers entries or a shorter pattern
    repeated (Gemma 3: five 'sliding' then one 'full'; gpt-oss: 'sliding', 'full')."""
    attention_chunk_size: int | None = None
    """Chunk of the 'chunked' layers in tokens (Llama 4: 8192): a token attends within its aligned chunk."""
    nope_layers: tuple[int, ...] = ()
    """Layers without positional encoding (Llama 4: every 4th layer, its full-attention layers)."""
    qk_norm: str = "none"
    """Norms on queries and keys: 'head' (one head_dim-wide weight each, shared by the heads: Qwen3, Gemma 3),
    'projection' (over all heads, n_heads·head_dim and n_kv_heads·head_dim: OLMo 2), 'l2' (no weights:
    Llama 4)."""
    qk_norm_bias: bool = False
    """The q/k norms also have biases (Phi-2's qk_layernorm)."""
    attention_sinks: bool = False
    """One learned sink logit per head and layer in the softmax (gpt-oss): n_heads parameters per layer."""
    v_head_dim: int = None  # type: ignore[assignment]  # None until __post_init__ derives it
    """Width of one value head; defaults to ``head_dim`` (MLA: 128 while q/k heads are 192 wide)."""
    q_lora_rank: int = 0
    """MLA: rank of the query down-projection; 0 projects queries directly (DeepSeek-V2-Lite)."""
    kv_lora_rank: int = 0
    """MLA: width of the compressed key/value latent (DeepSeek-V3: 512); 0 means ordinary attention."""
    qk_rope_head_dim: int = 0
    """MLA: width of the decoupled rotary key, shared by the heads and cached beside the latent (64)."""
    qk_nope_head_dim: int = 0
    """MLA: width of the part of each q/k head without rotary positions (128)."""
    norm_placement: str = "pre"
    """'pre' (before attention and MLP), 'post' (after them: BERT, OLMo 2) or 'sandwich' (both: Gemma 2/3)."""
    parallel_attention: bool = False
    """Attention and MLP read the same input (GPT-J, Falcon, Phi-2): often one norm for both."""
    lm_head_bias: bool = False
    """A bias on the LM head (GPT-J, Phi-2): vocab_size more parameters."""
    d_ff_shared: int = None  # type: ignore[assignment]  # None until __post_init__ derives it
    """Hidden width of one shared expert; defaults to ``d_ff_expert``."""
    expert_bias: bool = False
    """Biases on every expert's projections (gpt-oss)."""
    first_dense_layers: int = 0
    """The first k layers of a MoE have a dense MLP of width d_ff (DeepSeek's first_k_dense_replace: 3)."""
    moe_layer_step: int = 1
    """Experts on every k-th layer, layer i when (i + 1) % k == 0 (Llama 4's interleave_moe_layer_step)."""
    moe_layers: tuple[int, ...] = ()
    """The layers with experts, listed; overrides first_dense_layers and moe_layer_step (Qwen3-MoE's
    mlp_only_layers are the others)."""
    n_encoder_layers: int = 0
    """Layers of an encoder stack before the decoder (T5); the decoder's layers then add cross-attention."""
    relative_attention_buckets: int = 0
    """T5's relative-position buckets: a buckets × n_heads bias table in the first layer of each stack."""
    mixer: str = "none"
    """The fixed-state token mixer of the 'linear' layers: 'gated_deltanet' (Qwen3-Next), 'kda' (Kimi Delta
    Attention), 'mamba2' (Nemotron-H), 'short_conv' (LFM2); 'none' when every layer is softmax attention."""
    mixer_heads: int = 0
    """Value heads (gated DeltaNet), heads (KDA) or SSM heads (Mamba-2)."""
    mixer_key_heads: int = 0
    """Key heads (gated DeltaNet) or groups sharing B and C (Mamba-2's n_groups)."""
    mixer_key_dim: int = 0
    """Key head width (gated DeltaNet; KDA's head_dim, also its value width) or Mamba-2's SSM state size."""
    mixer_value_dim: int = 0
    """Value head width (gated DeltaNet) or Mamba-2's head_dim."""
    mixer_conv_kernel: int = 0
    """The mixer's causal short convolution, in tokens (4; LFM2's L_cache 3)."""
    mixer_conv_bias: bool = False
    """A bias on the short convolution (Mamba-2's use_conv_bias, LFM2's conv_bias)."""
    mixer_bias: bool = False
    """Biases on the mixer's input and output projections (Mamba-2's use_bias, LFM2's conv_bias)."""
    mixer_norm: bool = True
    """The mixer's gated RMSNorm before its output projection (Falcon-H1 has it only with mamba_rms_norm)."""
    no_mlp_layers: tuple[int, ...] = ()
    """Layers without an MLP (Nemotron-H: each block is one mixer, attention or MLP)."""
    attention_output_gate: bool = False
    """Gated attention (Qwen3-Next): a sigmoid gate on the attention output, projected like the queries."""
    index_n_heads: int = 0
    """DeepSeek Sparse Attention's lightning indexer: its heads (V3.2: 64); 0 for no indexer."""
    index_head_dim: int = 0
    """The indexer's head width (V3.2: 128); it caches one key of this width per token and layer."""
    index_topk: int = 0
    """Keys each query attends to after the indexer's selection (V3.2: 2048)."""
    shared_expert_gate: bool = False
    """A sigmoid gate on the shared expert's output (Qwen3-Next): d_model parameters per MoE layer."""
    mlp_activation_params: int = 0
    """Learned scalars of the MLP's activation in every dense MLP (Apertus' xIELU: alpha_p and alpha_n, 2)."""
    mtp_layers: int = 0
    """Multi-token-prediction modules counted with the model (DeepSeek-V3's num_nextn_predict_layers, Qwen3-
    Next's mtp_num_hidden_layers): 0 by default, as transformers builds none."""

    def __post_init__(self) -> None:
        own = self.__dict__
        for name in ("vocab_size", "d_model", "n_layers", "n_heads", "d_ff"):
            value = own[name]
            if type(value) is not int or value < 1:  # an int in range is what count() gives back: kept
                object.__setattr__(self, name, count(name, value))
        for name in _FLAGS:
            if not isinstance(own[name], bool):
                raise SpecError(f"{name} ({own[name]!r}) must be true or false")
        for name in _COUNTS:
            value = own[name]
            if type(value) is not int or value < 0:
                object.__setattr__(self, name, count(name, value, 0))
        self._check_heads()
        one_of("mlp", self.mlp, MLP_KINDS)
        one_of("norm", self.norm, NORM_KINDS)
        one_of("positions", self.positions, POSITION_KINDS)
        one_of("qk_norm", self.qk_norm, QK_NORM_KINDS)
        one_of("norm_placement", self.norm_placement, NORM_PLACEMENTS)
        if self.norms_per_layer is None:
            object.__setattr__(self, "norms_per_layer", 4 if self.norm_placement == "sandwich" else 2)
        object.__setattr__(self, "norms_per_layer", count("norms_per_layer", self.norms_per_layer, 0))
        if self.positions == "learned" and self.n_positions == 0:
            raise SpecError("n_positions (0) must be positive when positions is 'learned'")
        if self.positions != "learned" and self.n_positions:
            raise SpecError(
                f"n_positions ({self.n_positions}) must be 0 when positions is {self.positions!r} "
                "(only a learned table has parameters)"
            )
        if (self.positions == "relative") != (self.relative_attention_buckets > 0):
            raise SpecError(
                "relative_attention_buckets must be positive exactly when positions is 'relative'"
            )
        if self.tie_embeddings and not self.lm_head:
            raise SpecError("tie_embeddings (true) needs lm_head (false): there is no head to tie")
        if self.lm_head_bias and not self.lm_head:
            raise SpecError("lm_head_bias (true) needs lm_head (false): there is no head")
        if self.qk_norm_bias and self.qk_norm in ("none", "l2"):
            raise SpecError(f"qk_norm_bias (true) needs q/k norms with weights, not qk_norm {self.qk_norm!r}")
        self._check_experts()
        self._check_layers()
        self._check_mixer()

    def _check_heads(self) -> None:
        if self.n_kv_heads is None:
            object.__setattr__(self, "n_kv_heads", self.n_heads)
        object.__setattr__(self, "n_kv_heads", count("n_kv_heads", self.n_kv_heads))
        if self.n_heads % self.n_kv_heads:
            raise SpecError(f"n_heads ({self.n_heads}) must be divisible by n_kv_heads ({self.n_kv_heads})")
        if self.kv_lora_rank:
            rope, nope = self.qk_rope_head_dim, self.qk_nope_head_dim
            if not rope or not nope:
                raise SpecError("MLA (kv_lora_rank > 0) needs qk_rope_head_dim and qk_nope_head_dim > 0")
            if self.head_dim not in (None, rope + nope):
                raise SpecError(
                    f"head_dim ({self.head_dim}) of an MLA model must be qk_nope_head_dim + qk_rope_head_dim "
                    f"({nope} + {rope})"
                )
            if self.n_kv_heads != self.n_heads:
                raise SpecError(f"n_kv_heads ({self.n_kv_heads}) of an MLA model must equal n_heads")
            object.__setattr__(self, "head_dim", rope + nope)
        elif self.q_lora_rank or self.qk_rope_head_dim or self.qk_nope_head_dim:
            raise SpecError("q_lora_rank, qk_rope_head_dim and qk_nope_head_dim need MLA (kv_lora_rank > 0)")
        if self.head_dim is None:
            if self.d_model % self.n_heads:
                raise SpecError(
                    f"d_model ({self.d_model}) must be divisible by n_heads ({self.n_heads}) "
                    "when head_dim is not given"
                )
            object.__setattr__(self, "head_dim", self.d_model // self.n_heads)
        object.__setattr__(self, "head_dim", count("head_dim", self.head_dim))
        if self.v_head_dim is None:
            object.__setattr__(self, "v_head_dim", self.head_dim)
        object.__setattr__(self, "v_head_dim", count("v_head_dim", self.v_head_dim))

    def _check_experts(self) -> None:
        if self.d_ff_expert is None:
            object.__setattr__(self, "d_ff_expert", self.d_ff)
        object.__setattr__(self, "d_ff_expert", count("d_ff_expert", self.d_ff_expert))
        if self.d_ff_shared is None:
            object.__setattr__(self, "d_ff_shared", self.d_ff_expert)
        object.__setattr__(self, "d_ff_shared", count("d_ff_shared", self.d_ff_shared))
        object.__setattr__(self, "moe_layer_step", count("moe_layer_step", self.moe_layer_step))
        object.__setattr__(self, "moe_layers", layer_indices("moe_layers", self.moe_layers, self.n_layers))
        if self.n_experts == 0:
            if self.experts_per_token or self.n_shared_experts or self.router_bias or self.expert_bias:
                raise SpecError(
                    "experts_per_token, n_shared_experts, router_bias and expert_bias need n_experts > 0 "
                    "(a dense model has no router)"
                )
            if self.first_dense_layers or self.moe_layers or self.moe_layer_step != 1:
                raise SpecError("first_dense_layers, moe_layers and moe_layer_step need n_experts > 0")
        elif not 1 <= self.experts_per_token <= self.n_experts:
            raise SpecError(
                f"experts_per_token ({self.experts_per_token}) must be between 1 and "
                f"n_experts ({self.n_experts})"
            )
        elif not any(self.moe_flags):
            raise SpecError(
                f"no layer has experts (first_dense_layers {self.first_dense_layers}, "
                f"moe_layer_step {self.moe_layer_step}, n_layers {self.n_layers})"
            )

    def _check_layers(self) -> None:
        for name in ("sliding_window", "attention_chunk_size"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, count(name, getattr(self, name)))
        object.__setattr__(self, "layer_types", tuple(self.layer_types))
        kinds = self.layer_kinds
        if "sliding" in kinds and self.sliding_window is None:
            raise SpecError("layer_types has 'sliding' layers but sliding_window is not set")
        if "chunked" in kinds and self.attention_chunk_size is None:
            raise SpecError("layer_types has 'chunked' layers but attention_chunk_size is not set")
        object.__setattr__(self, "nope_layers", layer_indices("nope_layers", self.nope_layers, self.n_layers))
        object.__setattr__(
            self, "no_mlp_layers", layer_indices("no_mlp_layers", self.no_mlp_layers, self.n_layers)
        )
        if self.is_encoder_decoder and set(kinds) - set(ATTENTION_KINDS):
            raise SpecError("an encoder-decoder model's layers must all be softmax attention")

    def _check_mixer(self) -> None:
        one_of("mixer", self.mixer, MIXER_KINDS)
        has_linear = any(kind in MIXER_KINDS_OF_LAYERS for kind in self.layer_kinds)
        if has_linear and self.mixer == "none":
            raise SpecError(
                "layer_types has 'linear' or 'parallel' layers but mixer is 'none' (name the mixer they use)"
            )
        if self.mixer != "none" and not has_linear:
            raise SpecError(f"mixer ({self.mixer!r}) needs 'linear' or 'parallel' entries in layer_types")
        if not self.mixer_norm and self.mixer == "none":
            raise SpecError("mixer_norm (false) needs a mixer")
        needed = MIXER_FIELDS[self.mixer]
        for name in needed:
            if not getattr(self, name):
                raise SpecError(f"{name} (0) must be positive for mixer {self.mixer!r}")
        for name in MIXER_FIELDS["gated_deltanet"]:
            if name not in needed and getattr(self, name):
                raise SpecError(
                    f"{name} ({getattr(self, name)}) is not used by mixer {self.mixer!r}: leave it 0"
                )
        if self.mixer == "none" and (self.mixer_conv_bias or self.mixer_bias):
            raise SpecError("mixer_conv_bias and mixer_bias need a mixer")
        if self.mixer_bias and self.mixer not in ("mamba2", "short_conv"):
            raise SpecError(f"mixer_bias: mixer {self.mixer!r} has no biases on its projections")
        if self.mixer_key_heads and self.mixer_heads % self.mixer_key_heads:
            raise SpecError(
                f"mixer_heads ({self.mixer_heads}) must be divisible by "
                f"mixer_key_heads ({self.mixer_key_heads})"
            )
        if bool(self.index_n_heads) != bool(self.index_head_dim):
            raise SpecError("index_n_heads and index_head_dim go together (both 0: no indexer)")
        if self.index_n_heads and not self.is_mla:
            raise SpecError(
                "an indexer (index_n_heads > 0) needs MLA (kv_lora_rank > 0), as in DeepSeek-V3.2"
            )
        if self.index_topk and not self.index_n_heads:
            raise SpecError("index_topk needs an indexer (index_n_heads > 0)")
        if self.attention_output_gate and self.is_mla:
            raise SpecError("attention_output_gate is not supported with MLA")
        if self.shared_expert_gate and not self.n_shared_experts:
            raise SpecError("shared_expert_gate needs n_shared_experts > 0")

    @property
    def is_moe(self) -> bool:
        """True for a mixture of experts."""
        return self.n_experts > 0

    @property
    def is_mla(self) -> bool:
        """True for multi-head latent attention (DeepSeek-V2/V3, Kimi K2)."""
        return self.kv_lora_rank > 0

    @property
    def is_encoder_decoder(self) -> bool:
        """True when an encoder stack precedes the decoder (T5)."""
        return self.n_encoder_layers > 0

    @property
    def has_mixer(self) -> bool:
        """True when some layers use a fixed-state mixer instead of softmax attention (a hybrid)."""
        return self.mixer != "none"

    @property
    def layer_kinds(self) -> tuple[str, ...]:
        """The kind of every (decoder) layer: an attention kind, 'linear' (the mixer), 'parallel' (both) or
        'mlp' (no mixer); the same tuple as ``attention_kinds``, named for what it now holds."""
        return self.attention_kinds

    @property
    def softmax_layers(self) -> tuple[int, ...]:
        """The layers with softmax attention (the ones whose KV cache grows with the context)."""
        return tuple(i for i, kind in enumerate(self.attention_kinds) if kind in SOFTMAX_KINDS)

    @property
    def mixer_layers(self) -> tuple[int, ...]:
        """The layers with the fixed-state mixer (alone, or beside attention in a 'parallel' layer)."""
        return tuple(i for i, kind in enumerate(self.attention_kinds) if kind in MIXER_KINDS_OF_LAYERS)

    @property
    def attention_kinds(self) -> tuple[str, ...]:
        """The kind of every (decoder) layer: the pattern expanded, or all 'sliding' / all 'full'.

        >>> ModelSpec(vocab_size=8, d_model=64, n_layers=4, n_heads=4, d_ff=8, sliding_window=128,
        ...           layer_types=("sliding", "full")).attention_kinds
        ('sliding', 'full', 'sliding', 'full')
        """
        if self.layer_types:
            return expand_pattern("layer_types", self.layer_types, self.n_layers)
        return ("sliding" if self.sliding_window is not None else "full",) * self.n_layers

    @property
    def moe_flags(self) -> tuple[bool, ...]:
        """For every (decoder) layer, whether its MLP is a set of experts.

        >>> ModelSpec(vocab_size=8, d_model=64, n_layers=4, n_heads=4, d_ff=8, n_experts=4,
        ...           experts_per_token=1, first_dense_layers=1).moe_flags
        (False, True, True, True)
        """
        if not self.is_moe:
            return (False,) * self.n_layers
        return moe_layer_flags(self.n_layers, self.moe_layers, self.first_dense_layers, self.moe_layer_step)

    def window_of(self, kind: str) -> int | None:
        """The tokens a layer of this attention kind keeps: its window or chunk, None for full attention."""
        return {"sliding": self.sliding_window, "chunked": self.attention_chunk_size}.get(kind)
