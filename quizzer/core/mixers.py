"""Fixed-state token mixers (gated DeltaNet, Kimi Delta Attention, Mamba-2, short convolution): parameters
per layer and the state a sequence keeps, which does not grow with the context.

Shapes follow transformers 5.23 (Qwen3NextGatedDeltaNet, KimiLinearDeltaAttention, NemotronHMamba2Mixer,
Lfm2ShortConv). The state convention is Hugging Face's: the convolution state keeps the last
``mixer_conv_kernel`` inputs of every convolved channel in the model's dtype, and the recurrent state (one
key_dim × value_dim matrix per head) is kept in fp32 even in a bf16 model. Runtimes differ (vLLM keeps
kernel − 1 columns); ``state_dtype`` sets the recurrent state's dtype.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quizzer.core.checks import one_of
from quizzer.core.record import Record
from quizzer.core.trace import Result, Trace, num
from quizzer.core.units import Unit, elements_bytes

if TYPE_CHECKING:
    from quizzer.core.spec import ModelSpec

P = Unit.PARAMS
B = Unit.BYTES

#: What each mixer is called in a derivation.
MIXER_NAMES = {
    "gated_deltanet": "gated DeltaNet",
    "kda": "Kimi Delta Attention",
    "mamba2": "Mamba-2",
    "short_conv": "short convolution",
}


class MixerWidths(Record):
    """The widths a mixer's projections and states are made of."""

    key: int
    """All key heads together (DeltaNet: key heads × key_dim; KDA: heads × head_dim; Mamba-2: groups ×
    state size, the width of B and of C)."""
    value: int
    """All value heads together (the inner width of Mamba-2, heads × head_dim)."""
    conv_channels: int
    """Channels the short convolution runs over."""
    state_per_layer: int
    """Elements of the recurrent state per sequence and layer (0 for a short convolution)."""


def mixer_widths(spec: ModelSpec) -> MixerWidths:
    """The widths of ``spec``'s mixer.

    >>> from quizzer.core.spec import ModelSpec
    >>> spec = ModelSpec(vocab_size=8, d_model=2048, n_layers=4, n_heads=16, n_kv_heads=2, head_dim=256,
    ...     d_ff=8, layer_types=("linear",) * 3 + ("full",), mixer="gated_deltanet", mixer_heads=32,
    ...     mixer_key_heads=16, mixer_key_dim=128, mixer_value_dim=128, mixer_conv_kernel=4)
    >>> mixer_widths(spec)  # Qwen3-Next: q and k 2,048 wide, v 4,096, 32 heads of 128 × 128 state
    MixerWidths(key=2048, value=4096, conv_channels=8192, state_per_layer=524288)
    """
    kind, h = spec.mixer, spec.mixer_heads
    if kind == "gated_deltanet":
        key, value = spec.mixer_key_heads * spec.mixer_key_dim, h * spec.mixer_value_dim
        return MixerWidths(key, value, 2 * key + value, h * spec.mixer_key_dim * spec.mixer_value_dim)
    if kind == "kda":
        width = h * spec.mixer_key_dim
        return MixerWidths(width, width, 3 * width, h * spec.mixer_key_dim**2)
    if kind == "mamba2":
        key, value = spec.mixer_key_heads * spec.mixer_key_dim, h * spec.mixer_value_dim
        return MixerWidths(key, value, value + 2 * key, h * spec.mixer_value_dim * spec.mixer_key_dim)
    if kind == "short_conv":
        return MixerWidths(0, spec.d_model, spec.d_model, 0)
    raise ValueError(f"no mixer in this spec (mixer {kind!r})")


def mixer_norm_width(spec: ModelSpec) -> int:
    """The width of the gated RMSNorm inside one mixer layer (counted with the norms): DeltaNet and KDA
    normalise each value head (one value-head-wide weight), Mamba-2 the whole inner width; a short convolution
    has none, nor a mixer built without it (``mixer_norm`` false)."""
    if not spec.mixer_norm:
        return 0
    if spec.mixer == "gated_deltanet":
        return spec.mixer_value_dim
    if spec.mixer == "kda":
        return spec.mixer_key_dim
    if spec.mixer == "mamba2":
        return mixer_widths(spec).value
    return 0


