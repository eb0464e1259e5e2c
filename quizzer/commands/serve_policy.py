"""What `quizzer serve` lets browser tabs do: the terminal sizes, origins and number of tabs it accepts."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

#: The widest terminal a tab's app is given, in cells (a 4K screen at a 7-pixel font is about 550).
MAX_COLUMNS = 500
#: The tallest terminal a tab's app is given, in rows. Textual's memory grows with the area: at 500 x 200 an
#: app holds about 90 MB, at 100 x 100,000 it grew past 4 GB.
MAX_ROWS = 200
#: The size a tab gets when its address names none, or names something that is not a whole number.
DEFAULT_COLUMNS, DEFAULT_ROWS = 80, 24
#: How many browser tabs may be open at once by default, each its own app process (about 90-140 MB each).
DEFAULT_MAX_TABS = 8
#: The addresses that bind every interface: a browser cannot use them in a URL.
WILDCARD_HOSTS = ("0.0.0.0", "::", "")
#: The names a browser on this machine may reach a loopback server at.
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the server to this machine (``localhost`` or an address in 127.0.0.0/8
    or ::1); a name other than ``localhost`` may resolve anywhere, so it does not count.

    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("::1"), is_loopback("0.0.0.0")
    (True, True, True, False)
    """
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def cells(value: object, upper: int) -> int | None:
    """``value`` (a number, or text holding a whole number) as a count of cells from 1 to ``upper``; None for
    anything else (a word, a fraction in text, true/false, infinity, a list...).

    >>> cells("99999999", 200), cells(0, 500), cells(-3, 500), cells(120.7, 500), cells("abc", 500)
    (200, 1, 1, 120, None)
    """
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        # int() refuses text over 4,300 digits (ValueError), infinity (OverflowError) and NaN (ValueError)
        count = int(value)
    except (ValueError, OverflowError):
        return None
    return max(1, min(count, upper))


def terminal_size(query: Mapping[str, str]) -> tuple[int, int]:
    """The (columns, rows) a new tab's app starts at, from the ``width`` and ``height`` of the websocket's
    address, each bounded (1 to 500 columns, 1 to 200 rows); a missing or unreadable one is 80 x 24's.

    >>> terminal_size({"width": "100", "height": "99999999"}), terminal_size({"width": "x"})
    ((100, 200), (80, 24))
    """
    columns = cells(query.get("width", DEFAULT_COLUMNS), MAX_COLUMNS)
    rows = cells(query.get("height", DEFAULT_ROWS), MAX_ROWS)
    return (DEFAULT_COLUMNS if columns is None else columns, DEFAULT_ROWS if rows is None else rows)


def resize(data: object) -> tuple[int, int] | None:
    """The (columns, rows) a ``["resize", data]`` message asks for, bounded as ``terminal_size``; None when
    ``data`` is not ``{"width": number, "height": number}`` (the message is then ignored).

    >>> resize({"width": 100000, "height": 100000}), resize({"width": "wide", "height": 5}), resize([1, 2])
    ((500, 200), None, None)
    """
    if not isinstance(data, dict):
        return None
    columns, rows = cells(data.get("width"), MAX_COLUMNS), cells(data.get("height"), MAX_ROWS)
    if columns is None or rows is None:
        return None
    return columns, rows


def origin_of(url: str) -> str | None:
    """The web origin of ``url``, as ``scheme://host:port`` in lower case, the default port filled in; None
    when ``url`` has no http(s) origin (``null``, which a sandboxed frame or a file sends, a bare name...).

    >>> origin_of("HTTP://LocalHost:8000/x"), origin_of("https://quiz.example"), origin_of("http://[::1]:80")
    ('http://localhost:8000', 'https://quiz.example:443', 'http://[::1]:80')
    >>> origin_of("null"), origin_of("my-laptop:8000"), origin_of("http://x:99999")
    (None, None, None)
    """
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:  # a port out of range or not a number, a bracket left open
        return None
    scheme, host = parts.scheme.lower(), parts.hostname
    if scheme not in ("http", "https") or not host:
        return None
    port = port or (443 if scheme == "https" else 80)
    return f"{scheme}://[{host}]:{port}" if ":" in host else f"{scheme}://{host}:{port}"


def served_origins(host: str, port: int, public_url: str, allowed: Iterable[str] = ()) -> frozenset[str]:
    """The origins whose pages may open a tab: the server's own at ``host``:``port`` (for a loopback or
    wildcard ``host`` also 127.0.0.1, localhost and [::1]), ``public_url``'s, and each of ``allowed``.

    >>> sorted(served_origins("127.0.0.1", 8000, "http://127.0.0.1:8000"))
    ['http://127.0.0.1:8000', 'http://[::1]:8000', 'http://localhost:8000']
    >>> sorted(served_origins("10.0.0.5", 80, "https://quiz.example/", ["http://proxy.example:8080"]))
    ['http://10.0.0.5:80', 'http://proxy.example:8080', 'https://quiz.example:443']
    """
    hosts = {host} - set(WILDCARD_HOSTS)  # 0.0.0.0 can still be typed into a browser on this machine
    if host in WILDCARD_HOSTS or is_loopback(host):
        hosts.update(LOOPBACK_NAMES)
    urls = [f"http://[{name}]:{port}" if ":" in name else f"http://{name}:{port}" for name in hosts]
    if host in ("0.0.0.0", ""):
        urls.append(f"http://0.0.0.0:{port}")
    origins = {origin_of(url) for url in (*urls, public_url, *allowed)}
    return frozenset(origin for origin in origins if origin is not None)


def origin_allowed(origin: str | None, served: frozenset[str]) -> bool:
    """Whether a websocket whose request carries ``origin`` (its ``Origin`` header) may open a tab. Browsers
    always send one, so a page elsewhere is refused; a request without one comes from a program on a machine
    that can reach the server, which could as well run the app itself.

    >>> served = served_origins("127.0.0.1", 8000, "http://127.0.0.1:8000")
    >>> [origin_allowed(o, served) for o in (None, "http://localhost:8000", "http://evil.example", "null")]
    [True, True, False, False]
    """
    if origin is None:
        return True
    return origin_of(origin) in served


def refusal_for_tabs(max_tabs: int) -> str:
    """The close reason of a tab over the cap (a websocket close reason holds at most 123 bytes).

    >>> len(refusal_for_tabs(10**6).encode()) <= 123
    True
    """
    tabs = "tab is" if max_tabs == 1 else "tabs are"
    return f"quizzer serve: {max_tabs} {tabs} open, the most allowed (--max-tabs). Close one, then Restart."
