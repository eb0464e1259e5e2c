"""The prompt reader that spares markdown-it reads what it reads as markdown-it does, and leaves the rest."""

from __future__ import annotations

import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st

from quizzer.bank.loader import load_bank
from quizzer.paths import question_paths
from quizzer.tui.widgets.prompt import Block, markdown_blocks
from quizzer.tui.widgets.prompt_reader import quick_blocks
from quizzer.tui.widgets.teaching import part_markdown, question_markdown


def shown(blocks: tuple[Block, ...] | None) -> object:
    """What a terminal shows of ``blocks``: each block's text, spans, bullet and gap."""
    if blocks is None:
        return None
    return [(b.content.plain, list(b.content.spans), b.bullet, b.gap) for b in blocks]


def assert_read_alike(markdown: str) -> bool:
    """``quick_blocks`` gives what markdown-it gives, or leaves the text to it; whether it read it."""
    quick = quick_blocks(markdown)
    if quick is not None:
        assert shown(quick) == shown(markdown_blocks(markdown)), repr(markdown)
    return quick is not None


def test_every_prompt_of_the_bank() -> None:
    bank = load_bank(question_paths())
    read = total = 0
    for template in bank.templates():
        instance = bank.generate(template.id, 1)
        texts = [question_markdown(instance)]
        texts += [part_markdown(instance, n) for n in range(2, instance.part_count + 1)]
        for text in texts:
            total += 1
            read += assert_read_alike(text)
    # most are read here (98% at seed 1; 82% before code spans, config.json and [m, k] were): the rest
    # hold dotted digits (13.8., §3.2.1), a fence or a pipe
    assert read >= total * 9 // 10


PIECES = st.sampled_from(
    [
        *("a", "b", " ", "  ", "\n", "\n\n", "- ", "*", "**", "_", "`", "\\", "\\*", "n_layers", "2*3"),
        *("(", ")", ".", ",", "x.y", "#", "~", "~~", "[x](y)", "&amp;", "1."),
        *("\t", "é", "×", "-", "+", "> ", "|", "\xa0", "“", " *", "* ", "_a_", "`a b``"),
        *("config.json", "a.io", "`a.io`", "13.8.", "www", "3.1", "x.CO", "[m, k]", "[a]: b", "]", "`]`"),
    ]
)


@given(st.lists(PIECES, max_size=24).map("".join))
def test_random_texts(markdown: str) -> None:
    assert_read_alike(markdown)


def test_edges() -> None:
    for markdown, read in [
        ("**Conventions**\n\n- one\n- two", True),
        ("- a\n\n- b", False),  # one loose list for markdown-it
        ("para\n- item", False),  # the item interrupts the paragraph
        ("- item\nlazy", False),  # a lazy continuation of the item
        ("hard  \nbreak", False),
        ("see config.py", False),  # linkify makes it a link
        ("`code` and **bold *nested* text**", True),
        ("2 * 3 and 4 ** 5", True),
        ("its config.json and `torch.optim.Adam`", True),  # no top-level domain of linkify's: text
        ("see a.io, or `a.io`", False),  # .io is one
        ("only `x.io` is code", True),  # linkify never reads a code span
        ("holds **4 params (4M)**.", True),  # a run that may open or close closes the open one
        ("is 13.8. Then", False),  # dotted digits: linkify's pretest for an IP
        ("a www.x host", False),
        ("a matmul [m, k] × [k, n]", True),  # brackets that make no link: text
        ("see [a]\n\n[a]: b", False),  # a reference definition: [a] is a link
        ("see [docs](x) or ![i][j]", False),
    ]:
        assert assert_read_alike(markdown) == read, markdown


def test_a_drill_paints_its_first_prompt_without_markdown_it() -> None:
    """The point of the reader: markdown-it stays out of the first paint (it was ~16 ms of start)."""
    code = (
        "import sys\n"
        "from quizzer.bank.loader import load_bank\n"
        "from quizzer.paths import question_paths\n"
        "from quizzer.tui.widgets.prompt import prompt_blocks\n"
        "from quizzer.tui.widgets.question_panel import QuestionPanel\n"
        "from quizzer.tui.widgets.teaching import question_markdown\n"
        "instance = load_bank(question_paths()).generate('embedding-table-params', 1)\n"
        "assert prompt_blocks(question_markdown(instance))\n"
        "print('markdown_it' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