def mixer_params(spec: ModelSpec) -> Result:
    """One mixer layer's parameters (its inner norm is counted with the norms), with the derivation.

    >>> from quizzer.core.spec import ModelSpec
    >>> lfm2 = ModelSpec(vocab_size=8, d_model=2048, n_layers=2, n_heads=32, n_kv_heads=8, d_ff=8,
    ...     layer_types=("linear", "full"), mixer="short_conv", mixer_conv_kernel=3)
    >>> mixer_params(lfm2).value  # LFM2-1.2B: in 3 × 2048², conv 2048 × 3, out 2048²
    16783360
    """
    t = Trace()
    d, w, h, k = spec.d_model, mixer_widths(spec), spec.mixer_heads, spec.mixer_conv_kernel
    parts: list[int | float] = []
    bias = spec.mixer_bias
    if spec.mixer == "gated_deltanet":
        shown = f"{num(d)} × (2 × {num(w.key)} + 2 × {num(w.value)})"
        parts.append(
            t.step(
                "q, k, v and gate z projection",
                "d_model × (2·key + 2·value)",
                shown,
                d * (2 * w.key + 2 * w.value),
                P,
            )
        )
        parts.append(
            t.step("β and decay (a) projections", "d_model × 2 × heads", f"{num(d)} × 2 × {h}", d * 2 * h, P)
        )
    elif spec.mixer == "kda":
        kd = spec.mixer_key_dim
        parts.append(
            t.step(
                "q, k, v projections",
                "3 × d_model × heads·head_dim",
                f"3 × {num(d)} × {num(w.key)}",
                3 * d * w.key,
                P,
            )
        )
        shown = f"{num(d)} × {kd} + {kd} × {num(w.key)}"
        parts.append(
            t.step(
                "Forget gate (low rank: down, then up)",
                "d_model × head_dim + head_dim × width",
                shown,
                d * kd + kd * w.key,
                P,
            )
        )
        parts.append(
            t.step(
                "Output gate (low rank)",
                "d_model × head_dim + head_dim × width",
                shown,
                d * kd + kd * w.key,
                P,
            )
        )
        parts.append(t.step("β projection", "d_model × heads", f"{num(d)} × {h}", d * h, P))
    elif spec.mixer == "mamba2":
        width = 2 * w.value + 2 * w.key + h
        shown = f"{num(d)} × (2 × {num(w.value)} + 2 × {num(w.key)} + {h})"
        parts.append(
            t.step(
                "Input projection (x, z, B, C, dt)",
                "d_model × (2·inner + 2·groups·state + heads)",
                shown,
                d * width + (width if bias else 0),
                P,
            )
        )
    else:  # short_conv
        parts.append(
            t.step(
                "Input projection (B, C, x)",
                "d_model × 3·d_model",
                f"{num(d)} × 3 × {num(d)}",
                3 * d * d + (3 * d if bias else 0),
                P,
            )
        )
    conv = w.conv_channels * k + (w.conv_channels if spec.mixer_conv_bias else 0)
    shown = f"{num(w.conv_channels)} × {k}" + (f" + {num(w.conv_channels)}" if spec.mixer_conv_bias else "")
    parts.append(t.step("Short convolution (depthwise)", "channels × kernel", shown, conv, P))
    if spec.mixer == "gated_deltanet":
        parts.append(t.step("dt bias and A (one each per head)", "2 × heads", f"2 × {h}", 2 * h, P))
    elif spec.mixer == "kda":
        shown = f"{num(w.key)} + {h}"
        parts.append(t.step("dt bias (per channel) and A (per head)", "width + heads", shown, w.key + h, P))
    elif spec.mixer == "mamba2":
        parts.append(t.step("dt bias, A and D (one each per head)", "3 × heads", f"3 × {h}", 3 * h, P))
    out = w.value * d + (d if bias and spec.mixer in ("mamba2", "short_conv") else 0)
    parts.append(t.step("Output projection", "value width × d_model", f"{num(w.value)} × {num(d)}", out, P))
    name = MIXER_NAMES[spec.mixer]
    value = t.step(f"{name} mixer", "sum of the parts", " + ".join(num(x) for x in parts), sum(parts), P)
    return t.done(value, P, "per mixer layer; its gated norm is counted with the norms")


