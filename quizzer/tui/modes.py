"""The app's modes: drill, placement, cram, mock and study sessions built and opened on their screens."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.screen import Screen
from textual.widget import AwaitMount

from quizzer.bank.errors import TemplateError
from quizzer.session.drill import DrillSession
from quizzer.session.records import Attempt
from quizzer.tui.messages import StartMode
from quizzer.tui.options import CramOptions, DrillOptions, InterviewOptions, MockOptions, StudyOptions
from quizzer.tui.screens.drill import DrillScreen
from quizzer.tui.services import AppServices

if TYPE_CHECKING:
    from quizzer.bank.generate.render import Instance
    from quizzer.session.progress import TemplateProgress
    from quizzer.session.study import StudySession
    from quizzer.tui.screens.interview import InterviewFiles
    from quizzer.tui.screens.mock_start import MockPlan

# Home and the other screens are imported when first shown: `quizzer drill` paints its question without
# loading their widgets (DataTable, Select, OptionList...), which is a good part of its start-up time.


def is_mode(screen: Screen[object]) -> bool:
    """Whether ``screen`` is a mode's (a drill or cram, a study session, a mock or its start, an
    interview)."""
    from quizzer.tui.screens.interview import InterviewScreen
    from quizzer.tui.screens.mock import MockScreen
    from quizzer.tui.screens.mock_start import MockStartScreen
    from quizzer.tui.screens.study import StudyScreen

    return isinstance(screen, (DrillScreen, StudyScreen, MockStartScreen, MockScreen, InterviewScreen))


class AppModes(AppServices):
    """Builds each mode's session from the services and opens its screen; Home when one is left."""

    def go_home(self) -> None:
        """Show Home: pop back to it, or put it under the current screen when the app opened into a mode."""
        from quizzer.tui.screens.home import HomeScreen

        if any(isinstance(screen, HomeScreen) for screen in self.screen_stack):
            while not isinstance(self.screen, HomeScreen):
                self.pop_screen()
        else:
            self.push_screen(HomeScreen(self.reader, self.study_ids, self.start_placement))

    def _left(self, _result: object = None) -> None:
        """A mode or screen was left: Home, if nothing is below it but the blank default screen."""
        if len(self.screen_stack) <= 1:
            self.go_home()

    def open(self, screen: Screen[None]) -> AwaitMount:
        """Push ``screen``; when it is dismissed, Home if nothing else is below."""
        return self.push_screen(screen, callback=self._left)

    def study_ids(self) -> list[str]:
        """Every template id the UI thread's bank knows (Home's study counts read the history over them)."""
        return self.questions_bank().scanned_ids()

    async def open_mode(
        self, options: DrillOptions | MockOptions | StudyOptions | CramOptions | InterviewOptions
    ) -> bool:
        """Open the mode ``options`` asks for, its first screen mounted; False if it could not open."""
        if isinstance(options, InterviewOptions):
            return await self.start_interview(options)
        if isinstance(options, DrillOptions):
            return await self.start_drill(options)
        if isinstance(options, CramOptions):
            return await self.start_cram(options)
        if isinstance(options, MockOptions):
            return await self.start_mock(options)
        return await self.start_study(options)

    @on(StartMode)
    async def start_mode(self, event: StartMode) -> None:
        event.stop()
        if event.mode == "drill":
            await self.start_drill(
                DrillOptions(
                    event.topic,
                    event.difficulty,
                    event.template_id,
                    event.seed,
                    event.order,
                    only=event.template_ids,
                    slips=event.slips,
                )
            )
        elif event.mode == "cram":
            await self.start_cram(CramOptions(event.topic, seed=event.seed))
        elif event.mode == "mock":
            settings = self.settings
            await self.start_mock(
                MockOptions(settings.mock_count, settings.mock_minutes, event.topic, event.seed)
            )
        elif event.mode == "study":
            await self.start_study(StudyOptions(event.topic, self.new_per_day, event.seed))
        elif event.mode == "interview":
            await self.start_interview(InterviewOptions(self.settings.mock_count, event.topic, event.seed))

    async def aim_at_slips(self, options: DrillOptions) -> DrillOptions | None:
        """``options`` kept to the templates where your most frequent recorded slips can happen, said in a
        notification; None, with a notice, when the history has no slip yet (or none fits the filters)."""
        from quizzer.session.slips import family_words

        ids = self.questions_bank().matching_ids(topic=options.topic, difficulty=options.difficulty)
        read = await self.read(self.reader.slip_drill, ids)
        if read is None:
            return None
        families, chosen = read
        if not families:
            self.notify("No slip recorded yet: drill a little first.", title="Your slips", markup=False)
            return None
        if not chosen:
            self.notify("No template here builds in your slips.", title="Your slips", severity="warning")
            return None
        said = "; ".join(family_words(f) for f in families)
        self.notify(f"{len(chosen)} templates where you slip most: {said}.", title="Your slips", markup=False)
        return options.replace(only=tuple(chosen), slips=False)

    async def start_drill(
        self, options: DrillOptions | None = None, progress: dict[str, TemplateProgress] | None = None
    ) -> bool:
        """Open a drill over the templates that match (a fresh seed unless one is given); False, with a
        notice, if none do. ``progress``: each template's answers, when the caller has just read them."""
        options = options or DrillOptions()
        session: DrillSession | None = None
        announced = False

        def recorded(attempt: Attempt) -> None:
            """Record, and when the plan is through, say so once (a placement's suggested path)."""
            nonlocal announced
            self.record(attempt)
            if session is not None and session.plan_done and not announced:
                announced = True
                self.placement_done(session)

        if options.slips:  # the templates where your most frequent slips can happen (read before the screen)
            aimed = await self.aim_at_slips(options)
            if aimed is None:
                return False
            options = aimed
        if progress is None and options.order != "random":  # each template's answers (before the screen)
            progress = await self.read(self.reader.template_progress)
            if progress is None:
                return False
        try:
            session = DrillSession(
                self.questions_bank(),
                seed=self.new_seed() if options.seed is None else options.seed,
                clock=self.clock,
                topic=options.topic,
                difficulty=options.difficulty,
                template_id=options.template_id,
                wall=self.wall,
                session_id=options.session_id or self.new_session_id(options.mode),
                on_attempt=recorded if options.placement else self.record,
                mode=options.mode,
                order=options.order,
                progress=progress,
                plan=options.plan,
                only=options.only,
                lazy=True,  # its prompt painted first; the panel makes the rest once it is (``completed``)
            )
        except KeyError:
            self.notify(f"No template has the id {options.template_id!r}.", severity="warning", markup=False)
            return False
        except TemplateError as exc:
            self.notify(f"{exc}", title="This template is invalid", severity="error", markup=False)
            return False
        except ValueError:
            self.notify("No template matches these filters.", severity="warning")
            return False
        await self.open(DrillScreen(session))
        return True

    async def start_placement(self) -> bool:
        """The guided start: a placement drill of a few questions, easy to hard across the main topics; one
        left before its end is resumed where it was (its mark in the history keeps the plan)."""
        from quizzer.session.progress import PLACEMENT, placement_ids
        from quizzer.session.records import SessionMark

        guide = await self.read(self.reader.guide)
        if guide is None:
            return False
        seed = self.new_seed()
        if guide.resumable and guide.session is not None:
            done = len(guide.plan) - len(guide.remaining)
            self.notify(
                f"Resuming the placement: {done} of {len(guide.plan)} done.",
                title="Start here",
                markup=False,
            )
            return await self.start_drill(
                DrillOptions(seed=seed, plan=guide.remaining, session_id=guide.session, placement=True)
            )
        plan = tuple(placement_ids((self.bank or self.questions_bank()).templates(), seed=seed))
        session_id = self.new_session_id(PLACEMENT)
        self.writer.submit(
            self.store.mark_session, SessionMark(session_id, PLACEMENT, self.wall(), len(plan), plan=plan)
        )
        return await self.start_drill(
            DrillOptions(seed=seed, plan=plan, session_id=session_id, placement=True)
        )

    def placement_done(self, session: DrillSession) -> None:
        """The placement's last planned question is answered: its mark is finished and the suggested path
        shown (Home shows it from the history from now on)."""
        from quizzer.session.progress import PLACEMENT
        from quizzer.session.records import SessionMark

        mark = SessionMark(
            session.session_id, PLACEMENT, self.wall(), len(session.plan), finished=self.wall()
        )
        self.writer.submit(self.store.mark_session, mark)  # an upsert: only `finished` changes
        self.call_later(self.announce_path)

    async def announce_path(self) -> None:
        """Say the path a finished placement suggests (read from the history, in a worker)."""
        guide = await self.read(self.reader.guide)
        if guide is None:
            return
        self.suggested_path = list(guide.path)
        self.notify(
            f"Placement done. Suggested path, weakest first: {' → '.join(self.suggested_path)}. "
            "The drill goes on; q goes back to Home.",
            title="Start here",
            timeout=30,
            markup=False,
        )

    async def start_cram(self, options: CramOptions | None = None) -> bool:
        """Cram: a drill over the weakest templates (recent results and FSRS recall), weakest first; it
        records its attempts (mode "cram") and never changes a study card."""
        options = options or CramOptions()
        ids = self.questions_bank().matching_ids(topic=options.topic)
        read = await self.read(self.reader.weakest, ids, options.count)
        if read is None:
            return False
        weakest, progress = read
        if not weakest:
            where = f" in {options.topic}" if options.topic else ""
            self.notify(
                f"Nothing to cram yet{where}: cram goes over templates you have answered or studied. "
                "Drill (d) or study (s) first.",
                severity="information",
                markup=False,
            )
            return False
        return await self.start_drill(
            DrillOptions(
                seed=options.seed, order="weakest", plan=tuple(weakest), only=tuple(weakest), mode="cram"
            ),
            progress,
        )

    async def start_mock(self, options: MockOptions | None = None) -> bool:
        """Open a mock's start screen (its clock starts when the set is confirmed; a draw that cannot fit
        says why there); a plain MockOptions with a seed opens the mock at once (tests), or returns False
        with a notice if no template matches."""
        from quizzer.session.picking import fit_instances, pick_instances
        from quizzer.tui.screens.mock_start import MockStart, MockStartScreen

        options = options or MockOptions(self.settings.mock_count, self.settings.mock_minutes)
        seed = self.new_seed() if options.seed is None else options.seed
        if options.seed is not None and not isinstance(options, MockStart):
            try:
                instances = pick_instances(
                    self.questions_bank(), count=options.count, seed=seed, topic=options.topic
                )
            except ValueError:
                self.notify("No template matches these filters.", severity="warning")
                return False
            await self.open_mock(instances, options.minutes)
            return True
        given = options.instances if isinstance(options, MockStart) else ()
        save_set = options.save_set if isinstance(options, MockStart) else None
        bank, topic = self.questions_bank(), options.topic

        def draw(count: int, minutes: float) -> list[Instance]:
            if given:
                return list(given)
            return fit_instances(bank, count=count, minutes=minutes, seed=seed, topic=topic)

        def confirmed(plan: MockPlan | None) -> None:
            if plan is None:
                self._left()
                return
            if save_set is not None:
                self.save_mock_set(save_set, plan)
            self.open_mock(list(plan.instances), plan.minutes)

        count = len(given) if given else options.count
        screen = MockStartScreen(draw, count=count, minutes=options.minutes, topic=topic, fixed=bool(given))
        await self.push_screen(screen, callback=confirmed)
        return True

    def save_mock_set(self, path: str, plan: MockPlan) -> None:
        """Write the set's ``id#seed`` list to ``path`` (a failure is a notification; the mock still runs)."""
        from quizzer.session.picking import format_set

        try:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(format_set(plan.instances, plan.minutes))
        except OSError as exc:
            self.notify(
                f"{path}: {exc.strerror or exc}", title="Set not saved", severity="error", markup=False
            )
            return
        self.notify(f"The set is saved in {path}.", title="Mock set", markup=False)

    def open_mock(self, instances: list[Instance], minutes: float) -> AwaitMount:
        """Start the clock: a MockExam over ``instances`` for ``minutes``, on its screen."""
        from quizzer.session.chain import template_lookup
        from quizzer.session.mock import MockExam
        from quizzer.tui.screens.mock import MockScreen

        exam = MockExam(
            instances,
            total_seconds=minutes * 60,
            clock=self.clock,
            wall=self.wall,
            session_id=self.new_session_id("mock"),
            on_attempt=self.record,
            on_mark=lambda mark: self.writer.submit(self.store.mark_session, mark),
            templates=template_lookup(self.questions_bank()),
            start=False,  # the screen starts the countdown when the first question is painted
        )
        return self.open(MockScreen(exam))

    async def start_interview(self, options: InterviewOptions | None = None) -> bool:
        """Open the interviewer's screen over the questions given, or drawn as a mock draws them (a fresh
        seed unless one is given); False, with a notice, if no template matches. Its answers are not
        written to the history (it is the interviewer's): only to its set and report files."""
        from quizzer.session.chain import template_lookup
        from quizzer.session.interview import InterviewSession
        from quizzer.session.picking import pick_instances
        from quizzer.tui.screens.interview import InterviewScreen

        options = options or InterviewOptions(self.settings.mock_count)
        bank, instances = self.questions_bank(), list(options.instances)
        if not instances:
            seed = self.new_seed() if options.seed is None else options.seed
            try:
                instances = pick_instances(bank, count=options.count, seed=seed, topic=options.topic)
            except ValueError:
                self.notify("No template matches these filters.", severity="warning")
                return False
        session = InterviewSession(instances, templates=template_lookup(bank))
        await self.open(InterviewScreen(session, self.interview_files(options)))
        return True

    def interview_files(self, options: InterviewOptions) -> InterviewFiles:
        """Where the interview is saved: the files asked for, else ``<stamp>.set`` and ``<stamp>.md`` in the
        interviews folder, stamped with the time it begins (None: no folder, nowhere to save)."""
        import os
        import time

        from quizzer.tui.screens.interview import InterviewFiles

        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(self.wall()))
        folder = self.interviews_folder

        def named(given: str | None, suffix: str) -> str | None:
            return given or (os.path.join(folder, stamp + suffix) if folder is not None else None)

        return InterviewFiles(named(options.save_set, ".set"), named(options.report, ".md"))

    async def start_study(self, options: StudyOptions | None = None) -> bool:
        """Open a spaced-repetition study session over the templates (a topic's, if given)."""
        from quizzer.tui.screens.study import StudyScreen

        session = await self.study_session(options or StudyOptions(new_per_day=self.new_per_day))
        if session is None:
            return False
        await self.open(StudyScreen(session))
        return True

    async def study_session(self, options: StudyOptions) -> StudySession | None:
        """A StudySession over the history's cards (what Home counts as due and new), scheduled at the
        settings' desired retention; None if the history could not be read."""
        from quizzer.session.srs import Scheduler
        from quizzer.session.study import StudySession

        bank = self.questions_bank()
        template_ids = bank.matching_ids(topic=options.topic)
        read = await self.read(self.reader.study_cards, options.new_per_day)
        if read is None:
            return None
        cards, limit = read
        plan = (
            await self.read(self.reader.deadline_plan, template_ids) if self.reader.interview_date else None
        )
        return StudySession(
            bank,
            cards,
            template_ids=template_ids,
            seed=self.new_seed() if options.seed is None else options.seed,
            clock=self.clock,
            wall=self.wall,
            new_per_day=limit,
            new_today=0,
            scheduler=Scheduler(desired_retention=self.settings.desired_retention),
            session_id=self.new_session_id("study"),
            on_attempt=self.record,
            on_review=self.put_card,
            on_remove=self.remove_card,
            leech_lapses=self.settings.leech_lapses,
            plan=plan.today.template_ids if plan is not None else None,
        )
