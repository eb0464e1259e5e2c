"""The identifiers lint (#25): a name of code (snake_case) in a text a student reads, and a derivation row
whose formula names one count while it shows another.

Each pack plants one such name in one place; its clean variant says it in words, in notation (d_model,
W_q), or quotes it as code in backticks.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from quizzer.bank.check.registry import chosen
from quizzer.bank.check.run import check_template
from quizzer.bank.errors import TemplateError
from quizzer.bank.loader import load_bank
from quizzer.core import forget
from quizzer.core.trace import Trace

PACK = """
[[template]]
id = "ids"
title = "Identifiers fixture"
topic = "fixtures"
difficulty = "easy"
minutes = 2
kind = "exact"
prompt = "A layer of width {{d_model}} holds {{n:count}} weights in bf16. How many bytes?"
explanation = "{explanation}\\n\\n{{derivation}}"
tldr = "{{answer}}."

[template.variables]
n = {{ choices = [1000000, 2000000] }}
d_model = {{ choices = [1024] }}
key = {{ choices = ["{key}"] }}
per_value = {{ expr = "2"{label} }}

[template.answer]
expr = "per_value * n"
unit = "bytes"

[[template.mistakes]]
name = "fp32"
title = "{title}"
answer = "4 * n"
feedback = "That is fp32: 4 bytes a value."

[[template.parts]]
prompt = "And for {{copies}} copies?"
explanation = "{{derivation}}"
answer = {{ expr = "part1 * copies", unit = "bytes" }}
[template.parts.variables]
copies = {{ choices = [3]{part_label} }}
"""

CLEAN = {
    "explanation": "Read `{key}` (`cfg.hidden_size // cfg.num_heads`): bytes = 2 × n per d_model, as W_q",
    "key": "hidden_size",
    "label": ', label = "bytes per value"',
    "title": "fp32 for bf16",
    "part_label": ', label = "copies"',
}


@pytest.fixture(autouse=True)
def _calculators_compute_afresh() -> Iterator[None]:
    """The core's calculators remember their results: a test that plants a step sees it computed, and
    leaves no planted result behind."""
    forget()
    yield
    forget()


def _findings(
    tmp_path: Path, pack: str | None = None, tid: str = "ids", **fields: str
) -> tuple[str, list[TemplateError]]:
    """The findings of the pack (default: PACK with ``fields`` planted in CLEAN) and its path."""
    path = tmp_path / "pack.toml"
    path.write_text(pack or PACK.format(**{**CLEAN, **fields}), encoding="utf-8")
    bank = load_bank([str(path)])
    assert bank.problems() == []
    problems, count = check_template(bank.get(tid), range(3), lints=chosen(only=("identifiers",)))
    assert count == 3
    return str(path), problems


def _one(tmp_path: Path, field: str, **fields: str) -> str:
    """The one finding the planted fields give: its file, template and field checked; its message."""
    path, problems = _findings(tmp_path, **fields)
    assert [(p.path, p.template_id, p.field) for p in problems] == [(path, "ids", field)]
    return problems[0].message


def test_the_clean_pack_has_no_finding(tmp_path: Path) -> None:
    """Code spans, notation (d_model, W_q) and labels in words are read as they should be."""
    assert _findings(tmp_path)[1] == []


def test_a_name_written_in_a_text_is_named_by_its_field(tmp_path: Path) -> None:
    message = _one(tmp_path, "explanation", explanation="Divide budget_gb by d_model, as W_q does.")
    assert message.startswith("writes 'budget_gb': a student reads it as code")
    assert "backticks" in message


def test_a_name_in_a_mistakes_title_is_named(tmp_path: Path) -> None:
    message = _one(tmp_path, "mistakes[0].title", title="fp32 for bf16 (no bytes_per_value)")
    assert message.startswith("writes 'bytes_per_value'")


def test_a_variable_without_a_label_in_the_answer_row_is_named_at_the_variable(tmp_path: Path) -> None:
    """The issue's `no_dq`: the Answer row names a variable by its name when it has no label."""
    message = _one(tmp_path, "variables.per_value", label="")
    assert message.startswith("seed 0: shows as 'per_value' in the Answer row of the derivation of part 1")
    assert 'label = "...")' in message


def test_a_later_parts_variable_without_a_label_is_named_under_its_part(tmp_path: Path) -> None:
    path, problems = _findings(tmp_path, part_label="")
    assert problems == []  # `copies` has no underscore: its name reads as a word
    pack = PACK.replace("{{copies}}", "{{n_copies}}").replace("* copies", "* n_copies")
    pack = pack.replace("copies = ", "n_copies = ")
    _, problems = _findings(tmp_path, pack=pack.format(**{**CLEAN, "part_label": ""}))
    assert [(p.path, p.field) for p in problems] == [(path, "parts[0].variables.n_copies")]
    assert "in the Answer row of the derivation of part 2" in problems[0].message


