"""Layer groups: the layers grouped by shape (encoder, dense and MoE decoder layers), counted per layer."""

from __future__ import annotations

from typing import cast

from quizzer.core.attention import cross_attention, layer_attention, layer_norms
from quizzer.core.experts import moe_mlp_params, moe_parts
from quizzer.core.kept import kept
from quizzer.core.layers import ATTENTION_KINDS, layer_ranges
from quizzer.core.mixers import mixer_params
from quizzer.core.params import mlp_params
from quizzer.core.record import Record
from quizzer.core.spec import ModelSpec
from quizzer.core.trace import Result, Trace, num
from quizzer.core.units import Unit


class LayerGroup(Record):
    """Layers of one shape: a stack ('encoder', 'decoder'), an MLP kind ('dense', 'moe', 'none') and a token
    mixer ('attention', 'linear': the model's fixed-state mixer, 'mlp': none)."""

    stack: str
    mlp_kind: str
    layers: tuple[int, ...]
    attention: int
    """Self-attention plus, in a decoder with an encoder, cross-attention."""
    cross_attention: int
    mlp: int
    mlp_active: int
    norm: int
    router: int = 0
    expert: int = 0
    """One routed expert."""
    routed_experts: int = 0
    shared_experts: int = 0
    token: str = "attention"
    mixer: int = 0
    """The fixed-state mixer's parameters (0 in softmax-attention layers)."""

    @property
    def count(self) -> int:
        return len(self.layers)

    @property
    def total(self) -> int:
        """One layer's parameters."""
        return self.attention + self.mixer + self.mlp + self.norm

    @property
    def layer_range(self) -> str:
        """The layers as ranges ('0-2', '1,3,5')."""
        return layer_ranges(self.layers)


def group_mlp(spec: ModelSpec, moe: bool) -> tuple[Result, Result]:
    """One layer's MLP: (every expert, what one token uses); a dense MLP twice when ``moe`` is false."""
    if not moe:
        dense = mlp_params(spec.d_model, spec.d_ff, spec.mlp == "gated", spec.mlp_bias)
        if spec.mlp_activation_params:
            dense = _with_activation(dense, spec.mlp_activation_params)
        return dense, dense
    return moe_mlp_params(
        spec.d_model,
        spec.d_ff_expert,
        spec.n_experts,
        spec.experts_per_token,
        spec.mlp == "gated",
        spec.n_shared_experts,
        spec.router_bias,
        d_ff_shared=spec.d_ff_shared,
        expert_bias=spec.expert_bias,
        shared_gate=spec.shared_expert_gate,
    )


def _with_activation(mlp: Result, scalars: int) -> Result:
    """A dense MLP plus its activation's learned scalars (Apertus' xIELU: alpha_p and alpha_n)."""
    t = Trace()
    m = t.use(mlp)
    a = t.step("Activation's learned scalars (xIELU)", "per MLP", num(scalars), scalars, Unit.PARAMS)
    value = t.step("MLP block", "matrices + activation scalars", f"{num(m)} + {num(a)}", m + a, Unit.PARAMS)
    return t.done(value, Unit.PARAMS, "per layer")


def layer_token(spec: ModelSpec, kind: str) -> str:
    """The token mixer a layer of this kind has: 'attention', 'linear', 'parallel' (both) or 'mlp' (none)."""
    return token_of(kind)


def token_of(kind: str) -> str:
    """``layer_token`` of a layer kind (it does not depend on the model)."""
    return "attention" if kind in ATTENTION_KINDS else kind


@kept
def _layer_keys(
    kinds: tuple[str, ...], no_mlp: tuple[int, ...], flags: tuple[bool, ...]
) -> tuple[tuple[tuple[str, str], tuple[int, ...]], ...]:
    """The layers grouped by (token mixer, MLP kind), in order of first appearance: from each layer's kind,
    the layers without an MLP and the layers with experts (``flags``)."""
    without = set(no_mlp)
    keys: dict[tuple[str, str], list[int]] = {}
    for i, kind in enumerate(kinds):
        mlp_kind = "none" if i in without else "moe" if flags[i] else "dense"
        keys.setdefault((token_of(kind), mlp_kind), []).append(i)
    return tuple((key, tuple(members)) for key, members in keys.items())


def layer_groups(spec: ModelSpec) -> tuple[LayerGroup, ...]:
    """The layers of ``spec`` grouped by shape: encoder layers, then the decoder's dense and MoE layers.

    >>> spec = ModelSpec(vocab_size=8, d_model=64, n_layers=4, n_heads=4, d_ff=256, n_experts=4,
    ...                  experts_per_token=1, first_dense_layers=1)
    >>> [(g.mlp_kind, g.layer_range) for g in layer_groups(spec)]
    [('dense', '0'), ('moe', '1-3')]
    """
    # Parameter counts are exact ints by construction (Trace keeps an int step an int); Result.value is
    # typed Number for the calculators that return FLOPs or bytes, hence the casts (no run-time effect).
    attention = cast(int, layer_attention(spec).value)
    groups: list[LayerGroup] = []
    if spec.is_encoder_decoder:
        mlp = cast(int, group_mlp(spec, False)[0].value)
        norm = cast(int, layer_norms(spec).value)
        groups.append(
            LayerGroup("encoder", "dense", tuple(range(spec.n_encoder_layers)), attention, 0, mlp, mlp, norm)
        )
    stack = "decoder" if spec.lm_head or spec.is_encoder_decoder else "encoder"  # BERT's layers: an encoder
    cross = cast(int, cross_attention(spec).value) if spec.is_encoder_decoder else 0
    norm = cast(int, layer_norms(spec, cross=spec.is_encoder_decoder).value)
    keys = _layer_keys(spec.layer_kinds, tuple(spec.no_mlp_layers), spec.moe_flags)
    mixer = cast(int, mixer_params(spec).value) if spec.has_mixer else 0
    for (token, kind), members in keys:
        extra: dict[str, int] = {}
        if kind == "none":
            mlp_total = mlp_active = 0
        else:
            total, active = group_mlp(spec, kind == "moe")
            mlp_total, mlp_active = cast(int, total.value), cast(int, active.value)
        if kind == "moe":
            parts = moe_parts(
                spec.d_model,
                spec.d_ff_expert,
                spec.n_experts,
                spec.experts_per_token,
                spec.mlp == "gated",
                spec.n_shared_experts,
                spec.router_bias,
                d_ff_shared=spec.d_ff_shared,
                expert_bias=spec.expert_bias,
                shared_gate=spec.shared_expert_gate,
            )
            extra = dict(
                router=parts.router,
                expert=parts.expert,
                routed_experts=parts.routed,
                shared_experts=parts.shared,
            )
        has_attention = token in ("attention", "parallel")
        layer_norm = norm if token == "attention" else cast(int, layer_norms(spec, token=token).value)
        groups.append(
            LayerGroup(
                stack,
                kind,
                members,
                attention + cross if has_attention else 0,
                cross if has_attention else 0,
                mlp_total,
                mlp_active,
                layer_norm,
                **extra,
                token=token,
                mixer=mixer if token in ("linear", "parallel") else 0,
            )
        )
    encoder = groups[:1] if spec.is_encoder_decoder else []
    return (*encoder, *sorted(groups[len(encoder) :], key=lambda g: g.layers[0]))


def relative_tables(spec: ModelSpec) -> int:
    """T5's relative-position bias tables: buckets × n_heads in the first layer of each stack."""
    stacks = 2 if spec.is_encoder_decoder else 1
    return stacks * spec.relative_attention_buckets * spec.n_heads
