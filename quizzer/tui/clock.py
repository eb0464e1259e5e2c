"""Local time for the screens: midnight (the daily limit resets then), the UTC offset, m:ss clocks."""

from __future__ import annotations

import time


def local_midnight(now: float) -> float:
    """The epoch seconds of the start of the local day that holds ``now`` (the daily limit resets then).

    >>> import os
    >>> local_midnight(86_400.0 * 3 + 5) <= 86_400.0 * 3 + 5 < local_midnight(86_400.0 * 3 + 5) + 90_000
    True
    """
    day = time.localtime(now)
    return time.mktime((day.tm_year, day.tm_mon, day.tm_mday, 0, 0, 0, 0, 0, -1))


def utc_offset_seconds(now: float) -> int:
    """The local time zone's offset from UTC at ``now`` (days in the stats are local days)."""
    return int(time.localtime(now).tm_gmtoff)


def clock_text(seconds: float | None) -> str:
    """Seconds as m:ss (h:mm:ss from an hour); "—" for an unknown time.

    >>> clock_text(75), clock_text(3725), clock_text(None), clock_text(-3)
    ('1:15', '1:02:05', '—', '0:00')
    """
    if seconds is None:
        return "—"
    whole = max(int(seconds), 0)
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"
