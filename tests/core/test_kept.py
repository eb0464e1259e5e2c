"""kept: the core's building blocks answer a call made before from memory, by argument type and value."""

from __future__ import annotations

import pytest

from quizzer.core import forget
from quizzer.core.errors import SpecError
from quizzer.core.kept import kept
from quizzer.core.params import attention_params, mlp_params


def test_a_building_block_remembers_a_call_by_type_and_value() -> None:
    first = mlp_params(4096, 11008)
    assert mlp_params(4096, 11008) is first
    assert first.value == 3 * 4096 * 11008  # gate, up and down projections, by hand
    assert mlp_params(4096, 11008, True) is not first  # the same call written another way: its own key
    assert mlp_params(4096.0, 11008) is not first  # 2 and 2.0 read differently in a derivation
    assert mlp_params(4096, 11008, gated=1) is not mlp_params(4096, 11008, gated=True)  # True is not 1


def test_an_error_is_never_kept_and_forget_empties_the_memory() -> None:
    with pytest.raises(SpecError):
        attention_params(0, 32, 8, 128)
    with pytest.raises(SpecError):
        attention_params(0, 32, 8, 128)  # raised again: not kept
    first = attention_params(4096, 32, 8, 128)
    forget()
    again = attention_params(4096, 32, 8, 128)
    assert again is not first
    assert again == first


def test_an_argument_that_cannot_be_a_key_is_computed_afresh() -> None:
    calls: list[object] = []

    @kept
    def total(values: object, scale: int = 1) -> int:
        calls.append(values)
        return scale * sum(values)  # type: ignore[call-overload]

    assert total([1, 2, 3]) == 6
    assert total([1, 2, 3]) == 6  # a list: no key, made twice
    assert total((1, 2), 2) == 6
    assert total((1, 2), 2) == 6  # a tuple: kept after the first
    assert calls == [[1, 2, 3], [1, 2, 3], (1, 2)]
    assert total.__name__ == "total"
