"""Whether the terminal the app reads went away: its input hung up (a window closed with no SIGHUP sent)."""

from __future__ import annotations

import os
import select


def watchable(fd: int = 0) -> bool:
    """Whether ``fd`` is a terminal whose hang-up ``hung_up`` can see (POSIX ``poll``)."""
    try:
        return hasattr(select, "poll") and os.isatty(fd)
    except OSError:
        return False


def hung_up(fd: int = 0) -> bool:
    """Whether ``fd`` reports a hang-up or an error now (without waiting).

    A terminal closed under a process that got no SIGHUP (``make run`` in a window that closed: make
    catches it, the app never sees one) leaves its input at end of file: Textual's input thread then reads
    nothing in a loop, a whole core, for as long as the process lives (Textualize/textual#6690).
    """
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    try:
        events = poller.poll(0)
    except OSError:
        return True
    return any(mask & (select.POLLHUP | select.POLLERR | select.POLLNVAL) for _, mask in events)


__all__ = ["hung_up", "watchable"]
