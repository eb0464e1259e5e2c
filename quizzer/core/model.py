"""Whole-model parameter counts from a ModelSpec: breakdown by part, total, active, non-embedding."""

from __future__ import annotations

from quizzer.core.params import (
    attention_params,
    embedding_params,
    lm_head_params,
    mlp_params,
    moe_mlp_params,
    norm_params,
    position_params,
)
from quizzer.core.record import Record
from quizzer.core.spec import ModelSpec
from quizzer.core.trace import Result, Trace, num
from quizzer.core.units import Unit

P = Unit.PARAMS


class ParamBreakdown(Record):
    """Exact parameter counts by part; ``total`` is their sum and ``active`` what one token uses."""

    token_embedding: int
    token_type: int
    position: int
    embedding_norm: int
    attention_per_layer: int
    mlp_per_layer: int
    mlp_active_per_layer: int
    norm_per_layer: int
    n_layers: int
    final_norm: int
    lm_head: int
    other: int

    @property
    def embedding(self) -> int:
        """Token plus token-type tables."""
        return self.token_embedding + self.token_type

    @property
    def attention(self) -> int:
        return self.attention_per_layer * self.n_layers

    @property
    def mlp(self) -> int:
        return self.mlp_per_layer * self.n_layers

    @property
    def norm(self) -> int:
        """Every norm: inside the layers, the final one and the one after the embeddings."""
        return self.norm_per_layer * self.n_layers + self.final_norm + self.embedding_norm

    @property
    def per_layer(self) -> int:
        return self.attention_per_layer + self.mlp_per_layer + self.norm_per_layer

    @property
    def total(self) -> int:
        return (
            self.embedding + self.position + self.attention + self.mlp + self.norm + self.lm_head + self.other
        )

    @property
    def active(self) -> int:
        """Total minus the routed experts a token skips (equal to ``total`` for dense models)."""
        return self.total - (self.mlp_per_layer - self.mlp_active_per_layer) * self.n_layers

    def parts(self) -> dict[str, int]:
        """The parts that add up to ``total``, as in ``quizzer count --json``."""
        return {
            "embedding": self.embedding,
            "position": self.position,
            "attention": self.attention,
            "mlp": self.mlp,
            "norm": self.norm,
            "lm_head": self.lm_head,
            "other": self.other,
        }


def _layer_results(spec: ModelSpec) -> tuple[Result, Result, Result, Result]:
    attn = attention_params(
        spec.d_model, spec.n_heads, spec.n_kv_heads, spec.head_dim, spec.qkv_bias, spec.out_bias
    )
    if spec.is_moe:
        mlp, mlp_active = moe_mlp_params(
            spec.d_model,
            spec.d_ff_expert,
            spec.n_experts,
            spec.experts_per_token,
            spec.mlp == "gated",
            spec.n_shared_experts,
            spec.router_bias,
        )
    else:
        mlp = mlp_active = mlp_params(spec.d_model, spec.d_ff, spec.mlp == "gated", spec.mlp_bias)
    return attn, mlp, mlp_active, norm_params(spec.d_model, spec.norm)


def param_breakdown(spec: ModelSpec) -> ParamBreakdown:
    """Exact counts by part for ``spec``.

    >>> gpt2 = ModelSpec(vocab_size=50257, d_model=768, n_layers=12, n_heads=12, d_ff=3072, mlp="gelu",
    ...                  norm="layernorm", qkv_bias=True, out_bias=True, mlp_bias=True, tie_embeddings=True,
    ...                  positions="learned", n_positions=1024)
    >>> param_breakdown(gpt2).total
    124439808
    """
    attn, mlp, mlp_active, norm = _layer_results(spec)
    d = spec.d_model
    return ParamBreakdown(
        token_embedding=spec.vocab_size * d,
        token_type=spec.type_vocab_size * d,
        position=spec.n_positions * d,
        embedding_norm=norm.value if spec.embedding_norm else 0,
        attention_per_layer=attn.value,
        mlp_per_layer=mlp.value,
        mlp_active_per_layer=mlp_active.value,
        norm_per_layer=spec.norms_per_layer * norm.value,
        n_layers=spec.n_layers,
        final_norm=norm.value if spec.final_norm else 0,
        lm_head=0 if spec.tie_embeddings or not spec.lm_head else spec.vocab_size * d,
        other=d * d + d if spec.pooler else 0,
    )


