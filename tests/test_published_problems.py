"""Published sizing problems (tests/data/published/*.json) posed through their templates with --set, each
with its source; errata pinned to the recomputed value."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from quizzer.bank.loader import Bank
from quizzer.session.chain import part_of
from tests.builtin_bank import builtin_bank

PUBLISHED = Path(__file__).resolve().parent / "data" / "published"
KEYS = {
    "id",
    "title",
    "source",
    "published",
    "answer",
    "units",
    "tolerance",
    "template",
    "set",
    "part",
    "divisor",
    "erratum",
}


@cache
def bank() -> Bank:
    return builtin_bank()  # one load per process, shared (tests/builtin_bank.py)


def problems() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in sorted(PUBLISHED.glob("*.json")):
        for problem in json.loads(path.read_text(encoding="utf-8")):
            out.append({**problem, "file": path.name})
    return out


ALL = problems()


def test_the_problems_are_many_and_named_once() -> None:
    ids = [p["id"] for p in ALL]
    assert len(ids) == len(set(ids)), "a problem id is used twice"
    assert len(ALL) >= 40, f"{len(ALL)} published problems; the bank issue asks for at least 40"


@pytest.mark.parametrize("problem", ALL, ids=[p["id"] for p in ALL])
def test_each_problem_is_complete_and_cited(problem: dict[str, Any]) -> None:
    assert set(problem) - {"file"} == KEYS, (problem["id"], sorted(set(problem) ^ KEYS))
    source = problem["source"]
    assert source["title"].strip(), problem["id"]
    assert source["where"].strip(), problem["id"]
    assert source["url"].startswith(("https://", "http://")), problem["id"]
    assert problem["tolerance"]["kind"] in ("exact", "rel"), problem["id"]
    published, answer = problem["published"], problem["answer"]
    if problem["erratum"]:
        return  # the source is wrong: the test pins the recomputed answer, the erratum says why
    if problem["tolerance"]["kind"] == "exact":
        assert published == answer, (problem["id"], "a published figure that differs needs an erratum")
    else:
        slack = max(problem["tolerance"]["value"], _rounding(published))
        assert abs(published - answer) <= slack * abs(answer), (problem["id"], "differs: write the erratum")


def _rounding(printed: float) -> float:
    """The relative half-step of the last figure a published number was printed with (3.69: 0.005/3.69)."""
    text = repr(printed)
    if text.endswith(".0"):
        text = text[:-2]
    mantissa = text.split("e")[0].lstrip("-")
    digits = mantissa.replace(".", "").lstrip("0") or "0"
    figures = len(digits.rstrip("0")) if "." not in mantissa else len(digits)
    if printed == 0 or figures == 0:
        return 0.0
    from math import floor, log10

    step = 10 ** (floor(log10(abs(printed))) - figures + 1)
    return 0.5 * step / abs(printed)


@pytest.mark.parametrize("problem", ALL, ids=[p["id"] for p in ALL])
def test_each_problem_is_posed_by_its_template_as_printed(problem: dict[str, Any]) -> None:
    instance = bank().generate(problem["template"], 1, problem["set"])
    value = part_of(instance, problem["part"]).value / problem["divisor"]
    if problem["tolerance"]["kind"] == "exact":
        assert value == problem["answer"], problem["id"]
    else:
        assert value == pytest.approx(problem["answer"], rel=problem["tolerance"]["value"]), problem["id"]
