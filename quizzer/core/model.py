"""Whole-model parameter counts from a ModelSpec: parts and layer groups, total, active, non-embedding."""

from __future__ import annotations

from typing import cast

from quizzer.core.attention import cross_attention, layer_attention, layer_norms
from quizzer.core.groups import LayerGroup, group_mlp, layer_groups, relative_tables
from quizzer.core.mixers import mixer_params
from quizzer.core.params import embedding_params, lm_head_params, norm_params, position_params
from quizzer.core.record import Record
from quizzer.core.spec import ModelSpec
from quizzer.core.trace import Result, Trace, num
from quizzer.core.units import Unit

P = Unit.PARAMS


class ParamBreakdown(Record):
    """Exact parameter counts by part; ``total`` is their sum and ``active`` what one token uses.

    The ``*_per_layer`` fields are those of the first decoder layer; ``groups`` holds every kind of layer
    (dense first layers, MoE layers, encoder layers), and the parts sum over them.
    """

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
    groups: tuple[LayerGroup, ...] = ()
    mixer_per_layer: int = 0
    mtp: int = 0
    """Multi-token-prediction modules, when counted (``ModelSpec.mtp_layers``)."""
    mtp_active: int = 0

    def _sum(self, name: str) -> int:
        if not self.groups:  # a breakdown built by hand: every layer like the first
            per_layer: int = getattr(self, f"{name}_per_layer")
            return per_layer * self.n_layers
        return sum(getattr(g, name) * g.count for g in self.groups)

    @property
    def embedding(self) -> int:
        """Token plus token-type tables."""
        return self.token_embedding + self.token_type

    @property
    def attention(self) -> int:
        return self._sum("attention")

    @property
    def mlp(self) -> int:
        return self._sum("mlp")

    @property
    def mixer(self) -> int:
        """Every fixed-state mixer layer's parameters (gated DeltaNet, KDA, Mamba-2, short convolution)."""
        return sum(g.mixer * g.count for g in self.groups)

    @property
    def norm(self) -> int:
        """Every norm: inside the layers, the final one(s) and the one after the embeddings."""
        return self._sum("norm") + self.final_norm + self.embedding_norm

    @property
    def per_layer(self) -> int:
        return self.attention_per_layer + self.mixer_per_layer + self.mlp_per_layer + self.norm_per_layer

    @property
    def uniform(self) -> bool:
        """Every layer has the same parts (one group)."""
        return len(self.groups) <= 1

    @property
    def total(self) -> int:
        return (
            self.embedding
            + self.position
            + self.attention
            + self.mixer
            + self.mlp
            + self.norm
            + self.lm_head
            + self.other
            + self.mtp
        )

    @property
    def active(self) -> int:
        """Total minus the routed experts a token skips (equal to ``total`` for dense models)."""
        skipped = self.mtp - self.mtp_active
        if not self.groups:
            return self.total - (self.mlp_per_layer - self.mlp_active_per_layer) * self.n_layers - skipped
        return self.total - sum((g.mlp - g.mlp_active) * g.count for g in self.groups) - skipped

    def parts(self) -> dict[str, int]:
        """The parts that add up to ``total``, as in ``quizzer count --json``."""
        return {
            "embedding": self.embedding,
            "position": self.position,
            "attention": self.attention,
            "mixer": self.mixer,
            "mlp": self.mlp,
            "norm": self.norm,
            "lm_head": self.lm_head,
            "other": self.other,
            "mtp": self.mtp,
        }