def _model_trace(spec: ModelSpec, active: bool) -> Result:
    attn, mlp, mlp_active, norm = _layer_results(spec)
    mlp_used = mlp_active if active else mlp
    t = Trace()
    a = t.use(attn)
    m = t.use(mlp_used)
    n = t.use(norm)
    per_layer = t.step(
        "One layer",
        "attention + MLP + norms_per_layer × norm",
        f"{num(a)} + {num(m)} + {spec.norms_per_layer} × {num(n)}",
        a + m + spec.norms_per_layer * n,
        P,
    )
    layers = t.step(
        "All layers",
        "n_layers × one layer",
        f"{num(spec.n_layers)} × {num(per_layer)}",
        spec.n_layers * per_layer,
        P,
    )
    terms = [layers]
    names = ["layers"]
    terms.append(t.use(embedding_params(spec.vocab_size, spec.d_model)))
    names.append("token embedding")
    if spec.type_vocab_size:
        terms.append(
            t.step(
                "Token-type table",
                "type_vocab_size × d_model",
                f"{num(spec.type_vocab_size)} × {num(spec.d_model)}",
                spec.type_vocab_size * spec.d_model,
                P,
            )
        )
        names.append("token types")
    if spec.positions == "learned":
        terms.append(t.use(position_params(spec.n_positions, spec.d_model)))
        names.append("positions")
    if spec.embedding_norm:
        terms.append(t.step("Embedding norm", "one norm", num(n), n, P))
        names.append("embedding norm")
    if spec.final_norm:
        terms.append(t.step("Final norm", "one norm", num(n), n, P))
        names.append("final norm")
    if spec.lm_head:
        terms.append(t.use(lm_head_params(spec.vocab_size, spec.d_model, spec.tie_embeddings)))
        names.append("LM head")
    if spec.pooler:
        terms.append(
            t.step(
                "Pooler (dense + bias)",
                "d_model² + d_model",
                f"{num(spec.d_model)}² + {num(spec.d_model)}",
                spec.d_model**2 + spec.d_model,
                P,
            )
        )
        names.append("pooler")
    label = "Active parameters per token" if active else "Total parameters"
    value = t.step(label, " + ".join(names), " + ".join(num(x) for x in terms), sum(terms), P)
    convention = "tied weights counted once; every bias and norm weight counted"
    if spec.is_moe:
        convention += (
            "; active = router + top-k experts + everything outside the MLPs"
            if active
            else ("; every expert counted")
        )
    return t.done(value, P, convention)


def model_params(spec: ModelSpec) -> Result:
    """Total parameters of ``spec`` with the derivation part by part (what ``sum(p.numel())`` gives)."""
    return _model_trace(spec, active=False)


def model_active_params(spec: ModelSpec) -> Result:
    """Parameters one token uses: for a mixture of experts, the routed experts it skips are left out."""
    return _model_trace(spec, active=True)


def non_embedding_params(spec: ModelSpec) -> Result:
    """Parameters outside the embedding tables and the LM head (Kaplan et al. 2020's N).

    Total minus token, token-type and position tables, the embedding norm and an untied head.
    """
    parts = param_breakdown(spec)
    t = Trace()
    total = t.use(model_params(spec))
    embeddings = parts.embedding + parts.position + parts.embedding_norm + parts.lm_head
    value = t.step(
        "Non-embedding parameters",
        "total − embeddings − positions − embedding norm − untied head",
        f"{num(total)} − {num(embeddings)}",
        total - embeddings,
        P,
    )
    return t.done(value, P, "Kaplan et al. 2020: embedding and unembedding matrices left out")
