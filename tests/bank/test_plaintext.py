"""Markdown to plain text for `show` and `plain`: no markup left, tables aligned, prose kept."""

from __future__ import annotations

from quizzer.bank.generate.plaintext import inline_text, markdown_to_text


def test_inline_markup_is_dropped() -> None:
    assert inline_text("**Bold.** Then *italic* and `code`, __strong__ and _em_.") == (
        "Bold. Then italic and code, strong and em."
    )
    assert inline_text("[GQA](https://arxiv.org/abs/2305.13245)") == "GQA (https://arxiv.org/abs/2305.13245)"
    assert inline_text(r"a \* b \_ c \| d") == "a * b _ c | d"


def test_identifiers_and_arithmetic_survive() -> None:
    text = "n_kv_heads × head_dim, 2 * 3 * 4, W_k and W_v, a*b"
    assert inline_text(text) == text


def test_code_spans_keep_their_stars() -> None:
    assert inline_text("`a *b* c` and *x*") == "a *b* c and x"


def test_bold_across_a_line_break() -> None:
    assert markdown_to_text("**two\nlines** and more") == "two\nlines and more"


def test_headings_bullets_quotes_rules_and_fences() -> None:
    text = "# Title\n## Sub ##\n\n* one\n  - two\n+ three\n\n> quoted **x**\n\n---\n\n```\nraw **x**\n```"
    assert markdown_to_text(text).split("\n") == [
        "Title",
        "Sub",
        "",
        "- one",
        "  - two",
        "- three",
        "",
        "  quoted x",
        "",
        "-" * 20,
        "",
        "    raw **x**",
    ]


def test_tables_are_aligned_and_unescaped() -> None:
    table = (
        "| Step | Formula | Result |\n|---|:---:|---:|\n| **A** | `a \\| b` | 10 bytes |\n| Longer | c | 2 |"
    )
    lines = markdown_to_text(table).split("\n")
    assert lines == [
        "Step    Formula  Result",
        "------  -------  --------",
        "A       a | b    10 bytes",
        "Longer  c               2",
    ]


def test_prose_is_kept_line_for_line() -> None:
    text = "First line\nsecond line.\n\nNew paragraph."
    assert markdown_to_text(text) == text


def test_hostile_runs_of_markers_finish() -> None:
    # Each pattern stops at its own marker: long runs of unmatched markers stay linear (no time asserted;
    # a quadratic renderer would not finish here).
    for marker in ("*", "**", "_", " _", "`", "``", "[", "](", "[a](", "|", "\\", "*a ", "__"):
        for text in (("a" + marker) * 50_000, marker * 100_000):
            assert isinstance(markdown_to_text(text), str)
