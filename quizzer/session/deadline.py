"""Study toward a date: which templates to review on each day until an interview, within a daily budget.

The plan only chooses *what to review when*; every review still goes through ``Scheduler.review``, so the
cards stay plain fsrs cards and after the date the normal fsrs schedule resumes with nothing lost.

How the plan is made (``deadline_plan``), day by day from ``now`` to the date, projecting each planned review
as rated "good" with fsrs's own model (no fuzzing, as ``Scheduler``), and judging a review by the recall it
gains *on the date* (fsrs's ``get_card_retrievability`` at that future moment, which counts whole days):

- **the window** is the last quarter of the time from ``begun`` (when study toward the date began) to the
  date, at least its last 2 days: every studied template is reviewed at least once in it, the strongest
  memories (highest stability) on its first days, the weakest as late as possible; in it a card fsrs says
  is due is reviewed again only while its retrievability on the date is below ``desired_retention``;
- before the window, cards are reviewed when fsrs says they are due, as plain study would;
- **new templates** are introduced over the first half of the days before the window (an even share a
  day), and more of them when the day's budget has room, so each is seen several times before the date;
- each day takes at most ``daily_minutes`` (each template costs its expected minutes): after the window's
  share, the day's reviews and new templates go by the recall on the date one review gains per minute
  (a template never seen gains most: unseen, it is recalled by no one), and what does not fit waits for
  the next day;
- the plan **fits** when every studied template is covered in the window and every new one is introduced;
  when not, ``missing_minutes`` are the minutes short and ``drop`` names the templates to leave out: those
  never introduced, then those whose recall on the date gains least per minute of their planned reviews,
  enough to free the minutes missing.

Pure: times are arguments (epoch seconds, UTC).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, date, datetime, time, tzinfo

import fsrs

from quizzer.bank.errors import TemplateError
from quizzer.bank.loader import Bank
from quizzer.core.record import Record
from quizzer.core.words import counted
from quizzer.session.records import CardState

_DAY = 86_400.0
#: How long before the date study toward it is taken to have begun at most, when the caller does not say.
MAX_LEAD_DAYS = 56
#: The expected minutes of a template the caller gives none for.
DEFAULT_MINUTES = 2.0


class PlanDay(Record):
    """One day of the plan: its index (0 is today), when it starts (epoch seconds), the templates to review
    that day in order, and their minutes."""

    index: int
    start: float
    template_ids: tuple[str, ...]
    minutes: float

    @property
    def reviews(self) -> int:
        return len(self.template_ids)


class DeadlinePlan(Record):
    """A plan toward ``date`` (epoch seconds) made at ``now``.

    ``days`` from today to the day before the date; ``window_start`` the first day of the last quarter;
    ``fits`` whether every planned review fitted the daily budget; ``missing_minutes`` the minutes that did
    not; ``drop`` the templates to leave out (least recall gained on the date per minute) when it does not
    fit; ``recall`` each planned template's fsrs retrievability on the date, as planned.
    """

    now: float
    date: float
    daily_minutes: float
    days: tuple[PlanDay, ...]
    window_start: int
    fits: bool
    missing_minutes: float
    drop: tuple[str, ...]
    recall: tuple[tuple[str, float], ...]

    @property
    def days_left(self) -> int:
        """Whole days from now to the date (0 once it has come)."""
        return len(self.days)

    @property
    def today(self) -> PlanDay:
        """Today's load (no reviews once the date has come)."""
        return self.days[0] if self.days else PlanDay(0, self.now, (), 0.0)

    @property
    def expected_recall(self) -> float:
        """The templates fsrs expects recalled on the date, as planned (the sum of their retrievability)."""
        return sum(r for _, r in self.recall)

    def covered(self, template_id: str) -> bool:
        """Whether the plan reviews ``template_id`` in the window (the last quarter of the days left)."""
        return any(template_id in day.template_ids for day in self.days[self.window_start :])


def window_days(days_left: int) -> int:
    """Days in the window: the last quarter of ``days_left``, at least 2 (all of them when fewer).

    >>> [window_days(n) for n in (1, 2, 5, 8, 9, 30, 60)]
    [1, 2, 2, 2, 3, 8, 15]
    """
    return min(days_left, max(2, math.ceil(days_left / 4)))


def days_until(now: float, date: float) -> int:
    """Whole days (started) from ``now`` to ``date``; 0 once it has come.

    >>> days_until(0.0, 86_400.0 * 2.5), days_until(10.0, 5.0)
    (3, 0)
    """
    return max(math.ceil((date - now) / _DAY - 1e-9), 0)


def date_start(day: date, tz: tzinfo) -> float:
    """The epoch seconds at which ``day`` begins in the time zone ``tz`` (the caller's local one): the
    moment an interview on that date is planned toward, so the last day of the plan is the day before.

    >>> date_start(date(2026, 12, 18), UTC)
    1797552000.0
    """
    return datetime.combine(day, time(), tzinfo=tz).timestamp()


