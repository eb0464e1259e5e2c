"""The giveaway lint (#25): no text shown before a part is answered holds its answer or a later part's.

Each pack is solved by hand in its comment: the answers, and which number of which text gives one away.
"""

from __future__ import annotations

from pathlib import Path

from quizzer.bank.check.registry import chosen
from quizzer.bank.check.run import check_template
from quizzer.bank.errors import TemplateError
from quizzer.bank.loader import load_bank

HEAD = """
[[template]]
id = "give"
title = "Giveaway fixture"
topic = "fixtures"
difficulty = "easy"
minutes = 2
kind = "{kind}"
explanation = "{{derivation}}"
tldr = "{tldr}"
"""


def _findings(tmp_path: Path, body: str, tldr: str = "{answer}.", kind: str = "exact") -> list[TemplateError]:
    path = tmp_path / "pack.toml"
    path.write_text(HEAD.format(kind=kind, tldr=tldr) + body, encoding="utf-8")
    bank = load_bank([str(path)])
    assert bank.problems() == []
    problems, count = check_template(bank.get("give"), range(2), lints=chosen(only=("giveaway",)))
    assert count == 2
    for problem in problems:  # every finding names the file and the template
        assert (problem.path, problem.template_id) == (str(path), "give")
    return problems


#: A 12 × 12 grid: 144 cells (an exact count). The prompt states 12 and 12; anything else is planted.
GRID = """
prompt = "A grid has {{rows}} rows and {{cols}} columns. How many cells does it have?"
conventions = [{convention}]
nudges = [{nudge}]
[template.variables]
rows = {{ choices = [12] }}
cols = {{ choices = [12] }}
[template.answer]
expr = "rows * cols"
unit = "count"
tolerance = {{ rel = {rel} }}

[[template.mistakes]]
name = "added"
title = "{title}"
answer = "rows + cols"
feedback = "You added them: the grid has 12 × 12 = 144 cells, not 24."
"""


def _grid(
    convention: str = '"Every cell counts once."',
    nudge: str = '"How many cells does one row hold?"',
    title: str = "Rows added to columns",
    rel: float = 0.01,
) -> str:
    return GRID.format(convention=convention, nudge=nudge, title=title, rel=rel)


def test_a_clean_grid_has_no_finding(tmp_path: Path) -> None:
    """The prompt states only the givens; the feedback's "12 × 12 = 144" is hidden in Common mistakes."""
    assert _findings(tmp_path, _grid()) == []


def test_a_number_the_prompt_states_is_a_given_not_a_giveaway(tmp_path: Path) -> None:
    """144 rows of 1 cell: the answer, 144, is a given of the prompt; repeating it tells nothing new (a
    question whose answer it states is the degeneracy lint's). So is a product of givens in the prompt."""
    given = _grid(nudge='"Each of the 144 rows holds one cell."', rel=0.001)
    given = given.replace("[12] }\ncols = { choices = [12]", "[144] }\ncols = { choices = [1]")
    assert _findings(tmp_path, given) == []
    square = _grid().replace("A grid has {rows} rows and {cols} columns.", "A {rows} × {cols} grid.")
    assert _findings(tmp_path, square) == []


def test_a_convention_that_states_the_answer_is_named(tmp_path: Path) -> None:
    (problem,) = _findings(tmp_path, _grid(convention='"A square grid of 144 cells is typical."'))
    assert problem.field == "conventions[0]"
    assert problem.message.startswith(
        "seed 0: convention 1 shows '144', which grades exact as the answer (144)"
    )
    assert "before answering" in problem.message


def test_a_product_written_out_that_equals_the_answer_is_named(tmp_path: Path) -> None:
    """No number of "Is it 12 × 12?" is the answer; the product is."""
    (problem,) = _findings(tmp_path, _grid(nudge='"Is it 12 × 12?"'))
    assert problem.field == "nudges[0]"
    assert "nudge 1 shows '12 × 12', which grades exact as the answer" in problem.message
    assert "reword it" in problem.message


def test_a_mistake_is_read_after_answering_so_its_numbers_are_no_giveaway(tmp_path: Path) -> None:
    """The Common mistakes section (title and feedback) is shown with the answer, never before it."""
    assert _findings(tmp_path, _grid(title="Added, not the 144 cells")) == []


def test_a_number_in_a_name_is_no_number(tmp_path: Path) -> None:
    """144 as a dtype width, a model name, a range or a coefficient of a symbol gives nothing away."""
    names = '"Cells are 144-bit words of a GPT-144, 144-200 of them on a good day, 144·N for N grids."'
    assert _findings(tmp_path, _grid(convention=names)) == []


