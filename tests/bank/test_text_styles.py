"""Placeholder styles for words: plural(...), ordinal and share, and their validation."""

from __future__ import annotations

import pytest

from quizzer.bank.expr.text import TextError, format_value, render_text, style_problem


@pytest.mark.parametrize(
    ("value", "style", "shown"),
    [
        (1, "plural(layer)", "1 layer"),
        (1.0, "plural(layer)", "1 layer"),
        (3, "plural(layer)", "3 layers"),
        (0, "plural(layer)", "0 layers"),
        (0.5, "plural(bit)", "0.5 bits"),
        (2, "plural(batch)", "2 batches"),
        (2, "plural(copy)", "2 copies"),
        (2, "plural(day)", "2 days"),
        (32000, "plural(token)", "32,000 tokens"),
        (8, "plural(KV head)", "8 KV heads"),
        (1, "plural(matrix|matrices)", "1 matrix"),
        (4, "plural(matrix|matrices)", "4 matrices"),
    ],
)
def test_plural(value: float, style: str, shown: str) -> None:
    assert format_value(value, style) == shown


@pytest.mark.parametrize(
    ("n", "shown"),
    [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"), (13, "13th"),
     (21, "21st"), (22, "22nd"), (23, "23rd"), (101, "101st"), (111, "111th"), (1002, "1,002nd")],
)  # fmt: skip
def test_ordinal(n: int, shown: str) -> None:
    assert format_value(n, "ordinal") == shown


def test_share() -> None:
    assert format_value(2, "share") == "a 1/2 share"
    assert format_value(8.0, "share") == "a 1/8 share"
    assert format_value(1, "share") == "the whole"


@pytest.mark.parametrize(
    ("style", "value"), [("ordinal", 2.5), ("ordinal", 0), ("share", -1), ("share", 0.5)]
)
def test_ordinal_and_share_need_a_whole_number(style: str, value: float) -> None:
    with pytest.raises(TextError, match="whole number"):
        format_value(value, style)


@pytest.mark.parametrize("style", ["plural", "plural()", "plural(a|b|c)", "plural(1x)", "plurals(layer)"])
def test_bad_plural_styles_are_named(style: str) -> None:
    problem = style_problem(style)
    assert problem is not None
    assert "plural" in problem


def test_good_styles_pass() -> None:
    for style in ("ordinal", "share", "plural(layer)", "plural(KV head)", "plural(matrix|matrices)", "si"):
        assert style_problem(style) is None, style


def test_placeholders_with_word_styles_render() -> None:
    text = render_text(
        "{n:plural(layer)}; the {k:ordinal} holds {g:share}; {{literal}}", {"n": 1, "k": 3, "g": 4}, {}
    )
    assert text == "1 layer; the 3rd holds a 1/4 share; {literal}"


def test_an_earlier_answer_shows_in_its_display_form_and_a_styled_one_as_its_value() -> None:
    """``{part1}`` shows part 1's answer as displayed; ``{part1:si}`` formats its value; an escaped
    ``{{part1}}`` stays text; a name without a display shows its value as any placeholder does."""
    from quizzer.bank.expr.text import TextTooLong

    env, displays = {"part1": 16_384_000, "part2": 2048}, {"part1": "16,384,000 params (16.4M)"}
    source = "With {part1} ({part1:si}) and {part2}, not {{part1}}."
    assert render_text(source, env, {}, displays=displays) == (
        "With 16,384,000 params (16.4M) (16.4M) and 2,048, not {part1}."
    )
    assert render_text(source, env, {}) == "With 16,384,000 (16.4M) and 2,048, not {part1}."
    with pytest.raises(TextTooLong):  # the display counts towards the limit
        render_text("{part1}", env, {}, limit=20, displays=displays)


def test_a_number_shown_again_reads_as_it_did_and_alike_numbers_keep_their_own_form() -> None:
    """The texts keep the numbers they have shown: shown again, a number reads as format_value shows it,
    and numbers equal as keys but shown otherwise (0.0 and -0.0, 1 and 1.0 and true) keep their forms."""
    for value in (0.0, -0.0, 1, 1.0, True, 2.5, -2.5, 10**21, 1e-9):
        for style in ("raw", "sci", "si", None, "pct"):
            expected = format_value(value, style)
            source = "{x:" + style + "}" if style else "{x}"
            assert render_text(source, {"x": value}, {}) == expected
            assert render_text(source, {"x": value}, {}) == expected  # shown again: kept
    assert render_text("{x:raw} {y:raw}", {"x": 0.0, "y": -0.0}, {}) == "0.0 -0.0"
    assert render_text("{x:raw} {y:raw} {z}", {"x": 1, "y": 1.0, "z": True}, {}) == "1 1.0 true"


def test_a_text_without_placeholders_reads_its_escaped_braces_as_braces_every_time() -> None:
    """A text with no placeholder is kept as it reads: ``{{`` shows as ``{`` the first time and again, and
    the limit still counts its characters as written."""
    from quizzer.bank.expr.text import TextTooLong

    source = "Write {{d_model}} as a literal; }} closes it."
    for _ in range(3):
        assert render_text(source, {}, {}) == "Write {d_model} as a literal; } closes it."
    assert render_text("no braces at all", {}, {}) == "no braces at all"
    with pytest.raises(TextTooLong):
        render_text(source, {}, {}, limit=len(source) - 1)
