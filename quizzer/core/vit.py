"""Vision Transformer (ViT) patch counts, parameters and forward MACs/FLOPs."""

from __future__ import annotations

from quizzer.core.checks import count
from quizzer.core.errors import SpecError
from quizzer.core.flops import FLOP_CONVENTION
from quizzer.core.trace import Result, Trace, num, tags
from quizzer.core.units import Unit

#: What the parameter count includes.
PARAMS_CONVENTION = (
    "torchvision VisionTransformer: conv patch embedding with bias, class token, learned positions, "
    "attention and MLP with biases, pre-norm LayerNorms (weight + bias), final LayerNorm, linear head"
)

#: What the MAC count includes.
MACS_CONVENTION = (
    "matmul MACs only: patch embedding, every linear layer over all tokens, QKᵀ and AV (2·T²·d per layer), "
    "head on the class token; norms, softmax, GELU and biases ignored. torchvision's and fvcore's "
    "'GFLOPS' for vision models are these MACs"
)


def vit_patch_count(image_size: int, patch_size: int) -> Result:
    """Patches of a square image: (image_size // patch_size)².

    Source: Dosovitskiy et al. 2020, arXiv 2010.11929; torchvision vision_transformer.py
    (``seq_length = (image_size // patch_size) ** 2``).

    Args:
        image_size: image side in pixels (square input); must be divisible by patch_size.
        patch_size: patch side in pixels.

    Returns:
        Patches (int).

    >>> vit_patch_count(224, 16).value, vit_patch_count(336, 14).value
    (196, 576)
    """
    image_size, patch_size = count("image_size", image_size), count("patch_size", patch_size)
    if image_size % patch_size:
        raise SpecError(f"image_size ({image_size}) must be divisible by patch_size ({patch_size})")
    t = Trace()
    side = t.step(
        "Patches per side",
        "image size / patch size",
        f"{num(image_size)} / {num(patch_size)}",
        image_size // patch_size,
        Unit.COUNT,
    )
    patches = t.step("Patches", "(patches per side)²", f"{num(side)}²", side * side, Unit.PATCHES)
    return t.done(patches, Unit.PATCHES, "square image and patches, no overlap")


def vit_tokens(image_size: int, patch_size: int, cls_token: bool = True) -> Result:
    """Sequence length of a ViT: patches, plus one class token when the model has one.

    Source: torchvision vision_transformer.py (``seq_length += 1`` for the class token).

    Args:
        image_size: image side in pixels.
        patch_size: patch side in pixels.
        cls_token: whether a class token is prepended (ViT does; some models pool instead).

    Returns:
        Tokens (int).

    >>> vit_tokens(224, 16).value, vit_tokens(336, 14).value, vit_tokens(224, 16, False).value
    (197, 577, 196)
    """
    if not isinstance(cls_token, bool):
        raise SpecError(f"cls_token ({cls_token!r}) must be true or false")
    t = Trace()
    patches = t.use(vit_patch_count(image_size, patch_size))
    extra = 1 if cls_token else 0
    formula = "patches + 1 (class token)" if cls_token else "patches (no class token)"
    subst = f"{num(patches)} + 1" if cls_token else num(patches)
    tokens = t.step("Tokens", formula, subst, patches + extra, Unit.TOKENS)
    return t.done(tokens, Unit.TOKENS, "one class token" if cls_token else "no class token")


def _shape(d_model: int, n_layers: int, d_ff: int, n_classes: int, channels: int) -> tuple[int, ...]:
    names = ("d_model", "n_layers", "d_ff", "n_classes", "channels")
    values = (d_model, n_layers, d_ff, n_classes, channels)
    return tuple(count(name, value) for name, value in zip(names, values, strict=True))


def vit_params(
    image_size: int,
    patch_size: int,
    d_model: int,
    n_layers: int,
    d_ff: int,
    n_classes: int,
    channels: int = 3,
) -> Result:
    """Parameters of a ViT classifier, as torchvision builds it.

    Patch embedding C·p²·d + d (a conv with bias), class token d, positions (patches + 1)·d, per layer
    attention 4d² + 4d, MLP 2·d·d_ff + d_ff + d and two LayerNorms 4d, final LayerNorm 2d, head d·classes +
    classes. Source: torchvision vision_transformer.py; ViT-B/16 has 86,567,656 parameters (torchvision docs).

    Args:
        image_size: image side in pixels.
        patch_size: patch side in pixels.
        d_model: hidden width d.
        n_layers: encoder layers L.
        d_ff: MLP width.
        n_classes: classifier outputs.
        channels: input channels C.

    Returns:
        Parameters (int).

    >>> vit_params(224, 16, 768, 12, 3072, 1000).value
    86567656
    """
    d, n_layers, d_ff, n_classes, channels = _shape(d_model, n_layers, d_ff, n_classes, channels)
    t = Trace()
    tokens = t.use(vit_tokens(image_size, patch_size))
    p = count("patch_size", patch_size)
    embed = t.step(
        "Patch embedding (conv with bias)",
        "C × p² × d + d",
        f"{num(channels)} × {num(p)}² × {num(d)} + {num(d)}",
        channels * p * p * d + d,
        Unit.PARAMS,
    )
    cls = t.step("Class token", "d", num(d), d, Unit.PARAMS)
    positions = t.step(
        "Position embeddings", "tokens × d", f"{num(tokens)} × {num(d)}", tokens * d, Unit.PARAMS
    )
    attention = t.step(
        "Attention per layer (q, k, v, o with biases)",
        "4 × d² + 4 × d",
        f"4 × {num(d)}² + 4 × {num(d)}",
        4 * d * d + 4 * d,
        Unit.PARAMS,
    )
    mlp = t.step(
        "MLP per layer (with biases)",
        "2 × d × d_ff + d_ff + d",
        f"2 × {num(d)} × {num(d_ff)} + {num(d_ff)} + {num(d)}",
        2 * d * d_ff + d_ff + d,
        Unit.PARAMS,
    )
    norms = t.step("LayerNorms per layer (2, weight + bias)", "4 × d", f"4 × {num(d)}", 4 * d, Unit.PARAMS)
    layers = t.step(
        "Encoder layers",
        "L × (attention + MLP + norms)",
        f"{num(n_layers)} × ({num(attention)} + {num(mlp)} + {num(norms)})",
        n_layers * (attention + mlp + norms),
        Unit.PARAMS,
    )
    final = t.step("Final LayerNorm", "2 × d", f"2 × {num(d)}", 2 * d, Unit.PARAMS)
    head = t.step(
        "Classification head",
        "d × classes + classes",
        f"{num(d)} × {num(n_classes)} + {num(n_classes)}",
        d * n_classes + n_classes,
        Unit.PARAMS,
    )
    parts = (embed, cls, positions, layers, final, head)
    total = t.step(
        "Total parameters",
        "embedding + class + positions + layers + final norm + head",
        " + ".join(map(num, parts)),
        sum(parts),
        Unit.PARAMS,
    )
    return t.done(total, Unit.PARAMS, PARAMS_CONVENTION)


