"""BrowseScreen: the bank by topic, searchable; preview an instance with any seed and drill it."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, Markdown, OptionList, Static
from textual.widgets.option_list import Option

from quizzer.bank.generate.render import generate
from quizzer.bank.loader import Bank
from quizzer.bank.read.schema import Template
from quizzer.core.errors import QuizzerError
from quizzer.tui.messages import StartMode
from quizzer.tui.widgets.lines import line, md_escape, meta_line
from quizzer.tui.widgets.teaching import question_markdown


def matches(template: Template, query: str) -> bool:
    """Every word of ``query`` appears in the id, title, topic, difficulty or tags."""
    haystack = " ".join(
        [template.id, template.title, template.topic, template.difficulty, *template.tags]
    ).lower()
    return all(word in haystack for word in query.lower().split())


class BrowseScreen(Screen[None]):
    """Browse and preview templates."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "drill", "Drill this", id="browse-drill"),
        Binding("slash", "search", "Search", id="browse-search"),
        Binding("question_mark", "app.help", "Help", id="browse-help"),
        Binding("escape", "back", "Back", id="browse-back"),
        Binding("q", "back", "Back", show=False, id="browse-q"),
    ]

    def __init__(self, bank: Bank, seed: int) -> None:
        super().__init__()
        self.bank = bank
        self.seed = seed
        self.selected: Template | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="browse"):
            with Vertical(id="browse-list"):
                yield Input(placeholder="search: id, title, topic, tag", id="browse-query", max_length=100)
                yield OptionList(id="templates")
            with Vertical(id="browse-preview"):
                with Horizontal(id="preview-bar"):
                    yield Static("seed", id="seed-label")
                    # Not type="integer": its pattern backtracks for seconds on a long pasted number.
                    yield Input(str(self.seed), id="seed-input", restrict=r"[0-9]*", max_length=12)
                yield Static(id="preview-meta")
                with VerticalScroll(id="preview-body"):
                    yield Markdown(id="preview")
        yield Footer()

    def on_mount(self) -> None:
        self.fill("")
        self.query_one("#templates", OptionList).focus()

    def fill(self, query: str) -> None:
        options: list[Option | None] = []
        topic = None
        for template in sorted(self.bank.templates(), key=lambda t: (t.topic, t.difficulty, t.id)):
            if not matches(template, query):
                continue
            if template.topic != topic:
                if topic is not None:
                    options.append(None)
                topic = template.topic
                options.append(Option(line((topic, "bold")), id=f"topic:{topic}", disabled=True))
            options.append(
                Option(line(f"  {template.title}  ", (template.difficulty, "dim")), id=template.id)
            )
        listing = self.query_one("#templates", OptionList)
        listing.clear_options()
        listing.add_options(options)
        if not any(o is not None and not o.disabled for o in options):
            self.query_one("#preview", Markdown).update(f"No template matches *{md_escape(query)}*.")

    @on(Input.Changed, "#browse-query")
    def search(self, event: Input.Changed) -> None:
        self.fill(event.value)

    @on(Input.Submitted, "#browse-query")
    def to_list(self) -> None:
        self.query_one("#templates", OptionList).focus()

    @on(OptionList.OptionHighlighted, "#templates")
    def highlight(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id and not event.option.id.startswith("topic:"):
            self.selected = self.bank.get(event.option.id)
            self.preview()

    @on(OptionList.OptionSelected, "#templates")
    def select(self, event: OptionList.OptionSelected) -> None:
        self.action_drill()

    @on(Input.Changed, "#seed-input")
    def reseed(self, event: Input.Changed) -> None:
        if event.value.isdigit():
            self.seed = int(event.value)
            self.preview()

    def preview(self) -> None:
        if self.selected is None:
            return
        try:
            instance = generate(self.selected, self.seed)
        except QuizzerError as exc:  # a pack template that cannot pose this seed: say so, keep browsing
            self.query_one("#preview-meta", Static).update(line((self.selected.title, "bold")))
            self.query_one("#preview", Markdown).update(md_escape(f"This template cannot be posed: {exc}"))
            return
        self.query_one("#preview-meta", Static).update(meta_line(instance, kind=True))
        self.query_one("#preview", Markdown).update(
            question_markdown(instance) + "\n\n*d: drill this template*"
        )

    def action_drill(self) -> None:
        """Drill the previewed instance: template#seed first, as shown."""
        if self.selected is not None:
            self.post_message(StartMode("drill", template_id=self.selected.id, seed=self.seed))

    def action_search(self) -> None:
        self.query_one("#browse-query", Input).focus()

    def action_back(self) -> None:
        if self.query_one("#browse-query", Input).has_focus:
            self.query_one("#templates", OptionList).focus()
        else:
            self.dismiss()
