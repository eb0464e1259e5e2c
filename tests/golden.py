"""Assertions shared by the golden tests against tests/data/reference/problems.json."""

from __future__ import annotations

from typing import Any

import pytest

from quizzer.core.trace import Result


def assert_golden(problem: dict[str, Any], value: float) -> None:
    """``value``, in the problem's units, matches the published answer within the problem's tolerance."""
    tolerance = problem["tolerance"]
    if tolerance["kind"] == "exact":
        assert value == problem["answer"], problem["id"]
    else:
        assert value == pytest.approx(problem["answer"], rel=tolerance["value"]), problem["id"]


def assert_sealed(result: Result) -> None:
    """The derivation ends in the value and unit the calculator returned."""
    assert result.steps, "a derivation needs at least one step"
    assert result.steps[-1].value == result.value
    assert result.steps[-1].unit == result.unit
