"""HelpModal: the keys, and how answers are read."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

HELP = """
## Keys

| where | key | does |
|---|---|---|
| everywhere | `ctrl+p` | command palette: drill, mock, study, stats, browse, drill one topic, theme |
| everywhere | `f1` / `?` | this help · `ctrl+q` quits |
| home | `d` `m` `s` `b` `t` | drill (with the filters) / mock / study / browse / stats |
| drill | `enter` | grade the answer |
| drill | `escape` | leave the answer box, so single keys work |
| drill | `n` / `r` / `s` | next question / the same one again / skip |
| drill | `h` | hint: the next step of the derivation (counted) |
| drill | `/` or a digit | back into the answer box |
| drill, browse | `q` / `escape` | back |
| browse | `/` search · `d` or `enter` drill the template · `tab` to the seed |
| mock | `enter` | save the answer (read, not graded) and go to the next unanswered question |
| mock | `↑` / `↓` | the previous / next question (answers can be changed until you submit) |
| mock | `ctrl+s` / `escape` | submit (twice if some are unanswered); the report follows |
| study | `enter` · `h` · `s` | grade · hint · skip (rated *again*) |
| study | `1` `2` `3` `4` | change the proposed rating: again / hard / good / easy |
| study | `n` · `q` | commit the rating and go on · leave (a graded review is committed) |

## Answers

Write them as you would say them: `16,384,000`, `16.4M`, `1.6384e7`, `1.6×10^7`, `2^24`,
`16.384 million`, `~15.6 GiB`, `3e23 FLOPs`, `312 TFLOP/s`, `2.1 ms`, `44 days`, `40%`, `32000*512`.
For bytes, `B` is bytes and GB/GiB are 10⁹/2³⁰; for counts, `B` is a billion. The line above the box
shows how your answer is read before you press enter. A number with no unit means the question's unit.

Verdicts: **exact**, **correct** (inside the tolerance), **close**, **wrong**; a wrong answer that
matches a known slip says which one.
"""


class HelpModal(ModalScreen[None]):
    """Keys and answer formats."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="help-close"),
        Binding("question_mark", "close", "Close", show=False, id="help-close-q"),
        Binding("f1", "close", "Close", show=False, id="help-close-f1"),
        Binding("q", "close", "Close", show=False, id="help-close-letter"),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Markdown(HELP, id="help-text")

    def action_close(self) -> None:
        self.dismiss()