#: 1,234 rows of 7 cells: 8,638 cells, within 0.01%: the band asks for every figure. "8.64 thousand"
#: is the answer rounded to the three figures it is written with (0.02% off); "8.6 thousand" to two.
ROWS = GRID.replace(
    "choices = [12] }}\ncols = {{ choices = [12]", "choices = [1234] }}\ncols = {{ choices = [7]"
)


def test_a_rounding_that_gives_three_figures_of_a_precise_answer_is_named(tmp_path: Path) -> None:
    convention = '"Grids this size have about {n} thousand cells."'
    body = ROWS.format(convention=convention, nudge='"Rows?"', title="Added", rel=0.0001)
    (problem,) = _findings(tmp_path, body.replace("{n}", "8.64"))
    assert problem.field == "conventions[0]"
    assert "'8.64 thousand', which gives it to the figures written" in problem.message
    assert _findings(tmp_path, body.replace("{n}", "8.6")) == []


#: An estimate (factor 2): 144 cells. A number inside the factor band reads as its answer only within 5%.
def test_an_estimate_is_given_away_only_by_a_number_near_its_answer(tmp_path: Path) -> None:
    body = _grid(convention='"Expect about {n} cells."').replace("rel = 0.01", "factor = 2")
    near = _findings(tmp_path, body.replace("{n}", "141"), kind="estimate")
    assert [p.field for p in near] == ["conventions[0]"]
    assert "'141', which grades correct" in near[0].message
    assert _findings(tmp_path, body.replace("{n}", "100"), kind="estimate") == []  # inside 2x, not near


#: 17 rows of 2 cells: 34 cells. "34" is in many a text (Korthikanti's 34 bytes per token and width); a
#: count of two figures, bare or counting something, reads as no count's answer. 171 × 2 = 342 does.
def test_a_count_of_two_figures_in_prose_is_no_giveaway_one_of_three_is(tmp_path: Path) -> None:
    body = _grid(convention='"The classic constant is {n}, as in {n} width-sized tensors."', rel=0.001)
    short = body.replace("{n}", "34").replace(
        "[12] }\ncols = { choices = [12]", "[17] }\ncols = { choices = [2]"
    )
    assert _findings(tmp_path, short) == []
    long = body.replace("{n}", "342").replace(
        "[12] }\ncols = { choices = [12]", "[171] }\ncols = { choices = [2]"
    )
    assert [p.field for p in _findings(tmp_path, long)] == ["conventions[0]"]


#: A share: 3 of 4 bytes saved, 75%. "25% is what remains" gives it as the rest of 100%.
SHARE = """
prompt = "A value shrinks from {{before}} bytes to {{after}}. What share of its memory is saved? Answer in %."
conventions = ["{convention}"]
[template.variables]
before = {{ choices = [4] }}
after = {{ choices = [1] }}
[template.answer]
expr = "(before - after) / before"
unit = "ratio"
display = "%"
"""


def test_the_rest_of_a_share_gives_the_share_away(tmp_path: Path) -> None:
    (problem,) = _findings(tmp_path, SHARE.format(convention="25% of it is what remains."))
    assert problem.field == "conventions[0]"
    assert "'25%', which gives it as what is left of 100%" in problem.message
    assert _findings(tmp_path, SHARE.format(convention="Count the bytes, not the bits.")) == []


#: A chain. Part 1: a 4,000 × 3 = 12,000-byte buffer; part 2: copied 7 times, 84,000 bytes.
CHAIN = """
prompt = "A buffer holds {{rows:count}} rows of {{width}} bytes. How many bytes is it?"
[template.variables]
rows = {{ choices = [4000] }}
width = {{ choices = [3] }}
total = {{ expr = "rows * width" }}
copies = {{ choices = [7] }}
[template.answer]
expr = "rows * width"
unit = "bytes"

[[template.parts]]
prompt = "{prompt2}"
explanation = "{{derivation}}"
answer = {{ expr = "part1 * copies", unit = "bytes" }}
"""


def _chain(tmp_path: Path, prompt2: str, tldr: str = "{answer}.") -> list[TemplateError]:
    return _findings(tmp_path, CHAIN.format(prompt2=prompt2), tldr=tldr)


def test_a_clean_chain_has_no_finding(tmp_path: Path) -> None:
    assert _chain(tmp_path, "The buffer of {part1} is copied {copies} times. How many bytes in all?") == []


def test_a_later_prompt_printing_an_earlier_answer_from_a_variable_is_named(tmp_path: Path) -> None:
    """{total} is part 1's answer under another name: `show --no-answer` prints it, unmasked."""
    (problem,) = _chain(tmp_path, "The buffer of {total:count} bytes is copied {copies} times. In all?")
    assert problem.field == "parts[0].prompt"
    assert "part 2's prompt as `show --no-answer` prints it shows '12,000 bytes'" in problem.message
    assert "as part 1's answer (12,000 bytes" in problem.message
    assert "before part 1 is answered" in problem.message
    assert "{part1}" in problem.message  # the fix: print it through the earlier answer