def _utc(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, tz=UTC)


def deadline_plan(
    cards: Iterable[CardState],
    new_ids: Sequence[str],
    *,
    now: float,
    date: float,
    daily_minutes: float,
    minutes: Mapping[str, float],
    desired_retention: float = 0.9,
    begun: float | None = None,
) -> DeadlinePlan:
    """The plan toward ``date`` for ``cards`` (studied templates; suspended ones are left out) and
    ``new_ids`` (templates not studied yet, introduced in this order), each template costing
    ``minutes[id]`` (``DEFAULT_MINUTES`` when missing), at most ``daily_minutes`` a day.

    ``begun`` is when study toward this date began: the window is the last quarter of the time from then to
    the date, so that a plan made again each day keeps the same window, and a card reviewed in it already
    counts as covered. None: when the first of ``cards`` was introduced, or ``MAX_LEAD_DAYS`` before the
    date if that is later (now when there is no card)."""
    model = fsrs.Scheduler(desired_retention=desired_retention, enable_fuzzing=False)
    cards = list(cards)
    ids = [*(c.template_id for c in cards), *new_ids]
    cost = {t: max(float(minutes.get(t, DEFAULT_MINUTES)), 0.0) for t in ids}
    studied = {c.template_id: fsrs.Card.from_json(c.card_json) for c in cards if c.suspended is None}
    fresh = [t for t in dict.fromkeys(new_ids) if t not in studied]
    total = days_until(now, date)
    if total == 0:
        return DeadlinePlan(now, date, daily_minutes, (), 0, True, 0.0, (), ())
    if begun is None:
        begun = max(min([c.introduced for c in cards], default=now), date - MAX_LEAD_DAYS * _DAY)
    window_opens = date - window_days(days_until(min(begun, now), date)) * _DAY
    first_window_day = next((i for i in range(total) if now + i * _DAY >= window_opens - 1.0), total - 1)
    intro_days = max(1, math.ceil(first_window_day / 2))
    when = _utc(date)
    # new templates: an even share a day over the first intro_days
    intro_by_day = [
        fresh[math.ceil(d * len(fresh) / intro_days) : math.ceil((d + 1) * len(fresh) / intro_days)]
        for d in range(intro_days)
    ]
    cards_now: dict[str, fsrs.Card] = dict(studied)
    waiting_new: list[str] = []
    covered = {
        t
        for t, c in studied.items()
        if c.last_review is not None and c.last_review.timestamp() >= window_opens
    }
    planned_minutes: dict[str, float] = {}
    days: list[PlanDay] = []
    for index in range(total):
        start = now if index == 0 else now + index * _DAY
        at = _utc(start)
        if index < intro_days:
            waiting_new.extend(intro_by_day[index])
        wanted: list[str] = []
        if index >= first_window_day:
            # cover the rest of the studied cards, strongest first: the weakest as late as possible
            uncovered = sorted(
                (t for t in cards_now if t not in covered),
                key=lambda t: (-(cards_now[t].stability or 0.0), t),
            )
            share = math.ceil(len(uncovered) / (total - index))
            wanted.extend(uncovered[:share])
        due = [t for t, c in cards_now.items() if c.due <= at and t not in wanted]
        if index >= first_window_day:
            due = [t for t in due if model.get_card_retrievability(cards_now[t], when) < desired_retention]
        later = [t for t in fresh if t not in cards_now and t not in waiting_new]

        def gain(template_id: str, at: datetime = at) -> float:
            return _gain(model, cards_now.get(template_id), at, when) / max(cost[template_id], 1e-9)

        wanted.extend(sorted([*due, *waiting_new], key=lambda t: (-gain(t), t)))
        wanted.extend(sorted(later, key=lambda t: (-gain(t), t)))
        chosen: list[str] = []
        spent = 0.0
        for template_id in wanted:
            if spent + cost[template_id] > daily_minutes + 1e-9:
                continue
            spent += cost[template_id]
            chosen.append(template_id)
        for template_id in chosen:
            card = cards_now.get(template_id) or fsrs.Card(card_id=len(cards_now) + 1, due=at)
            cards_now[template_id], _ = model.review_card(card, fsrs.Rating.Good, review_datetime=at)
            planned_minutes[template_id] = planned_minutes.get(template_id, 0.0) + cost[template_id]
            if index >= first_window_day:
                covered.add(template_id)
            if template_id in waiting_new:
                waiting_new.remove(template_id)
        days.append(PlanDay(index, start, tuple(chosen), spent))
    recall = {t: float(model.get_card_retrievability(c, when)) for t, c in cards_now.items()}
    unseen = [t for t in fresh if t not in planned_minutes]
    uncovered_minutes = sum(cost[t] for t in cards_now if t not in covered)
    missing = uncovered_minutes + sum(cost[t] for t in unseen)
    fits = missing <= 1e-9
    drop = () if fits else _to_drop(recall, studied, when, model, planned_minutes, unseen, uncovered_minutes)
    return DeadlinePlan(
        now,
        date,
        daily_minutes,
        tuple(days),
        first_window_day,
        fits,
        missing,
        drop,
        tuple(sorted(recall.items())),
    )


