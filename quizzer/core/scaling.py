"""Compute-optimal (Chinchilla) model and data sizes: D ≈ 20·N with C = 6·N·D."""

from __future__ import annotations

import math

from quizzer.core.checks import positive
from quizzer.core.errors import UnknownNameError
from quizzer.core.flops import training_flops
from quizzer.core.record import Record
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


# ---------------------------------------------------------------------------------------------------------
# Published compute-optimal fits: one convention each, chosen by name.
#
# Sources disagree on how a compute budget C splits into parameters N and tokens D. Every fit below is
# written with the numbers its source prints and the coefficients we derive from them, recomputed here:
#
# - "rule-of-thumb": D = 20·N and C = 6·N·D (Hoffmann et al. 2022, the ratio of Chinchilla itself: 70B on
#   1.4T), so N = √(C/120). Exponents a = b = 1/2.
# - "chinchilla-1": Approach 1 (minimum over training curves). The paper prints its exponents (Table 2:
#   a = 0.50, b = 0.50) but no prefactor; Table 3 lists the optimum for nine model sizes. We take the power
#   law N_opt = k·C^a through Table 3's first and last rows (400M at 1.92e19 FLOPs, 10T at 1.30e28):
#   a = log(1e13/4e8) / log(1.30e28/1.92e19) = 0.49803 (Table 2's 0.50), k = 4e8 / 1.92e19^a = 0.099624.
#   It gives every other row within 0.6% but one: the 67B row, printed at Gopher's 5.76e23 FLOPs and 1.5T
#   tokens, is not consistent with C = 6·N·D itself (6 × 67e9 × 1.5e12 = 6.03e23); the law puts 67B at
#   5.61e23 FLOPs and 1.40T tokens (2.6% fewer FLOPs).
# - "chinchilla-2": Approach 2 (IsoFLOP profiles), the same way from Table A3's Approach 2 columns (400M at
#   1.84e19, 10T at 1.75e28): a = 0.48985 (Table 2: 0.49), k = 0.146311. Every row within 0.5% again but
#   the 67B one (6.88e23 FLOPs printed, 6.38e23 on the law's line: 7% off, while 6·N·D of the row holds).
# - "chinchilla-3": Approach 3, the parametric loss L(N, D) = E + A/N^α + B/D^β with the constants printed
#   in the paper's body (eq. 10: E = 1.69, A = 406.4, B = 410.7, α = 0.34, β = 0.28), minimised under
#   C = 6·N·D (eq. 4): N_opt = G·(C/6)^a, D_opt = G⁻¹·(C/6)^b, a = β/(α+β), b = α/(α+β),
#   G = (αA/(βB))^(1/(α+β)). Here a = 0.28/0.62 = 0.45161 and G = 1.34471. The paper's own figures do not
#   follow from these rounded constants: Table 2 prints a = 0.46 (0.4516 rounds to 0.45), and Figure 4's
#   40B for the Gopher budget needs the unrounded exponents (this fit gives 32.2B).
# - "chinchilla-3-tex": the same with the unrounded exponents of the paper's TeX source, α = 0.3392,
#   β = 0.2849 (Besiroglu et al. 2024): a = 0.45650, G = 1.30039, 40.3B at 5.76e23 FLOPs (Figure 4's 40B).
#   Neither version reproduces Table A3's Approach 3 columns (the TeX one is 3% to 19% above them): the
#   table was made from the unrounded A and B as well, which were never published.
# - "epoch": Epoch AI's refit of the same law (Besiroglu et al. 2024, arXiv 2404.10102): E = 1.82,
#   A = 482.01, B = 2085.43, α = 0.3478, β = 0.3658; a = 0.51261, G = 0.11963.
# - "deepseek-llm": DeepSeek LLM (Bi et al. 2024, arXiv 2401.02954, eq. 4): M_opt = 0.1715·C^0.5243 and
#   D_opt = 5.8316·C^0.4757, with the model scale M in non-embedding FLOPs per token
#   (M = 72·n_layer·d_model² + 12·n_layer·d_model·l_seq, eq. 2) and C = M·D. The two prefactors multiply to
#   1.00012, so M_opt·D_opt = C to 0.012%. Parameters follow as N ≈ M/6 (6 FLOPs per parameter per token;
#   the attention term M adds over 6·N is left in).
# ---------------------------------------------------------------------------------------------------------


