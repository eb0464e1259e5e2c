"""Mixture-of-experts layers: routed experts, shared experts and the router, in total and per token."""

from __future__ import annotations

from typing import cast

from quizzer.core.checks import counts
from quizzer.core.errors import SpecError
from quizzer.core.kept import kept
from quizzer.core.params import mlp_params, router_params
from quizzer.core.record import Record
from quizzer.core.trace import Result, Trace, num
from quizzer.core.units import Unit

P = Unit.PARAMS


class MoeParts(Record):
    """The parameters of one MoE layer's MLP, by part."""

    router: int
    expert: int
    """One routed expert."""
    n_experts: int
    experts_per_token: int
    shared: int
    """Every shared expert together."""

    @property
    def routed(self) -> int:
        """Every routed expert."""
        return self.n_experts * self.expert

    @property
    def total(self) -> int:
        return self.router + self.routed + self.shared

    @property
    def active(self) -> int:
        """What one token uses: the router, its top-k routed experts and the shared experts."""
        return self.router + self.experts_per_token * self.expert + self.shared


@kept
def moe_mlp_params(
    d_model: int,
    d_ff_expert: int,
    n_experts: int,
    experts_per_token: int,
    gated: bool = True,
    n_shared_experts: int = 0,
    router_bias: bool = False,
    *,
    d_ff_shared: int | None = None,
    expert_bias: bool = False,
    shared_gate: bool = False,
) -> tuple[Result, Result]:
    """One MoE layer's MLP: (total, active). Total = router + shared + n_experts experts; active uses top-k.

    Shared experts (DeepSeek, Llama 4) are used by every token, so they count in both. ``d_ff_shared`` is
    their width when it differs from the routed experts' (default ``d_ff_expert``); ``expert_bias`` gives
    every
    expert its projection biases (gpt-oss).

    >>> total, active = moe_mlp_params(4096, 14336, 8, 2)
    >>> total.value, active.value
    (1409318912, 352354304)
    >>> total, active = moe_mlp_params(7168, 2048, 256, 8, n_shared_experts=1)  # DeepSeek-V3
    >>> total.value, active.value
    (11320164352, 398196736)
    """
    parts = moe_parts(
        d_model,
        d_ff_expert,
        n_experts,
        experts_per_token,
        gated,
        n_shared_experts,
        router_bias,
        d_ff_shared=d_ff_shared,
        expert_bias=expert_bias,
        shared_gate=shared_gate,
    )
    expert = mlp_params(d_model, d_ff_expert, gated, expert_bias, width="expert width")
    gate = d_model if shared_gate else 0
    same_width = parts.shared - gate == n_shared_experts * parts.expert
    shared_one = (parts.shared - gate) // n_shared_experts if n_shared_experts else 0
    results = []
    for label, k, name in (
        ("all experts", n_experts, "n_experts"),
        ("active experts", experts_per_token, "k"),
    ):
        t = Trace()
        per = t.use(expert)
        r = t.use(router_params(d_model, n_experts, router_bias))
        if same_width and not n_shared_experts:  # Mixtral: no shared expert to add
            formula, shown = f"router + {name} × expert", f"{num(r)} + {num(k)} × {num(per)}"
        elif same_width:
            formula, shown = (
                f"router + ({name} + shared) × expert",
                f"{num(r)} + ({num(k)} + {num(n_shared_experts)} shared) × {num(per)}",
            )
        else:
            formula = f"router + {name} × expert + shared × shared expert"
            shown = f"{num(r)} + {num(k)} × {num(per)} + {num(n_shared_experts)} × {num(shared_one)}"
        if gate:
            formula += " + shared-expert gate"
            shown += f" + {num(gate)}"
        value = t.step(f"MoE MLP, {label}", formula, shown, r + k * per + parts.shared, P)
        results.append(t.done(value, P, "per MoE layer; the router and shared experts count as active"))
    return results[0], results[1]


@kept
def moe_parts(
    d_model: int,
    d_ff_expert: int,
    n_experts: int,
    experts_per_token: int,
    gated: bool = True,
    n_shared_experts: int = 0,
    router_bias: bool = False,
    *,
    d_ff_shared: int | None = None,
    expert_bias: bool = False,
    shared_gate: bool = False,
) -> MoeParts:
    """The parts of one MoE layer (see ``moe_mlp_params``), as exact counts.

    >>> moe_parts(2880, 2880, 32, 4, router_bias=True, expert_bias=True).expert  # gpt-oss-20b
    24891840
    """
    n_experts, experts_per_token = counts(n_experts=n_experts, experts_per_token=experts_per_token)
    if experts_per_token > n_experts:
        raise SpecError(f"experts_per_token ({experts_per_token}) must be at most n_experts ({n_experts})")
    # Parameter counts are exact ints (Trace keeps an int step an int); Result.value is typed Number.
    expert = cast(int, mlp_params(d_model, d_ff_expert, gated, expert_bias).value)
    shared = 0
    if n_shared_experts:
        width = d_ff_expert if d_ff_shared is None else d_ff_shared
        shared = n_shared_experts * cast(int, mlp_params(d_model, width, gated, expert_bias).value)
        shared += d_model if shared_gate else 0  # Qwen3-Next: a d_model → 1 sigmoid gate on its output
    router = cast(int, router_params(d_model, n_experts, router_bias).value)
    return MoeParts(router, expert, n_experts, experts_per_token, shared)


def moe_layer_params(
    d_model: int,
    d_ff_expert: int,
    n_experts: int,
    experts_per_token: int,
    n_shared_experts: int = 0,
    d_ff_shared: int | None = None,
    active: bool = False,
    gated: bool = True,
    router_bias: bool = False,
    expert_bias: bool = False,
) -> Result:
    """One MoE layer's MLP for templates: every expert (``active=False``) or what one token uses
    (``active=True``: router + top-k routed + shared experts). See ``moe_mlp_params``.

    >>> moe_layer_params(7168, 2048, 256, 8, 1).value
    11320164352
    >>> moe_layer_params(7168, 2048, 256, 8, 1, active=True).value
    398196736
    """
    total, used = moe_mlp_params(
        d_model,
        d_ff_expert,
        n_experts,
        experts_per_token,
        gated,
        n_shared_experts,
        router_bias,
        d_ff_shared=d_ff_shared,
        expert_bias=expert_bias,
    )
    return used if active else total
