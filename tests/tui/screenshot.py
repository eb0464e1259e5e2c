"""`make screenshot`: the README's pictures of a drill's feedback, of a chain in progress and of the
interviewer's screen, and Home's plan toward an interview date (docs/architecture.md), taken by the app itself
(SVGs). `python tests/tui/screenshot.py interview` takes the interviewer's alone."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from snapshot_app import drill_app
from textual.widgets import Input

OUT = Path(__file__).resolve().parents[2] / "docs" / "drill-feedback.svg"
CHAIN_OUT = OUT.with_name("drill-chain.svg")
#: The chain pictured: a template of the built-in bank with parts, and a seed.
CHAIN = ("walkthrough-mla-serving", 3)
PLAN_OUT = OUT.with_name("home-plan.svg")
INTERVIEW_OUT = OUT.with_name("interview.svg")
#: The interview pictured: a chain of the built-in bank whose part 2 carries, then another question.
INTERVIEW = ("training-flops#3", "inference-memory-rule-of-thumb#3")


async def main() -> None:
    app = drill_app()
    async with app.run_test(size=(100, 36)) as pilot:
        await pilot.pause()
        for widget in app.screen.query(Input):
            widget.cursor_blink = False
        wrong = 2 * app.screen.session.instance.value  # type: ignore[attr-defined]
        await pilot.press(*f"{wrong / 1e9:.2f}B", "enter")
        await pilot.pause()
        app.save_screenshot(filename=OUT.name, path=str(OUT.parent))
    print(f"wrote {OUT}")
    await chain()


async def chain() -> None:
    """A chain in progress: part 1 answered wrong (doubled), part 2 consistent with it, part 3 asked."""
    from snapshot_app import FakeClock, FakeWall

    from quizzer.bank.loader import load_bank
    from quizzer.store.history import HistoryStore
    from quizzer.tui.app import DrillOptions, QuizzerApp

    template_id, seed = CHAIN
    from quizzer.paths import questions_dir

    paths = [str(questions_dir())]
    bank = load_bank(paths)
    bank.templates()
    app = QuizzerApp(
        paths,
        drill=DrillOptions(template_id=template_id, seed=seed),
        clock=FakeClock(),
        wall=FakeWall(),
        seed_source=lambda: seed,
        bank=bank,
        store=HistoryStore.memory(),
    )
    async with app.run_test(size=(100, 36)) as pilot:
        await pilot.pause()
        for widget in app.screen.query(Input):
            widget.cursor_blink = False
        session = app.screen.session  # type: ignore[attr-defined]
        template = bank.get(template_id)
        from quizzer.bank.generate.render import recompute_part

        wrong = 2 * session.instance.value
        await pilot.press(*f"{wrong} bytes", "enter")
        await pilot.pause()
        carried = recompute_part(template, session.instance, 2, {1: wrong})
        await pilot.press(*f"{carried:.4g}", "enter")
        await pilot.pause()
        await pilot.pause()
        app.save_screenshot(filename=CHAIN_OUT.name, path=str(CHAIN_OUT.parent))
    print(f"wrote {CHAIN_OUT}")
    await home_plan()


async def home_plan() -> None:
    """Home with an interview in two weeks and 45 minutes a day, the roofline topic's templates studied."""
    from snapshot_app import FakeClock, FakeWall

    from quizzer.config import Settings
    from quizzer.paths import questions_dir
    from quizzer.store.history import HistoryStore
    from quizzer.tui.app import QuizzerApp
    from quizzer.tui.screens.home import HomeScreen

    app = QuizzerApp(
        [str(questions_dir())],
        clock=FakeClock(),
        wall=FakeWall(),  # Thursday 28 May 2026
        seed_source=lambda: 7,
        store=HistoryStore.memory(),
        settings=Settings(interview_date="2026-06-11", daily_minutes=45),
    )
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(200):
            await pilot.pause(0.05)
            screen = app.screen
            if isinstance(screen, HomeScreen) and "Interview" in str(screen.query_one("#study-due").render()):
                break
        await pilot.pause(0.5)
        app.save_screenshot(filename=PLAN_OUT.name, path=str(PLAN_OUT.parent))
    print(f"wrote {PLAN_OUT}")
    await interview()


async def interview() -> None:
    """The interviewer's screen mid-chain: part 1 recorded wrong (the forward pass alone, a written slip),
    part 2 typed consistent with it and graded live, before enter."""
    from snapshot_app import FakeClock, FakeWall

    from quizzer.bank.loader import load_bank
    from quizzer.paths import questions_dir
    from quizzer.store.history import HistoryStore
    from quizzer.tui.app import QuizzerApp
    from quizzer.tui.options import InterviewOptions
    from quizzer.tui.screens.interview import InterviewScreen

    paths = [str(questions_dir())]
    bank = load_bank(paths)
    bank.templates()
    refs = [ref.partition("#") for ref in INTERVIEW]
    instances = tuple(bank.generate(template_id, int(seed)) for template_id, _, seed in refs)
    app = QuizzerApp(
        paths,
        interview=InterviewOptions(instances=instances, save_set=os.devnull, report=os.devnull),
        clock=FakeClock(),
        wall=FakeWall(),
        seed_source=lambda: 7,
        bank=bank,
        store=HistoryStore.memory(),
    )
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(200):
            await pilot.pause(0.05)
            screen = app.screen
            if isinstance(screen, InterviewScreen) and screen.answer_box.ready:
                break
        for widget in app.screen.query(Input):
            widget.cursor_blink = False
        chain = instances[0]
        await pilot.press(
            *f"{chain.value / 3:.3g}".replace("e+", "e"), "enter"
        )  # 2·N·D for 6·N·D: a named slip
        await pilot.pause()
        await pilot.press(*f"{chain.parts[1].value / 3 / 86400:.3g} days")  # part 2 worked from it
        await pilot.pause(0.5)
        app.save_screenshot(filename=INTERVIEW_OUT.name, path=str(INTERVIEW_OUT.parent))
    print(f"wrote {INTERVIEW_OUT}")


if __name__ == "__main__":
    asyncio.run(interview() if sys.argv[1:] == ["interview"] else main())