def mixer_matmul_params(spec: ModelSpec) -> int:
    """Weight-matrix parameters of one mixer layer that a token multiplies through (projections only: no
    convolution, no per-head vectors).

    >>> from quizzer.core.spec import ModelSpec
    >>> lfm2 = ModelSpec(vocab_size=8, d_model=2048, n_layers=2, n_heads=32, n_kv_heads=8, d_ff=8,
    ...     layer_types=("linear", "full"), mixer="short_conv", mixer_conv_kernel=3)
    >>> mixer_matmul_params(lfm2)
    16777216
    """
    d, w, h = spec.d_model, mixer_widths(spec), spec.mixer_heads
    if spec.mixer == "gated_deltanet":
        return d * (2 * w.key + 2 * w.value) + d * 2 * h + w.value * d
    if spec.mixer == "kda":
        kd = spec.mixer_key_dim
        return 3 * d * w.key + 2 * (d * kd + kd * w.key) + d * h + w.key * d
    if spec.mixer == "mamba2":
        return d * (2 * w.value + 2 * w.key + h) + w.value * d
    return 4 * d * d


STATE_DTYPES = ("fp32", "model")


class MixerState(Record):
    """The fixed state of one sequence: per mixer layer and over every mixer layer, in bytes."""

    layers: int
    conv_elements_per_layer: int
    recurrent_elements_per_layer: int
    conv_bytes: int
    """Over every mixer layer."""
    recurrent_bytes: int
    """Over every mixer layer."""

    @property
    def total_bytes(self) -> int:
        return self.conv_bytes + self.recurrent_bytes


def mixer_state(spec: ModelSpec, dtype: str = "bf16", state_dtype: str = "fp32") -> MixerState:
    """The state one sequence keeps in ``spec``'s mixer layers: the convolution's last inputs (``dtype``) and
    the recurrent matrices (fp32, as Hugging Face keeps them, or ``state_dtype="model"``: ``dtype``).

    >>> from quizzer.core.spec import ModelSpec
    >>> spec = ModelSpec(vocab_size=8, d_model=2048, n_layers=48, n_heads=16, n_kv_heads=2, head_dim=256,
    ...     d_ff=8, layer_types=("linear",) * 3 + ("full",), mixer="gated_deltanet", mixer_heads=32,
    ...     mixer_key_heads=16, mixer_key_dim=128, mixer_value_dim=128, mixer_conv_kernel=4)
    >>> state = mixer_state(spec)  # Qwen3-Next-80B-A3B, 36 DeltaNet layers
    >>> state.conv_bytes, state.recurrent_bytes
    (2359296, 75497472)
    """
    one_of("state_dtype", state_dtype, STATE_DTYPES)
    if not spec.has_mixer:
        return MixerState(0, 0, 0, 0, 0)
    w, n = mixer_widths(spec), len(spec.mixer_layers)
    conv = w.conv_channels * spec.mixer_conv_kernel
    recurrent_dtype = dtype if state_dtype == "model" else "fp32"
    return MixerState(
        n,
        conv,
        w.state_per_layer,
        elements_bytes(n * conv, dtype),
        elements_bytes(n * w.state_per_layer, recurrent_dtype),
    )


def mixer_state_bytes(spec: ModelSpec, dtype: str = "bf16", state_dtype: str = "fp32") -> Result:
    """The fixed state of one sequence over every mixer layer, with the derivation (see ``mixer_state``)."""
    s = mixer_state(spec, dtype, state_dtype)
    t = Trace()
    w = mixer_widths(spec)
    conv = t.step(
        "Convolution state (last inputs of every channel)",
        "mixer layers × channels × kernel × bytes",
        f"{s.layers} × {num(w.conv_channels)} × {spec.mixer_conv_kernel} × {dtype}",
        s.conv_bytes,
        B,
    )
    terms = [conv]
    if s.recurrent_elements_per_layer:
        rec_dtype = dtype if state_dtype == "model" else "fp32"
        if spec.mixer == "mamba2":
            shape = f"{spec.mixer_heads} × {spec.mixer_value_dim} × {spec.mixer_key_dim}"
            formula = "mixer layers × heads × head_dim × state size × bytes"
        else:
            v = spec.mixer_key_dim if spec.mixer == "kda" else spec.mixer_value_dim
            shape = f"{spec.mixer_heads} × {spec.mixer_key_dim} × {v}"
            formula = "mixer layers × heads × key width × value width × bytes"
        terms.append(
            t.step(
                "Recurrent state (one matrix per head)",
                formula,
                f"{s.layers} × {shape} × {rec_dtype}",
                s.recurrent_bytes,
                B,
            )
        )
    value = t.step(
        "Fixed state per sequence", "conv + recurrent", " + ".join(num(x) for x in terms), s.total_bytes, B
    )
    convention = f"Hugging Face's cache: the conv state in {dtype}, the recurrent state in " + (
        dtype if state_dtype == "model" else "fp32"
    )
    return t.done(value, B, convention + "; it does not grow with the context")