def param_breakdown(spec: ModelSpec) -> ParamBreakdown:
    """Exact counts by part for ``spec``.

    >>> gpt2 = ModelSpec(vocab_size=50257, d_model=768, n_layers=12, n_heads=12, d_ff=3072, mlp="gelu",
    ...                  norm="layernorm", qkv_bias=True, out_bias=True, mlp_bias=True, tie_embeddings=True,
    ...                  positions="learned", n_positions=1024)
    >>> param_breakdown(gpt2).total
    124439808
    """
    groups = layer_groups(spec)
    first = next(g for g in groups[1 if spec.is_encoder_decoder else 0 :] if 0 in g.layers)
    norm = cast(int, norm_params(spec.d_model, spec.norm).value)  # an exact count; Result.value is a Number
    d = spec.d_model
    head = 0 if spec.tie_embeddings or not spec.lm_head else spec.vocab_size * d
    mtp = mtp_active = 0
    if spec.mtp_layers:
        total, active = (cast(int, r.value) for r in mtp_params(spec))
        mtp, mtp_active = spec.mtp_layers * total, spec.mtp_layers * active
    return ParamBreakdown(
        token_embedding=spec.vocab_size * d,
        token_type=spec.type_vocab_size * d,
        position=spec.n_positions * d + relative_tables(spec),
        embedding_norm=norm if spec.embedding_norm else 0,
        attention_per_layer=first.attention,
        mlp_per_layer=first.mlp,
        mlp_active_per_layer=first.mlp_active,
        norm_per_layer=first.norm,
        n_layers=spec.n_layers,
        final_norm=norm * (2 if spec.is_encoder_decoder else 1) if spec.final_norm else 0,
        lm_head=head + (spec.vocab_size if spec.lm_head_bias else 0),
        other=d * d + d if spec.pooler else 0,
        groups=groups,
        mixer_per_layer=first.mixer,
        mtp=mtp,
        mtp_active=mtp_active,
    )


def mtp_module_params(spec: ModelSpec) -> Result:
    """One multi-token-prediction module shaped like ``spec`` (see ``mtp_params``): every expert counted."""
    return mtp_params(spec)[0]


def mtp_params(spec: ModelSpec) -> tuple[Result, Result]:
    """One multi-token-prediction module (DeepSeek-V3 §2.2; Qwen3-Next's mtp): norms of the embedding and of
    the hidden state, a 2·d_model → d_model projection of the two, one softmax-attention layer shaped like
    the model's last layer, and a final norm; the embedding and the head are the main model's (checkpoints
    may store copies of them, which this does not count). (every expert, what one token uses)."""
    results = []
    d = spec.d_model
    one = cast(int, norm_params(d, spec.norm).value)
    for active in (False, True):
        t = Trace()
        a = t.use(layer_attention(spec))
        total, used = group_mlp(spec, spec.moe_flags[-1])
        m = t.use(used if active else total)
        n = t.use(layer_norms(spec))
        proj = t.step(
            "Projection of [embedding; hidden]",
            "2 × d_model × d_model",
            f"2 × {num(d)} × {num(d)}",
            2 * d * d,
            P,
        )
        norms = t.step("Embedding, hidden and final norms", "3 × one norm", f"3 × {num(one)}", 3 * one, P)
        value = t.step(
            "MTP module",
            "layer + projection + norms",
            f"{num(a)} + {num(m)} + {num(n)} + {num(proj)} + {num(norms)}",
            a + m + n + proj + norms,
            P,
        )
        results.append(t.done(value, P, "one module; embedding and head shared with the model"))
    return results[0], results[1]


def _group_steps(t: Trace, spec: ModelSpec, group: LayerGroup, active: bool) -> int | float:
    """The steps of one layer group: attention or mixer, MLP (all or active experts), norms; then × its
    layers."""
    names, terms = [], []
    if group.token in ("attention", "parallel"):
        a = t.use(layer_attention(spec))
        if group.cross_attention:
            a += t.use(cross_attention(spec))
        names.append("attention")
        terms.append(a)
    if group.token in ("linear", "parallel"):
        names.append("mixer")
        terms.append(t.use(mixer_params(spec)))
    if group.mlp_kind != "none":
        total, active_mlp = group_mlp(spec, group.mlp_kind == "moe")
        names.append("MLP")
        terms.append(t.use(active_mlp if active else total))
    names.append("norms")
    terms.append(t.use(layer_norms(spec, cross=bool(group.cross_attention), token=group.token)))
    where = f"{group.stack} layers {group.layer_range}"
    shown = " + ".join(num(x) for x in terms)
    one = t.step(f"One layer ({where})", " + ".join(names), shown, sum(terms), P)
    shown = f"{group.count} × {num(one)}"
    return t.step(f"All {where}", "layers × one layer", shown, group.count * one, P)


