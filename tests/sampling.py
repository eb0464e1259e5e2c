"""The dev run's sample of the per-template checks: a third of the templates, another third each day.

Under the ci profile (``CI=true``, ``--hypothesis-profile=ci`` or ``HYPOTHESIS_PROFILE=ci``) every template
is checked. In the dev profile (``make test``) a check marked here runs on the templates of today's third
(by a CRC of the id and the day number), so three days cover the bank; the header of the run names the
day, and ``QUIZZER_TEST_DAY=<day>`` replays its sample. Use it only where the same template is also checked
every run by something cheaper (it loads, validates and renders in the other properties).
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterable
from datetime import date

from hypothesis import settings

#: The dev run checks one template in SHARE.
SHARE = 3


def full_run() -> bool:
    """Whether this run checks everything: the ci profile (400 examples a test) is loaded."""
    return settings.default.max_examples >= 400


def sample_day() -> int:
    """The day whose sample the dev run takes: ``QUIZZER_TEST_DAY``, else today's ordinal (tests/conftest.py
    fixes it for the xdist workers when the run starts, so all of them collect the same tests)."""
    return int(os.environ.get("QUIZZER_TEST_DAY") or date.today().toordinal())


def in_sample(template_id: str) -> bool:
    """Whether today's dev sample holds ``template_id`` (always, under the ci profile)."""
    return full_run() or (zlib.crc32(template_id.encode("utf-8")) + sample_day()) % SHARE == 0


def sampled(template_ids: Iterable[str]) -> list[str]:
    """The ids of ``template_ids`` in today's sample, in their order (all of them under the ci profile)."""
    return [template_id for template_id in template_ids if in_sample(template_id)]
