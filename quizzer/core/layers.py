"""Which layer is which: attention kinds given as a list or a repeated pattern, MoE layers, layer ranges."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from quizzer.core.errors import SpecError
from quizzer.core.kept import kept

#: Attention kinds of a layer. 'sliding' attends to the last ``sliding_window`` tokens, 'chunked' within
#: aligned chunks of ``attention_chunk_size`` tokens (Llama 4), 'full' to the whole context.
ATTENTION_KINDS = ("full", "sliding", "chunked")

#: Every kind a layer's token mixer can be: softmax attention of one of ``ATTENTION_KINDS``, 'linear' (the
#: model's fixed-state mixer: gated DeltaNet, KDA, Mamba-2, short convolution), 'parallel' (full attention
#: and the mixer side by side on the same input: Falcon-H1) or 'mlp' (no token mixer: Nemotron-H's MLP-only
#: layers).
LAYER_KINDS = (*ATTENTION_KINDS, "linear", "parallel", "mlp")
#: The kinds whose layers cache K and V (a 'parallel' layer as full attention).
SOFTMAX_KINDS = (*ATTENTION_KINDS, "parallel")
#: The kinds whose layers keep the mixer's fixed state.
MIXER_KINDS_OF_LAYERS = ("linear", "parallel")

#: Hugging Face's ``layer_types`` names -> quizzer's layer kinds.
HF_LAYER_TYPES = {
    "full_attention": "full",
    "sliding_attention": "sliding",
    "chunked_attention": "chunked",
    "linear_attention": "linear",
    "conv": "linear",
    "mamba": "linear",
    "attention": "full",
    "hybrid": "parallel",
    "mlp": "mlp",
}


def expand_pattern(name: str, pattern: Sequence[str], n_layers: int) -> tuple[str, ...]:
    """One attention kind per layer from a list of ``n_layers`` kinds or a shorter pattern repeated.

    Gemma 3's five sliding layers to one global layer is the pattern ``5 × 'sliding' + 'full'``; over 34
    layers it gives full attention on layers 5, 11, 17, 23 and 29 (transformers' ``sliding_window_pattern =
    6``).

    >>> kinds = expand_pattern("layer_types", ("sliding",) * 5 + ("full",), 34)
    >>> [i for i, kind in enumerate(kinds) if kind == "full"]
    [5, 11, 17, 23, 29]
    >>> expand_pattern("layer_types", ("full", "sliding", "full"), 2)
    Traceback (most recent call last):
    ...
    quizzer.core.errors.SpecError: layer_types has 3 entries: more than n_layers (2)
    """
    if len(pattern) > n_layers:
        raise SpecError(f"{name} has {len(pattern)} entries: more than n_layers ({n_layers})")
    for kind in pattern:
        if kind not in LAYER_KINDS:
            raise SpecError(f"{name} entry {kind!r} must be one of {', '.join(LAYER_KINDS)}")
    return tuple(pattern[i % len(pattern)] for i in range(n_layers))


def layer_indices(name: str, layers: Iterable[int], n_layers: int) -> tuple[int, ...]:
    """Layer numbers, checked to be distinct and in 0..n_layers − 1, in increasing order.

    >>> layer_indices("nope_layers", [7, 3], 8)
    (3, 7)
    >>> layer_indices("moe_layers", [8], 8)
    Traceback (most recent call last):
    ...
    quizzer.core.errors.SpecError: moe_layers entry 8 must be a layer number from 0 to 7
    """
    seen: set[int] = set()
    for layer in layers:
        if isinstance(layer, bool) or not isinstance(layer, int) or not 0 <= layer < n_layers:
            raise SpecError(f"{name} entry {layer!r} must be a layer number from 0 to {n_layers - 1}")
        if layer in seen:
            raise SpecError(f"{name} lists layer {layer} twice")
        seen.add(layer)
    return tuple(sorted(seen))


def layer_ranges(layers: Iterable[int]) -> str:
    """Layer numbers written as ranges, as the reference files write them.

    >>> layer_ranges([0, 1, 2, 4, 5, 7]), layer_ranges([]), layer_ranges([3])
    ('0-2,4-5,7', '', '3')
    """
    ordered = sorted(layers)
    runs: list[tuple[int, int]] = []
    for layer in ordered:
        if runs and layer == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], layer)
        else:
            runs.append((layer, layer))
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


@kept
def moe_layer_flags(
    n_layers: int, moe_layers: Sequence[int], first_dense_layers: int, moe_layer_step: int
) -> tuple[bool, ...]:
    """Which layers hold experts: the listed ones, else those past the dense first layers on every k-th layer.

    Layer i has experts when ``i >= first_dense_layers`` and ``(i + 1) % moe_layer_step == 0``: DeepSeek's
    ``first_k_dense_replace`` and Llama 4's ``interleave_moe_layer_step`` (transformers' rule for both).

    >>> moe_layer_flags(6, (), 0, 2)
    (False, True, False, True, False, True)
    >>> moe_layer_flags(5, (), 3, 1)
    (False, False, False, True, True)
    """
    if moe_layers:
        chosen = set(moe_layers)
        return tuple(i in chosen for i in range(n_layers))
    return tuple(i >= first_dense_layers and (i + 1) % moe_layer_step == 0 for i in range(n_layers))
