"""HelpModal: the current screen's keys first, then every other screen's (from their bindings), and how
answers are read."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widgets import Static

from quizzer.tui.widgets.cached import CachedRenderable
from quizzer.tui.widgets.lines import md_escape

ANSWERS = """
## Answers

Write them as you would say them: `16,384,000`, `16.4M`, `1.6384e7`, `1.6×10^7`, `2^24`,
`16.384 million`, `~15.6 GiB`, `3e23 FLOPs`, `312 TFLOP/s`, `2.1 ms`, `44 days`, `40%`, `32000*512`.
For bytes, `B` is bytes and GB/GiB are 10⁹/2³⁰; for counts, `B` is a billion. The line above the box
shows how your answer is read before you press enter. A number with no unit means the question's unit.
Typing a digit outside the box jumps back into it.

Verdicts: **exact**, **correct** (inside the band the question states), **imprecise** (right to the
figures you typed, but the question needs more), **close**, **wrong**; a wrong answer that matches a
known slip says which one. Hints give nudges first, then the derivation, never the final answer.
"""

#: Keys that belong to the app, not to a screen's bindings: (binding id or None, keys shown, what they do).
APP_KEYS = (
    (None, "ctrl+p", "command palette: modes, drill one topic, copy the instance id, theme"),
    ("help", "f1 / ?", "this help"),
    ("quit", "ctrl+q", "quit (a running mock asks first)"),
)


def key_table(
    screens: Sequence[tuple[str, Sequence[BindingType]]],
    key_display: Callable[[str], str],
    keymap: Mapping[str, str] | None = None,
    *,
    everywhere: bool = True,
) -> str:
    """The Markdown table of ``screens``' keys (then the app's, unless not ``everywhere``), one row per
    binding that has a description; a binding whose id ``keymap`` (config.toml's [keymap]) remaps shows the
    keys it has now."""
    keymap = keymap or {}

    def keys_of(binding_id: str | None, keys: str) -> str:
        return " / ".join(key_display(k.strip()) for k in keymap.get(binding_id or "", keys).split(","))

    rows = ["| where | key | does |", "|---|---|---|"]
    for where, bindings in screens:
        for binding in bindings:
            if not isinstance(binding, Binding) or not binding.description:
                continue
            rows.append(
                f"| {where} | `{keys_of(binding.id, binding.key)}` | {md_escape(binding.description)} |"
            )
    for binding_id, keys, does in APP_KEYS if everywhere else ():
        shown = keys_of(binding_id, keys) if binding_id in keymap else keys
        rows.append(f"| everywhere | `{shown}` | {md_escape(does)} |")
    return "\n".join(rows)


def screen_bindings() -> list[tuple[str, Sequence[BindingType]]]:
    """Each screen's name and bindings, in Help's order."""
    return [(name, owner.BINDINGS) for name, owner in _owners()]


def sections_of(screen: DOMNode) -> tuple[str, ...]:
    """The names of Help's sections for ``screen``: its own keys, then a question's if it shows one."""
    from quizzer.tui.widgets.question_panel import QuestionPanel

    own = [name for name, owner in _owners() if owner is not QuestionPanel and isinstance(screen, owner)]
    if own and screen.query(QuestionPanel):
        own.append("any question")
    return tuple(own)


def _owners() -> list[tuple[str, type[DOMNode]]]:
    """Each screen's name and class (the question panel's too), in Help's order (imported when first
    needed)."""
    from quizzer.tui.screens.browse import BrowseScreen
    from quizzer.tui.screens.drill import DrillScreen
    from quizzer.tui.screens.home import HomeScreen
    from quizzer.tui.screens.interview import InterviewScreen
    from quizzer.tui.screens.mock import MockScreen
    from quizzer.tui.screens.mock_report import MockReportScreen
    from quizzer.tui.screens.mock_start import MockStartScreen
    from quizzer.tui.screens.past_mocks import PastMocksScreen
    from quizzer.tui.screens.stats import StatsScreen
    from quizzer.tui.screens.study import StudyScreen
    from quizzer.tui.widgets.question_panel import QuestionPanel

    return [
        ("home", HomeScreen),
        ("any question", QuestionPanel),
        ("drill", DrillScreen),
        ("study", StudyScreen),
        ("mock start", MockStartScreen),
        ("mock", MockScreen),
        ("mock report", MockReportScreen),
        ("interviewer", InterviewScreen),
        ("browse", BrowseScreen),
        ("stats", StatsScreen),
        ("past mocks", PastMocksScreen),
    ]


def binding_ids(*more: Sequence[BindingType]) -> set[str]:
    """Every binding id of the screens, the modals and ``more`` (the app's): what [keymap] may name."""
    from quizzer.tui.screens.confirm import ConfirmModal
    from quizzer.tui.screens.date_pick import DateModal
    from quizzer.tui.screens.model_pick import ModelPickModal

    groups = [bindings for _, bindings in screen_bindings()]
    groups += [HelpModal.BINDINGS, ConfirmModal.BINDINGS, ModelPickModal.BINDINGS, DateModal.BINDINGS, *more]
    return {b.id for group in groups for b in group if isinstance(b, Binding) and b.id}


class HelpModal(ModalScreen[None]):
    """Keys and answer formats."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="help-close"),
        Binding("question_mark", "close", "Close", show=False, id="help-close-q"),
        Binding("f1", "close", "Close", show=False, id="help-close-f1"),
        Binding("q", "close", "Close", show=False, id="help-close-letter"),
    ]

    def __init__(self, keymap: Mapping[str, str] | None = None, here: Sequence[str] = ()) -> None:
        super().__init__()
        #: config.toml's [keymap] (binding id -> keys): the table shows the keys the bindings have now.
        self.keymap = dict(keymap or {})
        #: The sections of the screen Help was opened on (``sections_of``): shown first, with the app's keys.
        self.here = tuple(here)

    #: The Markdown shown (the key table as the keymap makes it, then how answers are read).
    source: str = ""

    def compose(self) -> ComposeResult:
        from rich.markdown import Markdown as RichMarkdown

        self.source = self.keys_source() + "\n" + ANSWERS
        # one rendered block, not Textual's Markdown widget: its table of ~60 rows is ~190 widgets, 0.7 s
        with VerticalScroll(id="help", can_focus=True):
            yield Static(CachedRenderable(RichMarkdown(self.source, hyperlinks=False)), id="help-text")

    def keys_source(self) -> str:
        """The keys of the screen below first (with the app's), then the other screens'; without a known
        screen below, one table of them all."""
        shown = lambda key: self.app.get_key_display(Binding(key, ""))  # noqa: E731
        sections = dict(screen_bindings())
        mine = [(name, sections[name]) for name in self.here if name in sections]
        if not mine:
            return "## Keys\n\n" + key_table(list(sections.items()), shown, self.keymap)
        others = [(name, bindings) for name, bindings in sections.items() if name not in self.here]
        return (
            f"## Keys here: {md_escape(self.here[0])}\n\n"
            + key_table(mine, shown, self.keymap)
            + "\n\n## Keys on the other screens\n\n"
            + key_table(others, shown, self.keymap, everywhere=False)
        )

    def action_close(self) -> None:
        self.dismiss()