def study_plan(
    bank: Bank,
    cards: Iterable[CardState],
    template_ids: Sequence[str],
    *,
    now: float,
    date: float,
    daily_minutes: float,
    desired_retention: float = 0.9,
    begun: float | None = None,
) -> DeadlinePlan:
    """``deadline_plan`` over a study session's ``template_ids`` (a topic's, or the bank's): the cards of
    other templates are left out, the templates without a card are the new ones (in that order), and each
    costs its template's expected ``minutes`` (an invalid or unknown template is left out)."""
    minutes: dict[str, float] = {}
    for template_id in dict.fromkeys(template_ids):
        try:
            minutes[template_id] = bank.get(template_id).minutes
        except (KeyError, TemplateError):
            continue
    mine = [c for c in cards if c.template_id in minutes]
    studied = {c.template_id for c in mine}
    return deadline_plan(
        mine,
        [t for t in minutes if t not in studied],
        now=now,
        date=date,
        daily_minutes=daily_minutes,
        minutes=minutes,
        desired_retention=desired_retention,
        begun=begun,
    )


def _gain(model: fsrs.Scheduler, card: fsrs.Card | None, at: datetime, when: datetime) -> float:
    """The recall on ``when`` one review at ``at`` gains (rated "good", no later review); ``card`` None is a
    template never studied (recalled with probability 0 until then)."""
    before = 0.0 if card is None else float(model.get_card_retrievability(card, when))
    after, _ = model.review_card(card or fsrs.Card(card_id=1, due=at), fsrs.Rating.Good, review_datetime=at)
    return float(model.get_card_retrievability(after, when)) - before


def _to_drop(
    recall: Mapping[str, float],
    studied: Mapping[str, fsrs.Card],
    when: datetime,
    model: fsrs.Scheduler,
    planned_minutes: Mapping[str, float],
    unseen: Sequence[str],
    missing: float,
) -> tuple[str, ...]:
    """The templates the plan could not introduce (``unseen``), then those whose recall on the date gains
    least per planned minute, enough to free ``missing`` minutes (what covering the rest in the window
    lacks)."""
    gains: list[tuple[float, str, float]] = []
    for template_id, spent in planned_minutes.items():
        before = studied.get(template_id)
        without = float(model.get_card_retrievability(before, when)) if before is not None else 0.0
        gains.append(((recall[template_id] - without) / max(spent, 1e-9), template_id, spent))
    gains.sort()
    drop = list(unseen)
    freed = 0.0
    for _gain, template_id, spent in gains:
        if freed >= missing:
            break
        drop.append(template_id)
        freed += spent
    return tuple(drop)


def plan_summary(plan: DeadlinePlan) -> str:
    """Home's line for the plan: days left, today's load and whether it fits (what to drop if not).

    >>> day = PlanDay(0, 0.0, ("a", "b"), 7.5)
    >>> plan = DeadlinePlan(0.0, 86_400.0 * 3, 30.0, (day, day, day), 1, False, 12.0, ("c", "d"), ())
    >>> plan_summary(plan)
    '3 days left: today 2 reviews, 7.5 of 30 min; over budget by 12 min: drop c, d'
    >>> plan_summary(plan.replace(drop=("c", "d", "e", "f", "g")))  # doctest: +ELLIPSIS
    '3 days left: ...; over budget by 12 min: drop 5 templates (the least gain a minute: c, d, e, …)'
    """
    if plan.days_left == 0:
        return "the date has come: study follows fsrs again"
    today = plan.today
    days, reviews = counted(plan.days_left, "day"), counted(today.reviews, "review")
    line = f"{days} left: today {reviews}, {_minutes(today.minutes)} of {_minutes(plan.daily_minutes)} min"
    if plan.fits:
        return line + "; the plan fits"
    drop = ", ".join(plan.drop)
    if len(plan.drop) > SHOWN_DROPS:
        shown = ", ".join(plan.drop[:SHOWN_DROPS])
        drop = f"{counted(len(plan.drop), 'template')} (the least gain a minute: {shown}, …)"
    return line + f"; over budget by {_minutes(plan.missing_minutes)} min: drop {drop}"


#: The templates to drop Home names one by one; more are counted.
SHOWN_DROPS = 3


def _minutes(value: float) -> str:
    return f"{value:.1f}".removesuffix(".0")