class ScalingFit(Record):
    """A compute-optimal fit: how a training budget C splits into parameters and tokens.

    ``kind`` is "ratio" (D = tokens_per_param × N), "power" (N_opt = k·C^a through two rows of a published
    table, D = C/(6·N)), "parametric" (Chinchilla's L = E + A/N^α + B/D^β, minimised under C = 6·N·D) or
    "model-scale" (DeepSeek LLM: M_opt and D_opt power laws in C = M·D, N ≈ M/6).
    """

    name: str
    title: str
    source: str
    kind: str
    tokens_per_param: int = 0
    rows: tuple[tuple[float, float], tuple[float, float]] = ((0.0, 0.0), (0.0, 0.0))
    table: str = ""
    loss: tuple[float, float, float, float, float] = (0.0, 0.0, 0.0, 0.0, 0.0)  # E, A, B, α, β
    laws: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)  # k_M, a, k_D, b


#: The fits by name (see the block comment above for every coefficient and what each source prints).
SCALING_FITS: dict[str, ScalingFit] = {
    fit.name: fit
    for fit in (
        ScalingFit(
            "rule-of-thumb",
            "the Chinchilla rule of thumb, 20 tokens per parameter",
            "Hoffmann et al. 2022, arXiv 2203.15556 (Chinchilla: 70B on 1.4T tokens)",
            "ratio",
            tokens_per_param=20,
        ),
        ScalingFit(
            "chinchilla-1",
            "Chinchilla's Approach 1, the minimum over training curves",
            "Hoffmann et al. 2022, Table 3",
            "power",
            rows=((4e8, 1.92e19), (1e13, 1.30e28)),
            table="Table 3",
        ),
        ScalingFit(
            "chinchilla-2",
            "Chinchilla's Approach 2, IsoFLOP profiles",
            "Hoffmann et al. 2022, Table A3",
            "power",
            rows=((4e8, 1.84e19), (1e13, 1.75e28)),
            table="Table A3",
        ),
        ScalingFit(
            "chinchilla-3",
            "Chinchilla's Approach 3, the parametric loss with the constants as printed",
            "Hoffmann et al. 2022, eq. 4 and eq. 10",
            "parametric",
            loss=(1.69, 406.4, 410.7, 0.34, 0.28),
        ),
        ScalingFit(
            "chinchilla-3-tex",
            "Chinchilla's Approach 3 with the unrounded exponents of the paper's TeX source",
            "Hoffmann et al. 2022, eq. 4; exponents per Besiroglu et al. 2024",
            "parametric",
            loss=(1.69, 406.4, 410.7, 0.3392, 0.2849),
        ),
        ScalingFit(
            "epoch",
            "Epoch AI's refit of Chinchilla's parametric loss",
            "Besiroglu et al. 2024",
            "parametric",
            loss=(1.82, 482.01, 2085.43, 0.3478, 0.3658),
        ),
        ScalingFit(
            "deepseek-llm",
            "DeepSeek LLM's fit, with the model scale in non-embedding FLOPs per token",
            "Bi et al. 2024, eq. 4",
            "model-scale",
            laws=(0.1715, 0.5243, 5.8316, 0.4757),
        ),
    )
}


def scaling_fit(name: str) -> ScalingFit:
    """The compute-optimal fit called ``name``.

    >>> scaling_fit("chinchilla-3").loss[3]
    0.34
    """
    try:
        return SCALING_FITS[str(name)]
    except KeyError:
        from quizzer.core.units import unknown_name_message

        raise UnknownNameError(unknown_name_message("scaling fit", name, SCALING_FITS)) from None


