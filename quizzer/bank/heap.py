"""The garbage collector's policy once a bank is loaded: what the process holds is frozen out of its scans."""

from __future__ import annotations

import gc

from quizzer.bank.expr.expression import compiled_count


def settle_heap() -> None:
    """Freeze what the process holds out of the collector's scans (``gc.freeze``).

    A process that loaded a bank holds its templates for as long as it runs: about 400,000 objects for the
    built-in bank, which a full collection scanned again and again (150 ms each time, a hitch in the app;
    making full instances, about a tenth of the time). Objects frozen are still freed when nothing refers
    to them. (A higher threshold for the young generation was measured too: no gain through ``quizzer
    check``, so Python's is kept.)
    """
    gc.freeze()


#: ``compiled_count()`` when ``settle_compiled`` last froze the heap.
_SETTLED_AT = [0]


def settle_compiled() -> None:
    """Freeze what the process holds once expressions were compiled since the last time (else nothing).

    An expression is compiled on its first evaluation and keeps its closures as long as the process runs:
    the built-in bank's, about 270,000 objects, which a full collection scanned again and again (100 to
    150 ms each time: a hitch in the app, a tenth of the time of the questions a drill shows). The young
    generations are collected first, so that what is frozen is what is held. Called once an instance is
    made: a template's expressions compile with its first instances.
    """
    count = compiled_count()
    if count != _SETTLED_AT[0]:
        _SETTLED_AT[0] = count
        gc.collect(1)
        gc.freeze()


__all__ = ["settle_compiled", "settle_heap"]