def test_a_label_with_an_underscore_is_named_where_it_is_written(tmp_path: Path) -> None:
    message = _one(tmp_path, "variables.per_value.label", label=', label = "bytes_per_value"')
    assert message.startswith("writes 'bytes_per_value', which a derivation's Answer row shows")
    assert _findings(tmp_path, label=', label = "`bytes_per_value`"')[1] == []


def test_a_placeholder_whose_value_is_a_name_is_named_at_the_text(tmp_path: Path) -> None:
    message = _one(tmp_path, "explanation", explanation="Read {key} from the config.")
    assert message.startswith("seed 0: a placeholder shows 'hidden_size'")


CALC = """
[[template]]
id = "calc"
title = "Calculator fixture"
topic = "fixtures"
difficulty = "easy"
minutes = 2
kind = "exact"
prompt = "{prompt}"
explanation = "{{derivation}}"
tldr = "{{answer}}."
[template.variables]
{variables}
[template.answer]
expr = "{expr}"
unit = "{unit}"
"""


def _calc(tmp_path: Path, **fields: str) -> tuple[str, list[TemplateError]]:
    return _findings(tmp_path, pack=CALC.format(**fields), tid="calc")


def test_a_calculators_step_writing_a_name_is_named_at_the_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A step of chinchilla_tokens planted to read "tokens_per_param × N" (as it once did): a fix in
    quizzer/core; as the core writes it ("tokens per parameter × N"), no finding."""
    fields = {
        "prompt": "A {n:si} model: compute-optimal tokens?",
        "variables": "n = { choices = [70000000000] }",
        "expr": "chinchilla_tokens(n)",
        "unit": "tokens",
    }
    assert _calc(tmp_path, **fields)[1] == []
    real = Trace.step

    def planted(self: Trace, label: str, formula: str, *args: Any, **kwargs: Any) -> Any:
        return real(self, label, formula.replace("tokens per parameter", "tokens_per_param"), *args, **kwargs)

    monkeypatch.setattr(Trace, "step", planted)
    forget()  # the calculators remember their results: let them compute again with the planted step
    path, problems = _calc(tmp_path, **fields)
    assert [(p.path, p.template_id, p.field) for p in problems] == [(path, "calc", "answer.expr")]
    assert "writes 'tokens_per_param'" in problems[0].message
    assert "quizzer/core" in problems[0].message


def test_a_calculators_step_in_notation_is_no_finding(tmp_path: Path) -> None:
    """embedding_params' step reads "vocab_size × d_model": notation."""
    _, problems = _calc(
        tmp_path,
        prompt="Vocabulary {v}, width {d}: embedding parameters?",
        variables="v = { choices = [32000] }\nd = { choices = [4096] }",
        expr="embedding_params(v, d)",
        unit="params",
    )
    assert problems == []


def _model(tmp_path: Path, model: str) -> tuple[str, list[TemplateError]]:
    return _calc(
        tmp_path,
        prompt="How many parameters has {model_title}?",
        variables=f'model = {{ preset = ["{model}"] }}',
        expr="model_params_of(model)",
        unit="params",
    )


def test_a_row_naming_k_while_it_shows_the_expert_count_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's "router + (k + shared) × expert" on Mixtral's row of all experts (no shared expert
    there: "router + k × expert"), planted back: it shows
    8 (the experts) under the name k (Mixtral routes each token to 2). The core now writes n_experts there."""
    assert _model(tmp_path, "mixtral-8x7b")[1] == []
    real = Trace.step

    def planted(self: Trace, label: str, formula: str, *args: Any, **kwargs: Any) -> Any:
        return real(self, label, formula.replace("router + n_experts ×", "router + k ×"), *args, **kwargs)

    monkeypatch.setattr(Trace, "step", planted)
    forget()  # the calculators remember their results: let them compute again with the planted step
    path, problems = _model(tmp_path, "mixtral-8x7b")
    assert [(p.path, p.field) for p in problems] == [(path, "answer.expr")]
    message = problems[0].message
    assert "'MoE MLP, all experts'" in message
    assert "'router + k × expert'" in message
    assert "'k' names the model's experts_per_token (2)" in message


def test_a_dense_models_rows_name_what_they_show(tmp_path: Path) -> None:
    assert _model(tmp_path, "llama-3-8b")[1] == []