def scaling_fit_title(fit: str) -> str:
    """The fit in words, for a prompt.

    >>> scaling_fit_title("deepseek-llm")
    "DeepSeek LLM's fit, with the model scale in non-embedding FLOPs per token"
    """
    return scaling_fit(fit).title


def scaling_fit_formula(fit: str) -> str:
    """The fit's formula with its coefficients (computed, not typed), for a prompt's conventions.

    >>> scaling_fit_formula("rule-of-thumb")
    'D = 20·N tokens, with C = 6·N·D'
    >>> scaling_fit_formula("chinchilla-3").split(" = ")[-6:-4]
    ['(α·A/(β·B))^(1/(α + β))', '1.34471 (A']
    """
    f = scaling_fit(fit)
    if f.kind == "ratio":
        return f"D = {f.tokens_per_param}·N tokens, with C = 6·N·D"
    if f.kind == "power":
        (n1, c1), (n2, c2) = f.rows
        a = math.log(n2 / n1) / math.log(c2 / c1)
        k = n1 / c1**a
        return (
            f"N_opt = k·C^a and D_opt = C/(6·N_opt), with a = {num(a)} and k = {num(k)} (the power law "
            f"through {f.table}'s first and last rows)"
        )
    if f.kind == "parametric":
        _, big_a, big_b, alpha, beta = f.loss
        a = beta / (alpha + beta)
        g = (alpha * big_a / (beta * big_b)) ** (1 / (alpha + beta))
        return (
            f"N_opt = G·(C/6)^a and D_opt = C/(6·N_opt), with a = β/(α + β) = {num(a)} and "
            f"G = (α·A/(β·B))^(1/(α + β)) = {num(g)} (A = {num(big_a)}, B = {num(big_b)}, α = {num(alpha)}, "
            f"β = {num(beta)})"
        )
    k_m, a, k_d, b = f.laws
    return (
        f"M_opt = {num(k_m)}·C^{num(a)} and D_opt = {num(k_d)}·C^{num(b)}, with M the non-embedding "
        "FLOPs per token and C = M·D; parameters N ≈ M/6"
    )


def scaling_fit_convention(fit: str) -> str:
    """One sentence for a question's conventions: the fit, its source and its formula.

    >>> scaling_fit_convention("epoch").split(":")[0]
    "Compute-optimal split by Epoch AI's refit of Chinchilla's parametric loss (Besiroglu et al. 2024)"
    """
    f = scaling_fit(fit)
    source = "" if f.kind == "ratio" else f" ({f.source})"
    return f"Compute-optimal split by {f.title}{source}: {scaling_fit_formula(fit)}."


def _power_law(t: Trace, f: ScalingFit) -> tuple[float, float]:
    """Steps for the exponent and prefactor of N_opt = k·C^a through the two table rows; (a, k)."""
    (n1, c1), (n2, c2) = f.rows
    a = t.step(
        f"Exponent a (power law through {f.table}'s {num(n1)} and {num(n2)} rows)",
        "log(N₂ / N₁) / log(C₂ / C₁)",
        f"log({num(n2)} / {num(n1)}) / log({num(c2)} / {num(c1)})",
        math.log(n2 / n1) / math.log(c2 / c1),
        Unit.RATIO,
    )
    k = t.step("Prefactor k", "N₁ / C₁^a", f"{num(n1)} / {num(c1)}^{num(a)}", n1 / c1**a, Unit.RATIO)
    return a, k


