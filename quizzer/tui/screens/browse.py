"""BrowseScreen: the bank by topic, searched as you type; preview an instance with any seed and drill it."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Input, Markdown, OptionList, Static
from textual.widgets.option_list import Option

from quizzer.bank.generate.render import generate
from quizzer.bank.loader import Bank
from quizzer.bank.read.schema import Template
from quizzer.core.errors import QuizzerError
from quizzer.tui.messages import StartMode
from quizzer.tui.widgets.key_footer import KeyFooter
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
        # a priority: "/" (a habit) in the empty search box stays in it, not typed (in a search, typed)
        Binding("slash", "search", "Search", id="browse-search", priority=True),
        # ↓ in the search box (its own scroll_down skips: one line) moves into the results, as enter does
        Binding("down", "results", "Into the results", show=False, id="browse-results"),
        # in the search box "?" is typed, as in any text box: f1 is Help there
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
        yield KeyFooter()

    def on_mount(self) -> None:
        self.fill("")
        self.query_one("#browse-query", Input).focus()  # typing searches at once (d and q are typed)

    def fill(self, query: str) -> None:
        """List the templates ``query`` matches by topic, the first highlighted and previewed."""
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
        listing.action_first()  # its highlight previews it (OptionHighlighted)
        if listing.highlighted is None:
            self.selected = None
            self.query_one("#preview-meta", Static).update("")
            self.query_one("#preview", Markdown).update(f"No template matches *{md_escape(query)}*.")

    @on(Input.Changed, "#browse-query")
    def search(self, event: Input.Changed) -> None:
        self.fill(event.value)

    @on(Input.Submitted, "#browse-query")
    def to_list(self) -> None:
        self.action_results()

    @on(OptionList.OptionHighlighted, "#templates")
    def highlight(self, event: OptionList.OptionHighlighted) -> None:
        """Preview the highlighted template (not again when a search keeps the same one first). A highlight
        of a list a later keystroke has replaced is stale: typing "zz" fast left "z"'s first match in the
        preview under "No template matches"."""
        listing = self.query_one("#templates", OptionList)
        current = listing.highlighted
        if current is None or listing.get_option_at_index(current).id != event.option.id:
            return
        if event.option.id and not event.option.id.startswith("topic:"):
            template = self.bank.get(event.option.id)
            if template is not self.selected:
                self.selected = template
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
        """Go to the search box; in a search already typed, "/" is typed (a title may have one)."""
        search = self.query_one("#browse-query", Input)
        if search.has_focus and search.value:
            search.insert_text_at_cursor("/")
        else:
            search.focus()

    def action_results(self) -> None:
        """Move into the results, on the first one (the one previewed) unless one is highlighted."""
        listing = self.query_one("#templates", OptionList)
        if listing.highlighted is None:
            listing.action_first()
        listing.focus()

    def action_back(self) -> None:
        """Leave Browse; from the search box with a search typed, go to its results first."""
        search = self.query_one("#browse-query", Input)
        if search.has_focus and search.value:
            self.action_results()
        else:
            self.dismiss()