def _group_name(group: LayerGroup) -> str:
    """How a group is named in the sum: 'decoder moe layers', or by its mixer in a hybrid."""
    if group.token == "attention":
        return f"{group.stack} {group.mlp_kind} layers"
    what = {"linear": "mixer", "parallel": "attention ∥ mixer", "mlp": "MLP-only"}[group.token]
    mlp = "" if group.mlp_kind == "none" or group.token == "mlp" else f" + {group.mlp_kind}"
    return f"{what}{mlp} layers"


def _model_trace(spec: ModelSpec, active: bool) -> Result:
    t = Trace()
    groups = layer_groups(spec)
    terms, names = [], []
    if len(groups) == 1 and groups[0].token == "attention" and groups[0].mlp_kind != "none":
        # the classic derivation, as it always read
        attn, (mlp, mlp_active), norms = (
            layer_attention(spec),
            group_mlp(spec, spec.is_moe),
            layer_norms(spec),
        )
        a, m, n = t.use(attn), t.use(mlp_active if active else mlp), t.use(norms)
        per_layer = t.step(
            "One layer", "attention + MLP + norms", f"{num(a)} + {num(m)} + {num(n)}", a + m + n, P
        )
        shown = f"{num(spec.n_layers)} × {num(per_layer)}"
        terms.append(t.step("All layers", "n_layers × one layer", shown, spec.n_layers * per_layer, P))
        names.append("layers")
    else:
        for group in groups:
            terms.append(_group_steps(t, spec, group, active))
            names.append(_group_name(group))
    terms.append(t.use(embedding_params(spec.vocab_size, spec.d_model)))
    names.append("token embedding")
    d = spec.d_model
    if spec.type_vocab_size:
        shown = f"{num(spec.type_vocab_size)} × {num(d)}"
        terms.append(t.step("Token-type table", "token types × d_model", shown, spec.type_vocab_size * d, P))
        names.append("token types")
    if spec.positions == "learned":
        terms.append(t.use(position_params(spec.n_positions, d)))
        names.append("positions")
    if spec.positions == "relative":
        stacks = 2 if spec.is_encoder_decoder else 1
        shown = f"{stacks} × {spec.relative_attention_buckets} × {spec.n_heads}"
        terms.append(
            t.step(
                "Relative-position bias tables (one per stack)",
                "stacks × buckets × n_heads",
                shown,
                relative_tables(spec),
                P,
            )
        )
        names.append("relative positions")
    n = norm_params(d, spec.norm).value
    if spec.embedding_norm:
        terms.append(t.step("Embedding norm", "one norm", num(n), n, P))
        names.append("embedding norm")
    if spec.final_norm:
        stacks = 2 if spec.is_encoder_decoder else 1
        terms.append(
            t.step(
                "Final norm" + (" of each stack" if stacks > 1 else ""),
                "one norm per stack",
                f"{stacks} × {num(n)}" if stacks > 1 else num(n),
                stacks * n,
                P,
            )
        )
        names.append("final norm")
    if spec.lm_head:
        terms.append(t.use(lm_head_params(spec.vocab_size, d, spec.tie_embeddings)))
        names.append("LM head")
        if spec.lm_head_bias:
            terms.append(t.step("LM head bias", "vocab_size", num(spec.vocab_size), spec.vocab_size, P))
            names.append("head bias")
    if spec.pooler:
        terms.append(
            t.step("Pooler (dense + bias)", "d_model² + d_model", f"{num(d)}² + {num(d)}", d * d + d, P)
        )
        names.append("pooler")
    if spec.mtp_layers:
        one = t.use(mtp_params(spec)[1 if active else 0])
        shown = f"{spec.mtp_layers} × {num(one)}"
        terms.append(
            t.step("Multi-token-prediction modules", "modules × one module", shown, spec.mtp_layers * one, P)
        )
        names.append("MTP")
    label = "Active parameters per token" if active else "Total parameters"
    value = t.step(label, " + ".join(names), " + ".join(num(x) for x in terms), sum(terms), P)
    convention = "tied weights counted once; every bias and norm weight counted"
    if spec.is_moe:
        convention += (
            "; active = router + top-k experts + shared experts + everything outside the MLPs"
            if active
            else "; every expert counted"
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