def _parametric(t: Trace, f: ScalingFit) -> tuple[float, float]:
    """Steps for a = β/(α+β) and G = (αA/(βB))^(1/(α+β)) of Chinchilla's eq. 4; (a, G)."""
    _, big_a, big_b, alpha, beta = f.loss
    a = t.step(
        "Exponent a",
        "β / (α + β)",
        f"{num(beta)} / ({num(alpha)} + {num(beta)})",
        beta / (alpha + beta),
        Unit.RATIO,
    )
    g = t.step(
        "Prefactor G",
        "(α·A / (β·B))^(1 / (α + β))",
        f"({num(alpha)} × {num(big_a)} / ({num(beta)} × {num(big_b)}))^(1 / {num(alpha + beta)})",
        (alpha * big_a / (beta * big_b)) ** (1 / (alpha + beta)),
        Unit.RATIO,
    )
    return a, g


def _params(t: Trace, f: ScalingFit, c: int | float) -> float:
    """Steps for N_opt of a non-ratio fit at budget ``c``; its value."""
    if f.kind == "power":
        a, k = _power_law(t, f)
        return t.step(
            "Compute-optimal parameters",
            "k × C^a",
            f"{num(k)} × {num(c)}^{num(a)}",
            float(k * c**a),
            Unit.PARAMS,
        )
    if f.kind == "parametric":
        a, g = _parametric(t, f)
        return t.step(
            "Compute-optimal parameters",
            "G × (C / 6)^a",
            f"{num(g)} × ({num(c)} / 6)^{num(a)}",
            float(g * (c / 6) ** a),
            Unit.PARAMS,
        )
    k_m, a, _, _ = f.laws
    m = t.step(
        "Optimal model scale M (non-embedding FLOPs per token)",
        f"{num(k_m)} × C^{num(a)}",
        f"{num(k_m)} × {num(c)}^{num(a)}",
        float(k_m * c**a),
        Unit.FLOPS,
    )
    return t.step(
        "Parameters at 6 FLOPs per parameter per token", "M / 6", f"{num(m)} / 6", m / 6, Unit.PARAMS
    )


def _fit_convention(f: ScalingFit) -> str:
    return f"compute-optimal split by {f.title} ({f.source}); training compute C = 6·N·D" + (
        " (DeepSeek: C = M·D with M ≈ 6·N)" if f.kind == "model-scale" else ""
    )


def compute_optimal_params(compute_flops: int | float, fit: str = "rule-of-thumb") -> Result:
    """Compute-optimal parameters N_opt for a budget C under a published fit (``SCALING_FITS``).

    rule-of-thumb: √(C / 120); chinchilla-1 and -2: k·C^a through two rows of Table 3 / Table A3;
    chinchilla-3, chinchilla-3-tex and epoch: G·(C/6)^a (Hoffmann et al. eq. 4); deepseek-llm:
    M_opt/6 with M_opt = 0.1715·C^0.5243 (Bi et al. 2024, eq. 4).

    Args:
        compute_flops: training compute budget C in FLOPs.
        fit: a key of ``SCALING_FITS``.

    Returns:
        Parameters (float).

    The rule of thumb gives back Chinchilla's 70B from 6 × 70e9 × 1.4e12 = 5.88e23; Approach 3 with the
    TeX-source exponents gives Figure 4's 40B for Gopher's 5.76e23:

    >>> round(compute_optimal_params(5.88e23).value / 1e9, 3)
    70.0
    >>> round(compute_optimal_params(5.76e23, "chinchilla-3-tex").value / 1e9, 2)
    40.31
    """
    f = scaling_fit(fit)
    if f.kind == "ratio":
        return chinchilla_params_for_compute(compute_flops, f.tokens_per_param)
    positive("compute_flops", compute_flops)
    t = Trace()
    params = _params(t, f, compute_flops)
    return t.done(params, Unit.PARAMS, _fit_convention(f))


