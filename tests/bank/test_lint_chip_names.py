"""The chip-names lint: telling chips apart by their table key, false for a chip with own figures."""

from __future__ import annotations

from pathlib import Path

from quizzer.bank.check.registry import chosen
from quizzer.bank.check.run import check_template
from quizzer.bank.errors import TemplateError
from quizzer.bank.loader import load_bank

TEMPLATE = """
[[template]]
id = "chips"
title = "Chip-names fixture"
topic = "fixtures"
difficulty = "easy"
minutes = 2
kind = "exact"
explanation = "{{derivation}}"
tldr = "{{answer}}."
prompt = "On a {{gpu_title}} with {{bw}}, how long does reading 1e12 bytes take? Answer in seconds."
[template.variables]
gpu = {{ choices = ["h100-sxm", "a100-80gb"] }}
gpu_title = {{ expr = "{title}" }}
bw = {{ expr = "hbm_bandwidth(gpu)", unit = "bytes/s" }}
[template.answer]
expr = "1e12 / bw"
unit = "s"
"""


def _findings(tmp_path: Path, title: str) -> list[TemplateError]:
    path = tmp_path / "pack.toml"
    path.write_text(TEMPLATE.format(title=title), encoding="utf-8")
    bank = load_bank([str(path)])
    assert bank.problems() == []
    problems, _ = check_template(bank.get("chips"), range(2), lints=chosen(only=("by-name",)))
    return problems


def test_the_trap_is_real(tmp_path: Path) -> None:
    """With own figures the planted title chain falls through to its last branch: the prompt names an A100
    for an H100 given its own bandwidth."""
    path = tmp_path / "pack.toml"
    path.write_text(TEMPLATE.format(title="'H100' if gpu == 'h100-sxm' else 'A100'"), encoding="utf-8")
    instance = load_bank([str(path)]).generate("chips", 1, {"gpu": "h100-sxm", "gpu.hbm_bandwidth": "2e12"})
    assert "A100" in instance.prompt
    assert instance.main.value == 0.5


def test_a_title_chain_by_table_key_is_found(tmp_path: Path) -> None:
    (problem,) = _findings(tmp_path, "'H100' if gpu == 'h100-sxm' else 'A100'")
    assert (problem.template_id, problem.field) == ("chips", "variables.gpu_title.expr")
    assert "chip_title(gpu)" in problem.message


def test_the_key_on_the_left_is_found_too(tmp_path: Path) -> None:
    assert len(_findings(tmp_path, "'A100' if 'a100-80gb' == gpu else 'H100'")) == 1


def test_chip_title_and_chip_base_are_no_finding(tmp_path: Path) -> None:
    assert _findings(tmp_path, "chip_title(gpu)") == []
    assert _findings(tmp_path, "'Hopper' if chip_base(gpu) == 'h100-sxm' else 'Ampere'") == []


def test_the_built_in_bank_compares_no_chip_by_name() -> None:
    from quizzer.paths import question_paths

    bank = load_bank(question_paths())
    found = []
    for template_id in bank.ids():
        problems, _ = check_template(bank.get(template_id), range(1), lints=chosen(only=("by-name",)))
        found += [f"{p.template_id}: {p.field}" for p in problems]
    assert found == []
