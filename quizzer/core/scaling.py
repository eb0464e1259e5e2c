"""Compute-optimal (Chinchilla) model and data sizes: D ≈ 20·N with C = 6·N·D."""

from __future__ import annotations

import math

from quizzer.core.checks import positive
from quizzer.core.flops import training_flops
from quizzer.core.trace import Result, Trace, num
from quizzer.core.units import Unit

#: The rule every calculator here assumes.
CHINCHILLA_CONVENTION = (
    "Chinchilla rule of thumb D = tokens_per_param × N (20 in Hoffmann et al. 2022) with C = 6·N·D; "
    "training-compute optimal, not inference optimal"
)


def chinchilla_tokens(n_params: int | float, tokens_per_param: int | float = 20) -> Result:
    """Compute-optimal training tokens D = tokens_per_param × N.

    Source: Hoffmann et al. 2022, arXiv 2203.15556 (Chinchilla: 70B parameters on 1.4T tokens);
    EleutherAI "Transformer Math 101" (D ≈ 20P).

    Args:
        n_params: parameters N.
        tokens_per_param: tokens per parameter at the optimum (20 for Chinchilla).

    Returns:
        Tokens (an int when both inputs are ints).

    >>> chinchilla_tokens(70_000_000_000).value
    1400000000000
    """
    positive("n_params", n_params)
    positive("tokens_per_param", tokens_per_param)
    t = Trace()
    tokens = t.step(
        "Compute-optimal tokens",
        "tokens per parameter × N",
        f"{num(tokens_per_param)} × {num(n_params)}",
        tokens_per_param * n_params,
        Unit.TOKENS,
    )
    return t.done(tokens, Unit.TOKENS, CHINCHILLA_CONVENTION)


def chinchilla_compute(n_params: int | float, tokens_per_param: int | float = 20) -> Result:
    """Training compute of a compute-optimal run: C = 6·N·(tokens_per_param·N) = 120·N² at 20 tokens/param.

    Args:
        n_params: parameters N.
        tokens_per_param: tokens per parameter at the optimum (20 for Chinchilla).

    Returns:
        FLOPs.

    6 × 1e9 × 2e10 = 1.2e20:

    >>> chinchilla_compute(1_000_000_000).value
    120000000000000000000
    """
    t = Trace()
    tokens = t.use(chinchilla_tokens(n_params, tokens_per_param))
    compute = t.use(training_flops(n_params, tokens))
    return t.done(compute, Unit.FLOPS, CHINCHILLA_CONVENTION)


def chinchilla_params_for_compute(compute_flops: int | float, tokens_per_param: int | float = 20) -> Result:
    """Compute-optimal parameters for a budget: N = √(C / (6 × tokens_per_param)), from C = 6·N·(k·N).

    Source: Hoffmann et al. 2022, arXiv 2203.15556; sizing-notes 4.7 (N = √(C/120)).

    Args:
        compute_flops: training compute budget C in FLOPs.
        tokens_per_param: tokens per parameter at the optimum (20 for Chinchilla).

    Returns:
        Parameters (float: a square root).

    Chinchilla's own budget, 6 × 70e9 × 1.4e12 = 5.88e23 FLOPs, gives back 70B:

    >>> round(chinchilla_params_for_compute(5.88e23).value)
    70000000000
    """
    positive("compute_flops", compute_flops)
    positive("tokens_per_param", tokens_per_param)
    t = Trace()
    params = t.step(
        "Compute-optimal parameters",
        "√(C / (6 × tokens per parameter))",
        f"√({num(compute_flops)} / (6 × {num(tokens_per_param)}))",
        math.sqrt(compute_flops / (6 * tokens_per_param)),
        Unit.PARAMS,
    )
    return t.done(params, Unit.PARAMS, CHINCHILLA_CONVENTION + "; parameters rounded only for display")


def chinchilla_tokens_for_compute(compute_flops: int | float, tokens_per_param: int | float = 20) -> Result:
    """Compute-optimal tokens for a budget: D = tokens_per_param × √(C / (6 × tokens_per_param)).

    Source: Hoffmann et al. 2022, arXiv 2203.15556; sizing-notes 4.7 (D = √(C·20/6)).

    Args:
        compute_flops: training compute budget C in FLOPs.
        tokens_per_param: tokens per parameter at the optimum (20 for Chinchilla).

    Returns:
        Tokens (float).

    >>> round(chinchilla_tokens_for_compute(5.88e23).value)
    1400000000000
    """
    t = Trace()
    params = t.use(chinchilla_params_for_compute(compute_flops, tokens_per_param))
    tokens = t.step(
        "Compute-optimal tokens",
        "tokens per parameter × N",
        f"{num(tokens_per_param)} × {num(params)}",
        float(tokens_per_param * params),
        Unit.TOKENS,
    )
    return t.done(tokens, Unit.TOKENS, CHINCHILLA_CONVENTION)