def compute_optimal_tokens(compute_flops: int | float, fit: str = "rule-of-thumb") -> Result:
    """Compute-optimal training tokens D_opt for a budget C under a published fit: C / (6·N_opt), but
    DeepSeek LLM's own law D_opt = 5.8316·C^0.4757 for "deepseek-llm".

    Args:
        compute_flops: training compute budget C in FLOPs.
        fit: a key of ``SCALING_FITS``.

    Returns:
        Tokens (float).

    >>> round(compute_optimal_tokens(5.88e23).value / 1e12, 3)
    1.4
    >>> round(compute_optimal_tokens(1e24, "deepseek-llm").value / 1e12, 4)
    1.5226
    """
    f = scaling_fit(fit)
    if f.kind == "ratio":
        return chinchilla_tokens_for_compute(compute_flops, f.tokens_per_param)
    positive("compute_flops", compute_flops)
    t = Trace()
    if f.kind == "model-scale":
        _, _, k_d, b = f.laws
        tokens = t.step(
            "Optimal data scale D (tokens)",
            f"{num(k_d)} × C^{num(b)}",
            f"{num(k_d)} × {num(compute_flops)}^{num(b)}",
            float(k_d * compute_flops**b),
            Unit.TOKENS,
        )
        return t.done(tokens, Unit.TOKENS, _fit_convention(f))
    params = _params(t, f, compute_flops)
    tokens = t.step(
        "Compute-optimal tokens",
        "C / (6 × N)",
        f"{num(compute_flops)} / (6 × {num(params)})",
        compute_flops / (6 * params),
        Unit.TOKENS,
    )
    return t.done(tokens, Unit.TOKENS, _fit_convention(f))


def _budget_for(t: Trace, f: ScalingFit, n: int | float) -> float:
    """Steps for the budget C at which ``n`` parameters are compute-optimal under a non-ratio fit."""
    if f.kind == "power":
        a, k = _power_law(t, f)
        return t.step(
            "Compute-optimal budget for N",
            "(N / k)^(1 / a)",
            f"({num(n)} / {num(k)})^(1 / {num(a)})",
            float((n / k) ** (1 / a)),
            Unit.FLOPS,
        )
    if f.kind == "parametric":
        a, g = _parametric(t, f)
        return t.step(
            "Compute-optimal budget for N",
            "6 × (N / G)^(1 / a)",
            f"6 × ({num(n)} / {num(g)})^(1 / {num(a)})",
            float(6 * (n / g) ** (1 / a)),
            Unit.FLOPS,
        )
    k_m, a, _, _ = f.laws
    m = t.step("Model scale M ≈ 6 × N (FLOPs per token)", "6 × N", f"6 × {num(n)}", 6 * n, Unit.FLOPS)
    return t.step(
        "Compute-optimal budget for M",
        f"(M / {num(k_m)})^(1 / {num(a)})",
        f"({num(m)} / {num(k_m)})^(1 / {num(a)})",
        float((m / k_m) ** (1 / a)),
        Unit.FLOPS,
    )


def compute_optimal_compute_for_params(n_params: int | float, fit: str = "rule-of-thumb") -> Result:
    """The budget C at which a model of N parameters is compute-optimal under a published fit (the
    direction of Chinchilla's Table 3 and Table A3): 120·N² for the rule of thumb, the inverse of N_opt(C)
    otherwise.

    Args:
        n_params: parameters N.
        fit: a key of ``SCALING_FITS``.

    Returns:
        FLOPs (an int for the rule of thumb with an int N, else a float).

    Table 3 (Approach 1) puts 1T parameters at 1.27e26 FLOPs:

    >>> compute_optimal_compute_for_params(1_000_000_000).value
    120000000000000000000
    >>> round(compute_optimal_compute_for_params(1e12, "chinchilla-1").value / 1e26, 2)
    1.28
    """
    f = scaling_fit(fit)
    if f.kind == "ratio":
        return chinchilla_compute(n_params, f.tokens_per_param)
    positive("n_params", n_params)
    t = Trace()
    budget = _budget_for(t, f, n_params)
    return t.done(budget, Unit.FLOPS, _fit_convention(f))


