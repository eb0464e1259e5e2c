"""Stats' summary line from its light pass is the summary compute_stats gives for the same history."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from quizzer.session.records import Attempt, SessionMark
from quizzer.session.stats import compute_stats
from quizzer.session.stats_summary import SUMMARY_FIELDS, summary_stats
from tests.session.test_stats import DAY, NOW, attempt, attempts_strategy

marks = st.lists(
    st.builds(
        SessionMark,
        st.sampled_from(["s1", "s2", "s3"]),
        st.sampled_from(["mock", "placement"]),
        st.just(NOW),
        st.just(2),
        finished=st.sampled_from([None, NOW + 60]),
    ),
    max_size=4,
)


@settings(max_examples=200)
@given(history=attempts_strategy, offset=st.integers(-14 * 3600, 14 * 3600), sessions=marks)
@example(history=[attempt(at=NOW - k * DAY) for k in range(3)], offset=13 * 3600, sessions=[])  # local days
def test_the_summary_is_compute_stats_summary(
    history: list[Attempt], offset: int, sessions: list[SessionMark]
) -> None:
    full = compute_stats(history, now=NOW, utc_offset_seconds=offset, sessions=sessions)
    light = summary_stats(history, now=NOW, utc_offset_seconds=offset, sessions=sessions)
    assert {f: getattr(light, f) for f in SUMMARY_FIELDS} == {f: getattr(full, f) for f in SUMMARY_FIELDS}