def test_an_earlier_parts_tldr_that_gives_a_later_answer_is_named(tmp_path: Path) -> None:
    prompt2 = "The buffer of {part1} is copied {copies} times. How many bytes in all?"
    (problem,) = _chain(tmp_path, prompt2, tldr="{answer}; its 7 copies take 84,000 bytes.")
    assert problem.field == "tldr"
    assert "part 1's TL;DR, shown once part 1 is answered shows '84,000 bytes'" in problem.message
    assert "as part 2's answer" in problem.message
    assert "before part 2 is answered" in problem.message


def test_an_answered_parts_own_answer_is_left_to_the_degeneracy_lint(tmp_path: Path) -> None:
    """Copied once, part 2 equals part 1: part 1's TL;DR shows both, and that is no giveaway here."""
    body = CHAIN.format(prompt2="The buffer of {part1} is copied {copies} time. In all?")
    body = body.replace("choices = [7]", "choices = [1]")
    assert _findings(tmp_path, body, tldr="{answer}, copied once: 12,000 bytes.") == []


#: Part 1: a KV cache of 2 (K, V) × 4 layers × 2 heads × 64 × 2 bytes = 2,048 bytes per token, × 1,000
#: tokens = 2,048,000 bytes. Part 2 asks the bytes of one token: part 1's first hint (its derivation's
#: first step) prints 2,048 bytes.
KV = """
prompt = "A cache has 4 layers, 2 KV heads of dim 64 in bf16, and {{tokens:count}} tokens. Its bytes?"
[template.variables]
tokens = {{ choices = [1000] }}
[template.answer]
expr = "kv_cache_bytes(4, 2, 64, tokens, 1, 'bf16')"
unit = "bytes"

[[template.parts]]
prompt = "{prompt2}"
explanation = "{{derivation}}"
carry = false
answer = {{ expr = "{answer2}", unit = "bytes" }}
"""


def test_a_hint_that_shows_a_later_parts_answer_is_named(tmp_path: Path) -> None:
    body = KV.format(prompt2="How many bytes does one token take?", answer2="part1 / tokens")
    (problem,) = _findings(tmp_path, body)
    assert problem.field == "answer.expr"
    assert "hint 1 of part 1 (its derivation) shows" in problem.message
    assert "as part 2's answer (2,048 bytes" in problem.message
    clean = KV.format(prompt2="How many bytes do two sequences take?", answer2="2 * part1")
    assert _findings(tmp_path, clean) == []


#: 1,029 = 147 × 7 cells: "1,024" (a KiB, a block of tokens) is a constant of every text, no answer of
#: this one within its band; it is the answer where the grid is 128 × 8.
def test_a_constant_counts_only_as_the_exact_answer(tmp_path: Path) -> None:
    body = _grid(convention='"Blocks hold 1,024 tokens."', rel=0.01)
    near = body.replace("[12] }\ncols = { choices = [12]", "[147] }\ncols = { choices = [7]")
    assert _findings(tmp_path, near) == []
    exact = body.replace("[12] }\ncols = { choices = [12]", "[128] }\ncols = { choices = [8]")
    assert [p.field for p in _findings(tmp_path, exact)] == ["conventions[0]"]


def test_a_given_restated_in_another_form_is_still_a_given(tmp_path: Path) -> None:
    """4 bytes to 2: half is saved, 50%. Where the prompt states an MFU of 0.5, "50%" restates a given;
    where it does not, "50%" is the answer."""
    body = SHARE.format(convention="An MFU of 50% is typical.").replace("[1]", "[2]")
    assert [p.field for p in _findings(tmp_path, body)] == ["conventions[0]"]
    stated = body.replace("What share", "It runs at an MFU of 0.5. What share")
    assert _findings(tmp_path, stated) == []


#: 20 requests over 2 workers: a ratio of 10. "10 requests/s" counts requests, not the ratio; "10 times"
#: states it.
RATIO = """
prompt = "{{total}} requests arrive per second and a worker serves {{each}}. How many times more is that?"
conventions = ["{convention}"]
[template.variables]
total = {{ choices = [20] }}
each = {{ choices = [2] }}
[template.answer]
expr = "total / each"
unit = "ratio"
"""


def test_a_ratio_is_given_away_by_a_ratio_not_by_a_count_of_something(tmp_path: Path) -> None:
    assert _findings(tmp_path, RATIO.format(convention="A decode worker takes 10 requests.")) == []
    (problem,) = _findings(tmp_path, RATIO.format(convention="Prefill is often 10 times faster."))
    assert "'10 times', which grades exact as the answer" in problem.message
