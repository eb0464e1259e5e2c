"""GradeContext: what the grader knows of an instance beyond its value; the dtypes and their neighbours."""

from __future__ import annotations

from quizzer.core.checks import count
from quizzer.core.errors import SpecError
from quizzer.core.record import Record
from quizzer.core.trace import Factor, Step


class GradeContext(Record):
    """What the grader knows of an instance beyond its value, to propose only the slips that fit it.

    Attributes:
        display_unit: what a bare number means, a token the parser reads ("GB", "days", "%", "B"); None: the
            base unit.
        dtype: the dtype of the values a bytes answer counts ("fp32", "bf16", "fp8", "int4", "nf4", "mxfp4",
            ...); None: no dtype slip is proposed.
        layers: the layers the per-layer step is multiplied by in this instance; None or 1: no layer slip.
        layers_label: how to name them ("the 3 layers one GPU holds"); None: "the {layers} layers".
        per_layer_question: the question asks for one layer (the slip is then the whole stack).
        factors: the named factors the answer is proportional to (its derivation's last step's
            ``Step.factors``): the ×2 for K and V, the KV heads, the layers, a dtype's bytes, 2 FLOPs per MAC
            each make their slip (``quizzer.grading.slip_families``); (): none.
        derivation: the answer's derivation, whose last step a typed product is read against
            (``quizzer.grading.working``); (): none.
    """

    display_unit: str | None = None
    dtype: str | None = None
    layers: int | None = None
    layers_label: str | None = None
    per_layer_question: bool = False
    factors: tuple[Factor, ...] = ()
    derivation: tuple[Step, ...] = ()

    def __post_init__(self) -> None:
        for name in ("display_unit", "dtype", "layers_label"):
            if not isinstance(getattr(self, name), str | None):
                raise SpecError(f"{name} ({getattr(self, name)!r}) must be a string or None")
        if self.layers is not None:
            count("layers", self.layers)
        if not isinstance(self.per_layer_question, bool):
            raise SpecError(f"per_layer_question ({self.per_layer_question!r}) must be True or False")
        if not isinstance(self.factors, tuple):  # of Factor (each a Record: not checked again per grade)
            raise SpecError(f"factors ({self.factors!r}) must be a tuple of Factor")


#: Bits per stored value: block formats count their shared scales (mxfp4: 4 + 8/32, nvfp4: 4 + 8/16).
DTYPE_BITS: dict[str, float] = {
    "fp32": 32, "tf32": 32, "fp16": 16, "bf16": 16, "fp8": 8, "int8": 8,
    "int4": 4, "nf4": 4, "fp4": 4, "mxfp4": 4.25, "nvfp4": 4.5,
}  # fmt: skip
#: Other spellings of a dtype.
DTYPE_ALIASES = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "e4m3": "fp8", "e5m2": "fp8"}
#: The dtypes a value of each dtype is mistaken for. Same-size pairs (fp8/int8, int4/nf4) give the same
#: bytes, so they are no slip.
DTYPE_NEIGHBOURS: dict[str, tuple[str, ...]] = {
    "fp32": ("bf16",), "tf32": ("bf16",), "bf16": ("fp32", "fp8"), "fp16": ("fp32", "fp8"),
    "fp8": ("bf16",), "int8": ("bf16", "int4"), "int4": ("int8", "bf16"), "nf4": ("bf16", "int8"),
    "fp4": ("bf16", "fp8"), "mxfp4": ("bf16", "fp8"), "nvfp4": ("bf16", "fp8"),
}  # fmt: skip
