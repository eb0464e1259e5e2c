"""What the texts a student reads before answering state: placeholders, printed numbers, words for a field.

The contained lint asks of each preset field an answer reads whether it is stated. A number field is
stated by its placeholder, by a shown variable equal to it that is made from it, or by its value printed
as a plain whole number (10 and above only: a small number printed is too often another one, and "40%" or
"8B" is no count). A flag or a kind (``tie_embeddings``,
``mlp``, ``norm``...) is stated by its placeholder or by words that name it (``FIELD_WORDS``), a heuristic:
"bias" in a text states every bias flag, whatever it says of them. A field left unstated may still be what
a student assumes (``assumed``): its ModelSpec default, or what the spec derives from other fields
(``head_dim`` = d_model / n_heads), those fields then needed in turn. A whole number that is the sum or
difference of two printed ones counts as stated too (``summed``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from quizzer.bank.expr.text import PLACEHOLDER_RE
from quizzer.bank.generate.prompt_numbers import number_spans
from quizzer.core.errors import QuizzerError
from quizzer.core.record import Record
from quizzer.core.spec import ModelSpec

_BIAS = r"\bbias(es)?\b"
#: Words that state a flag, a kind or a layer list in a text (case-insensitive).
FIELD_WORDS: dict[str, re.Pattern[str]] = {
    name: re.compile(pattern, re.IGNORECASE)
    for name, pattern in {
        "tie_embeddings": r"\b(un)?tied\b|\btie_word_embeddings\b|\bweight tying\b|\bshares? (the|its) "
        r"(embedding|token)",
        "mlp": r"SwiGLU|GeGLU|\bgated\b|\bGELU\b|\bReLU\b|\b(two|three) (MLP )?(matrices|projections)",
        "norm": r"RMSNorm|LayerNorm|layer ?norm|non-?parametric norm",
        "norm_placement": r"\bpre-?norm|\bpost-?norm|sandwich|norms? (before|after)|(before|after) (the )?"
        r"(attention|MLP)",
        "positions": r"\brotary\b|\bRoPE\b|ALiBi|learned position|position(al)? (table|embedding)|"
        r"relative position",
        "qk_norm": r"q_norm|k_norm|\bQK[- ]?norm|q/k norm|norms? (over|on) (each head|queries)",
        "final_norm": r"final (RMS|Layer)?Norm|final norm",
        "embedding_norm": r"embedding (layer)?norm|norm (right )?after the embeddings|applied directly to "
        r"the embeddings",
        "lm_head": r"\bLM head\b|\boutput head\b|\bunembedding\b|\bvocabulary projection\b",
        "pooler": r"\bpooler\b",
        "parallel_attention": r"\bparallel (attention|block|residual)",
        "attention_sinks": r"\bsinks?\b",
        "layer_types": r"\bsliding\b|\bwindow|\blocal\b|\bglobal\b|\bchunked\b|\binterleav|"
        # a hybrid's kinds: which layers are the mixer's and which softmax attention
        r"\bevery (\d+(st|nd|rd|th)|other|second|third|fourth)\b|DeltaNet|Mamba|linear[- ]attention|"
        r"short[- ]conv|softmax[- ]attention layers",
        "nope_layers": r"\bNoPE\b|without positional|no positional",
        "moe_layers": r"\bMoE layers?\b|\bdense layers?\b|mlp_only_layers|every layer'?s MLP",
        "n_shared_experts": r"\b(no|one|two|a|an|\d+) (\w+ )?shared experts?\b",
        "mixer": r"DeltaNet|\bKDA\b|Kimi Delta|Mamba|\bSSM\b|state[- ]space|short[- ]conv|"
        r"linear[- ]attention",
        "mixer_conv_bias": _BIAS,
        "attention_output_gate": r"gated attention|output gate|gate on the attention output",
        "shared_expert_gate": r"shared[- ]expert gate|gated shared expert|gate on the shared expert",
        "no_mlp_layers": r"\bMLP[- ]only\b|without an MLP|no MLP|each block is one|"
        r"one mixer, attention or MLP",
        "index_n_heads": r"\bindexer\b",
        "index_head_dim": r"\bindexer\b",
        "index_topk": r"\btop[- ]?2,?048\b|index_topk",
        "mtp_layers": r"multi-token prediction|\bMTP\b",
        **dict.fromkeys(
            (
                "qkv_bias",
                "out_bias",
                "mlp_bias",
                "lm_head_bias",
                "router_bias",
                "expert_bias",
                "qk_norm_bias",
                "mixer_bias",
            ),
            _BIAS,
        ),
    }.items()
}
#: Fields whose default is no safe guess: stated, or the answer the same whichever way a student reads it.
EITHER_WAY = frozenset({"tie_embeddings"})
#: A derived default and the fields it is derived from (ModelSpec.__post_init__).
DERIVED_FROM: dict[str, tuple[str, ...]] = {
    "n_kv_heads": ("n_heads",),
    "head_dim": ("d_model", "n_heads"),
    "v_head_dim": ("head_dim",),
    "d_ff_expert": ("d_ff",),
    "d_ff_shared": ("d_ff_expert",),
    "norms_per_layer": ("norm_placement",),
}
#: The largest offset ``summed`` adds to a printed number.
MAX_OFFSET = 16
_WHOLE = re.compile(r"\d{1,3}(,\d{3})+|\d+")
_MLA_HEAD_DIM = ("qk_nope_head_dim", "qk_rope_head_dim")


class Shown(Record):
    """The texts read before a part is answered (its prompt, the prompts before it, the conventions):
    the placeholders of their templates, and each number rendered as (figures, as printed, value): "8.03B"
    is (3, 8.03, 8.03e9) and (3, 8.03, 8.03), a bare 8.03 being possible too; and the whole numbers
    printed with no suffix or unit ("2,048", not "40%" or "8B"): what a count of a config can be."""

    names: frozenset[str]
    text: str
    numbers: tuple[tuple[int, float, float], ...]
    counts: frozenset[int]


def shown(raw: Iterable[str], rendered: Iterable[str]) -> Shown:
    """What ``raw`` (the texts as written) and ``rendered`` (as the student reads them) show.

    >>> s = shown(["{n} layers"], ["32 layers, 8.03B params, 40% MFU"])
    >>> sorted(s.names), s.numbers[:3], sorted(s.counts)
    (['n'], ((2, 32.0, 32.0), (3, 8.03, 8.03), (3, 8.03, 8030000000.0)), [32])
    """
    rendered = list(rendered)
    names = frozenset(name for text in raw for name in _placeholders(text))
    numbers: list[tuple[int, float, float]] = []
    counts: set[int] = set()
    for text in rendered:  # a number never spans two texts: each is read once (the prompts repeat)
        text_numbers, text_counts = _numbers(text)
        numbers.extend(text_numbers)
        counts.update(text_counts)
    return Shown(names, "\n".join(rendered), tuple(dict.fromkeys(numbers)), frozenset(counts))


@lru_cache(maxsize=1024)
def _placeholders(text: str) -> frozenset[str]:
    """The names of the placeholders of ``text`` (a template's own text: read once)."""
    return frozenset(m.group(1) for m in PLACEHOLDER_RE.finditer(text))


@lru_cache(maxsize=4096)
def _numbers(text: str) -> tuple[tuple[tuple[int, float, float], ...], frozenset[int]]:
    """``shown``'s numbers and whole counts of one text (the parts of an instance read the same prompts
    and conventions again)."""
    numbers: list[tuple[int, float, float]] = []
    counts: set[int] = set()
    for start, end, values in number_spans(text):
        piece = text[start:end]
        figures = sum(c.isdigit() for c in piece.split("e")[0].lstrip("0.,"))
        numbers.extend((max(figures, 1), values[0], value) for value in values)
        if _WHOLE.fullmatch(piece):
            counts.add(int(piece.replace(",", "")))
    return tuple(numbers), frozenset(counts)


def counted(value: Any, seen: Shown) -> bool:
    """Whether a whole ``value`` of 10 or more is printed in ``seen`` as a plain whole number, as a count
    of a config is (not "40%", "8B" or "2.0").

    >>> s = shown([], ["40% MFU, 8B, 48 layers of 5,120"])
    >>> counted(40, s), counted(48, s), counted(5120, s)
    (False, True, True)
    """
    return isinstance(value, int) and not isinstance(value, bool) and value >= 10 and value in seen.counts


def printed(value: Any, seen: Shown) -> bool:
    """Whether ``value`` (10 or more, or a fraction) is printed in ``seen``: exactly, or rounded as it is
    printed to two significant figures or more (a model's name, "Qwen3 8B", states no parameter count).

    >>> s = shown([], ["8.03B params, 80 GiB, 3 layers, Qwen3 8B"])
    >>> printed(8_030_261_248, s), printed(80 * 2**30, s), printed(3, s), printed(8_190_735_360, s)
    (True, True, False, False)
    """
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return False
    if isinstance(value, int) and abs(value) < 10:
        return False
    for figures, bare, meant in seen.numbers:
        if value == meant:
            return True
        if figures > 1 and bare and meant and value and _rounds_to(value * bare / meant, figures, bare):
            return True
    return False


def summed(value: Any, seen: Shown) -> bool:
    """Whether a whole ``value`` of 100 or more is a whole number printed in ``seen`` plus or minus a small
    one (at most ``MAX_OFFSET``) printed too: OPT's 2,050 position rows, max_position_embeddings 2,048 plus
    an offset of 2. (Any two numbers would add up to a field too often by chance.)

    >>> s = shown([], ["max_position_embeddings = 2,048, an offset of 2; 48 layers, 8 heads"])
    >>> summed(2050, s), summed(2046, s), summed(2051, s), summed(2096, s), summed(40, s)
    (True, True, False, False, False)
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < 100:
        return False
    wholes = seen.counts
    return any(value - a in wholes or value + a in wholes for a in wholes if 0 < a <= MAX_OFFSET)


def _rounds_to(value: float, figures: int, shown: float) -> bool:
    """``value`` rounded to ``figures`` significant figures is ``shown``."""
    digits = figures - 1 - math.floor(math.log10(abs(value)))
    return math.isclose(round(value, digits), shown, rel_tol=1e-9, abs_tol=1e-12)


def worded(field: str, value: Any, seen: Shown) -> bool:
    """Whether ``seen`` states a flag, a kind, a layer list or a count that is said in words ("one shared
    expert") by the words of ``FIELD_WORDS``."""
    words = FIELD_WORDS.get(field)
    return words is not None and words.search(seen.text) is not None


def assumed(spec: ModelSpec, field: str) -> tuple[ModelSpec | None, tuple[str, ...]]:
    """The spec as a student who is not told ``field`` would take it, and the fields that guess rests on:
    the field at its default, or derived from other fields as ModelSpec derives it (None: the field has no
    default, or its default makes no valid model).

    >>> from quizzer.core.presets import preset_spec
    >>> spec, needs = assumed(preset_spec("llama-3-8b"), "head_dim")
    >>> spec == preset_spec("llama-3-8b"), needs
    (True, ('d_model', 'n_heads'))
    >>> assumed(preset_spec("llama-3-8b"), "n_layers")
    (None, ())
    """
    if field in EITHER_WAY:
        value = getattr(spec, field)
        return _valid(spec, {field: not value} if isinstance(value, bool) else {}), ()
    if field not in ModelSpec._defaults:
        return None, ()
    values = {name: getattr(spec, name) for name in ModelSpec._fields if name != field}
    try:
        guess = ModelSpec(**values)
    except (QuizzerError, TypeError, ValueError):
        return None, ()
    needs = DERIVED_FROM.get(field, ())
    if field == "head_dim" and spec.kv_lora_rank:
        needs = _MLA_HEAD_DIM
    return guess, needs if getattr(guess, field) == getattr(spec, field) else ()


def perturbed(spec: ModelSpec, field: str) -> ModelSpec | None:
    """``spec`` with ``field`` changed (a flag flipped, a number doubled, 0 made 1), to see what moves with
    it; None for a kind or a list, or a change that makes no valid model.

    >>> from quizzer.core.presets import preset_spec
    >>> perturbed(preset_spec("llama-3-8b"), "n_heads").n_heads, perturbed(preset_spec("llama-3-8b"), "mlp")
    (64, None)
    """
    value = getattr(spec, field)
    if isinstance(value, bool):
        return _valid(spec, {field: not value})
    if isinstance(value, int):
        return _valid(spec, {field: 2 * value if value else 1})
    return None


def field_text(value: Any) -> str:
    """A field's value for a message: numbers grouped, the rest as written."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return repr(value) if isinstance(value, str) else str(value)


def _valid(spec: ModelSpec, changes: dict[str, Any]) -> ModelSpec | None:
    try:
        return spec.replace(**changes)
    except (QuizzerError, TypeError, ValueError):
        return None


__all__ = [
    "DERIVED_FROM",
    "EITHER_WAY",
    "FIELD_WORDS",
    "Shown",
    "assumed",
    "counted",
    "field_text",
    "perturbed",
    "printed",
    "shown",
    "summed",
    "worded",
]