def compute_optimal_tokens_for_params(n_params: int | float, fit: str = "rule-of-thumb") -> Result:
    """Compute-optimal training tokens for a model of N parameters under a published fit: 20·N for the
    rule of thumb; otherwise the budget at which N is optimal, then D = C / (6·N) (C / M for DeepSeek LLM,
    with M = 6·N).

    Args:
        n_params: parameters N.
        fit: a key of ``SCALING_FITS``.

    Returns:
        Tokens (an int for the rule of thumb with an int N, else a float).

    Table 3 (Approach 1): 10B parameters want 205.1B tokens; Table A3 (Approach 2): 20.0B for 1B:

    >>> round(compute_optimal_tokens_for_params(1e10, "chinchilla-1").value / 1e9, 1)
    205.2
    >>> round(compute_optimal_tokens_for_params(1e9, "chinchilla-2").value / 1e9, 1)
    19.9
    """
    f = scaling_fit(fit)
    if f.kind == "ratio":
        return chinchilla_tokens(n_params, f.tokens_per_param)
    positive("n_params", n_params)
    t = Trace()
    n = n_params
    # One step from the coefficients to D, so that the budget (a later question's answer, often) is no step.
    if f.kind == "power":
        a, k = _power_law(t, f)
        formula, shown, value = (
            "(N / k)^(1 / a) / (6 × N)",
            f"({num(n)} / {num(k)})^(1 / {num(a)}) / (6 × {num(n)})",
            (n / k) ** (1 / a) / (6 * n),
        )
    elif f.kind == "parametric":
        a, g = _parametric(t, f)
        formula, shown, value = (
            "(N / G)^(1 / a) / N",
            f"({num(n)} / {num(g)})^(1 / {num(a)}) / {num(n)}",
            (n / g) ** (1 / a) / n,
        )
    else:
        k_m, a, _, _ = f.laws
        m = t.step("Model scale M ≈ 6 × N (FLOPs per token)", "6 × N", f"6 × {num(n)}", 6 * n, Unit.FLOPS)
        formula, shown, value = (
            f"(M / {num(k_m)})^(1 / {num(a)}) / M",
            f"({num(m)} / {num(k_m)})^(1 / {num(a)}) / {num(m)}",
            (m / k_m) ** (1 / a) / m,
        )
    tokens = t.step(
        "Compute-optimal tokens (the budget at which N is optimal, over 6·N)",
        formula,
        shown,
        float(value),
        Unit.TOKENS,
    )
    return t.done(tokens, Unit.TOKENS, _fit_convention(f))


def compute_optimal_exponent(fit: str = "rule-of-thumb") -> Result:
    """The exponent a of N_opt ∝ C^a under a published fit (b = 1 − a for the tokens; DeepSeek LLM's is
    that of its model scale M).

    >>> compute_optimal_exponent().value, round(compute_optimal_exponent("chinchilla-3").value, 5)
    (0.5, 0.45161)
    """
    f = scaling_fit(fit)
    t = Trace()
    if f.kind == "ratio":
        a = t.step("Exponent a", "1/2 (D grows in proportion to N: C = 6·k·N²)", "1 / 2", 0.5, Unit.RATIO)
    elif f.kind == "power":
        (n1, c1), (n2, c2) = f.rows
        a = t.step(
            f"Exponent a (power law through {f.table}'s {num(n1)} and {num(n2)} rows)",
            "log(N₂ / N₁) / log(C₂ / C₁)",
            f"log({num(n2)} / {num(n1)}) / log({num(c2)} / {num(c1)})",
            math.log(n2 / n1) / math.log(c2 / c1),
            Unit.RATIO,
        )
    elif f.kind == "parametric":
        _, _, _, alpha, beta = f.loss
        shown = f"{num(beta)} / ({num(alpha)} + {num(beta)})"
        a = t.step("Exponent a", "β / (α + β)", shown, beta / (alpha + beta), Unit.RATIO)
    else:
        a = t.step("Exponent a (of M_opt)", "as printed (eq. 4)", num(f.laws[1]), f.laws[1], Unit.RATIO)
    return t.done(a, Unit.RATIO, _fit_convention(f))
