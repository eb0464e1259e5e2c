"""Own numbers: --set values that break a constraint still pose the question, with a warning for each."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import pytest

from quizzer.bank.errors import TemplateError
from quizzer.bank.generate.draw import draw, touched_by
from quizzer.bank.generate.render import OUTSIDE_RANGE, generate
from quizzer.bank.loader import Bank, load_bank
from quizzer.bank.read.names import calculators
from quizzer.bank.read.schema import Template
from tests.builtin_bank import builtin_bank, builtin_instance

DATA = Path(__file__).resolve().parent.parent / "data"


@cache
def bank() -> Bank:
    return builtin_bank()  # one load per process, shared (tests/builtin_bank.py)


def kv() -> Template:
    return bank().get("kv-cache-bytes")


def broken(t: Template, env: dict[str, object]) -> list[str]:
    fns = calculators()
    return [c.source for c in t.main.constraints if not c.evaluate(env, fns)]


def test_a_per_token_problem_is_posed_without_a_warning() -> None:
    """One token of one sequence is a physical cache: the old 1 GiB floor is gone (issue 15)."""
    inst = generate(kv(), 1, {"seq_len": "1", "batch": "1"})
    assert inst.variables["seq_len"] == 1
    assert inst.variables["batch"] == 1
    v = inst.variables
    bytes_per = {"fp32": 4, "fp16": 2, "bf16": 2, "fp8": 1, "int8": 1}[v["dtype"]]
    assert inst.value == 2 * v["n_layers"] * v["n_kv_heads"] * v["head_dim"] * bytes_per
    assert inst.warnings == ()


def test_a_cache_beyond_any_server_is_posed_with_a_warning() -> None:
    inst = generate(kv(), 1, {"seq_len": "1048576", "batch": "65536"})
    assert inst.warnings == (
        OUTSIDE_RANGE + "kv_cache_bytes(n_layers, n_kv_heads, head_dim, seq_len, batch, dtype) <= 2 ** 44",
    )


def test_the_warnings_name_exactly_the_constraints_broken() -> None:
    for seed in range(20):
        inst = generate(kv(), seed, {"n_heads": "16", "n_kv_heads": "3"})
        env = dict(inst.variables)
        assert [OUTSIDE_RANGE + c for c in broken(kv(), env)] == list(inst.warnings), seed
        assert OUTSIDE_RANGE + "n_heads % n_kv_heads == 0" in inst.warnings


def test_constraints_the_overrides_cannot_touch_still_hold() -> None:
    t = kv()
    touched = touched_by(t, {"seq_len", "batch"})
    free = [c for c in t.main.constraints if id(c) not in touched]
    assert [c.source for c in free] == [
        "n_heads % n_kv_heads == 0",
        "n_kv_heads <= n_heads",
        "d_model >= 16 * n_layers and d_model <= 256 * n_layers",
    ]
    fns = calculators()
    for seed in range(30):
        inst = generate(t, seed, {"seq_len": "1", "batch": "1"})
        assert all(c.evaluate(dict(inst.variables), fns) for c in free), seed


def test_overrides_inside_the_range_give_the_strict_draw_and_no_warning() -> None:
    t = kv()
    overrides = {"seq_len": 8192, "batch": 8}
    fns = calculators()
    for seed in range(20):
        env, broke = draw(t, random.Random(f"{t.id}#{seed}"), overrides)
        assert broke == ()
        assert all(c.evaluate(env, fns) for c in t.main.constraints), seed
        assert (env["seq_len"], env["batch"]) == (8192, 8)
        assert generate(t, seed, {"seq_len": "8192", "batch": "8"}).warnings == ()


def test_without_overrides_every_constraint_holds_and_nothing_warns() -> None:
    for t in bank().templates():
        for seed in range(5):
            inst = builtin_instance(t.id, seed)
            assert inst.warnings == (), t.id


def test_every_variable_given_breaks_and_warns_at_once() -> None:
    values = {
        "n_layers": "1", "n_heads": "8", "n_kv_heads": "3", "head_dim": "64",
        "seq_len": "10", "batch": "1", "dtype": "bf16",
    }  # fmt: skip
    inst = generate(kv(), 0, values)
    assert inst.value == 2 * 1 * 3 * 64 * 2 * 10
    assert set(inst.warnings) == {
        OUTSIDE_RANGE + "n_heads % n_kv_heads == 0",
        OUTSIDE_RANGE + "d_model >= 16 * n_layers and d_model <= 256 * n_layers",
    }


def test_a_calculation_the_core_refuses_stays_an_error() -> None:
    with pytest.raises(TemplateError, match=r"head_dim \(0\) must be a positive integer"):
        generate(kv(), 1, {"head_dim": "0"})


def test_an_answer_too_large_to_grade_stays_an_error() -> None:
    mini = load_bank([str(DATA / "good" / "mini.toml")]).get("mini-product")
    with pytest.raises(TemplateError, match="too large to show or grade") as caught:
        generate(mini, 1, {"a": str(10**200), "b": str(10**200)})
    assert caught.value.field == "answer.expr"


def test_a_template_without_constraints_never_warns() -> None:
    mini = load_bank([str(DATA / "good" / "mini.toml")]).get("mini-product")
    assert generate(mini, 1, {"a": "7", "b": "3"}).warnings == ()