def vit_forward_macs(
    image_size: int,
    patch_size: int,
    d_model: int,
    n_layers: int,
    d_ff: int,
    n_classes: int,
    channels: int = 3,
) -> Result:
    """Forward multiply-accumulates of one image through a ViT classifier.

    Patch embedding patches·(C·p²)·d, per layer T·(4d² + 2·d·d_ff) for the linear layers and 2·T²·d for QKᵀ
    and AV, head d·classes on the class token. With d_ff = 4d this is FL-08's T·L·12d² + L·2T²d +
    patches·d·C·p² + d·classes: 17.56 G for ViT-B/16, torchvision's "17.6 GFLOPS" (which are MACs).

    Args:
        image_size: image side in pixels.
        patch_size: patch side in pixels.
        d_model: hidden width d.
        n_layers: encoder layers L.
        d_ff: MLP width.
        n_classes: classifier outputs.
        channels: input channels C.

    Returns:
        MACs (int).

    >>> vit_forward_macs(224, 16, 768, 12, 3072, 1000).value
    17563828224
    """
    d, n_layers, d_ff, n_classes, channels = _shape(d_model, n_layers, d_ff, n_classes, channels)
    t = Trace()
    tokens = t.use(vit_tokens(image_size, patch_size))
    patches, p = tokens - 1, count("patch_size", patch_size)
    embed = t.step(
        "Patch embedding",
        "patches × (C × p²) × d",
        f"{num(patches)} × ({num(channels)} × {num(p)}²) × {num(d)}",
        patches * channels * p * p * d,
        Unit.MACS,
    )
    linear = t.step(
        "Linear layers per layer (q, k, v, o, MLP)",
        "T × (4 × d² + 2 × d × d_ff)",
        f"{num(tokens)} × (4 × {num(d)}² + 2 × {num(d)} × {num(d_ff)})",
        tokens * (4 * d * d + 2 * d * d_ff),
        Unit.MACS,
    )
    attention = t.step(
        "QKᵀ and AV per layer",
        "2 × T² × d",
        f"2 × {num(tokens)}² × {num(d)}",
        2 * tokens * tokens * d,
        Unit.MACS,
    )
    layers = t.step(
        "Encoder layers",
        "L × (linear + attention)",
        f"{num(n_layers)} × ({num(linear)} + {num(attention)})",
        n_layers * (linear + attention),
        Unit.MACS,
    )
    head = t.step(
        "Head (class token only)", "d × classes", f"{num(d)} × {num(n_classes)}", d * n_classes, Unit.MACS
    )
    total = t.step(
        "Forward MACs",
        "embedding + layers + head",
        f"{num(embed)} + {num(layers)} + {num(head)}",
        embed + layers + head,
        Unit.MACS,
    )
    return t.done(total, Unit.MACS, MACS_CONVENTION)


def vit_forward_flops(
    image_size: int,
    patch_size: int,
    d_model: int,
    n_layers: int,
    d_ff: int,
    n_classes: int,
    channels: int = 3,
) -> Result:
    """Forward FLOPs of one image through a ViT classifier: 2 × MACs.

    ViT-B/16 at 224: 2 × 17.56 G = 35.1 GFLOPs, twice the "17.6 GFLOPS" torchvision lists (sizing-notes §2.1).

    Args:
        image_size: image side in pixels.
        patch_size: patch side in pixels.
        d_model: hidden width d.
        n_layers: encoder layers L.
        d_ff: MLP width.
        n_classes: classifier outputs.
        channels: input channels C.

    Returns:
        FLOPs (int).

    >>> vit_forward_flops(224, 16, 768, 12, 3072, 1000).value
    35127656448
    """
    t = Trace()
    macs = t.use(vit_forward_macs(image_size, patch_size, d_model, n_layers, d_ff, n_classes, channels))
    flops = t.step(
        "Forward FLOPs", "2 × MACs", f"2 × {num(macs)}", 2 * macs, Unit.FLOPS, tags(flops_per_mac=2)
    )
    return t.done(flops, Unit.FLOPS, FLOP_CONVENTION + "; " + MACS_CONVENTION)
