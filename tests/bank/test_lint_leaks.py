"""The leaks lint (#25 class 8): a path of quizzer's code a student reads, a reference with no web
address, a follow-up written twice; each planted in a small pack and named."""

from __future__ import annotations

from pathlib import Path

from quizzer.bank.check.registry import chosen
from quizzer.bank.check.run import check_template
from quizzer.bank.errors import TemplateError
from quizzer.bank.loader import load_bank

PACK = """
[[template]]
id = "leak"
title = "Leaks fixture"
topic = "fixtures"
difficulty = "easy"
minutes = 2
kind = "exact"
prompt = "An embedding table of 32,000 tokens × 512: how many parameters?"
explanation = "{{derivation}} {explanation}"
tldr = "{{answer}}."
[template.answer]
expr = "embedding_params(32000, 512)"
unit = "params"

[[template.follow_ups]]
question = "Why tie the head?"
answer = "It saves a table."
{follow_up}
[[template.references]]
title = "{title}"
url = "{url}"
"""


def _findings(tmp_path: Path, **fields: str) -> tuple[str, list[TemplateError]]:
    clean = {
        "explanation": "",
        "follow_up": "",
        "title": "Press and Wolf (2017)",
        "url": "https://arxiv.org/abs/1608.05859",
    }
    path = tmp_path / "pack.toml"
    path.write_text(PACK.format(**{**clean, **fields}), encoding="utf-8")
    bank = load_bank([str(path)])
    assert bank.problems() == []
    problems, _ = check_template(bank.get("leak"), range(2), lints=chosen(only=("leaks",)))
    return str(path), problems


def test_a_clean_template_has_no_finding(tmp_path: Path) -> None:
    assert _findings(tmp_path)[1] == []


def test_a_path_of_the_code_in_a_reference_title_is_named(tmp_path: Path) -> None:
    """The issue's example: a reference citing "quizzer/core/presets.toml"."""
    path, problems = _findings(tmp_path, title="Configs (sources listed in quizzer/core/presets.toml)")
    (problem,) = problems
    assert (problem.path, problem.template_id, problem.field) == (path, "leak", "references[0].title")
    assert "'quizzer/core/presets.toml'" in problem.message


def test_a_path_of_the_code_in_an_explanation_is_named_even_as_code(tmp_path: Path) -> None:
    (problem,) = _findings(tmp_path, explanation="See `questions/README.md`.")[1]
    assert problem.field == "explanation"


def test_another_projects_file_is_a_source(tmp_path: Path) -> None:
    title = "torchvision's vision_transformer.py"
    url = "https://github.com/pytorch/vision/blob/main/torchvision/models/vision_transformer.py"
    assert _findings(tmp_path, title=title, url=url)[1] == []


def test_a_reference_with_no_web_address_is_named(tmp_path: Path) -> None:
    (problem,) = _findings(tmp_path, url="quizzer/core/presets.toml")[1]
    assert problem.field == "references[0].url"
    assert "no web address" in problem.message


def test_a_follow_up_written_twice_is_named(tmp_path: Path) -> None:
    again = '[[template.follow_ups]]\\nquestion = "Why  tie the head?"\\nanswer = "Same."\\n'
    (problem,) = _findings(tmp_path, follow_up=again.replace("\\n", "\n"))[1]
    assert problem.field == "follow_ups[1].question"
    assert "follow_ups[0]" in problem.message
