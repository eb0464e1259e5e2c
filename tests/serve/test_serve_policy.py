"""The rules `quizzer serve` applies to a tab (sizes, origins) and the page it serves, without a browser."""

from __future__ import annotations

import re
import urllib.request
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st
from served import PATIENCE_S, serving

from quizzer.commands.serve_page import local_page
from quizzer.commands.serve_policy import (
    MAX_COLUMNS,
    MAX_ROWS,
    origin_allowed,
    origin_of,
    resize,
    served_origins,
    terminal_size,
)

#: Any value JSON can carry: what a ``["resize", data]`` message may hold.
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["width", "height", "x"]), inner)
    ),
    max_leaves=8,
)


@pytest.mark.parametrize(
    ("query", "size"),
    [
        ({}, (80, 24)),
        ({"width": "100", "height": "32"}, (100, 32)),
        ({"width": "100", "height": "99999999"}, (100, MAX_ROWS)),
        ({"width": "100000", "height": "100000"}, (MAX_COLUMNS, MAX_ROWS)),
        ({"width": "0", "height": "-5"}, (1, 1)),
        ({"width": "wide", "height": "1e9"}, (80, 24)),  # not whole numbers: the defaults
        ({"width": "", "height": "9" * 5000}, (80, 24)),  # over int()'s 4,300 digits
    ],
)
def test_the_size_in_the_address_is_bounded(query: dict[str, str], size: tuple[int, int]) -> None:
    assert terminal_size(query) == size


@given(JSON_VALUES)
def test_a_resize_is_bounded_or_ignored(data: object) -> None:
    size = resize(data)
    assert size is None or (1 <= size[0] <= MAX_COLUMNS and 1 <= size[1] <= MAX_ROWS)


@given(st.integers(), st.integers())
def test_a_resize_of_numbers_is_clamped(width: int, height: int) -> None:
    expected = (max(1, min(width, MAX_COLUMNS)), max(1, min(height, MAX_ROWS)))
    assert resize({"width": width, "height": height}) == expected


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000"),
        ("HTTP://LocalHost:8000/path?q", "http://localhost:8000"),
        ("http://localhost", "http://localhost:80"),
        ("https://quiz.example", "https://quiz.example:443"),
        ("http://[::1]:8000", "http://[::1]:8000"),
        ("http://127.0.0.1:8000@evil.example", "http://evil.example:80"),  # the user part is not the host
        ("null", None),
        ("", None),
        ("file:///home/me/page.html", None),
        ("ws://127.0.0.1:8000", None),
        ("http://127.0.0.1:99999", None),
        ("http://[::1", None),
    ],
)
def test_origins_are_compared_normalised(url: str, origin: str | None) -> None:
    assert origin_of(url) == origin


def test_a_loopback_server_accepts_its_three_names_at_its_port() -> None:
    served = served_origins("127.0.0.1", 8000, "http://127.0.0.1:8000")
    for origin in ("http://127.0.0.1:8000", "http://localhost:8000", "http://[::1]:8000", None):
        assert origin_allowed(origin, served), origin
    for origin in ("http://127.0.0.1:8001", "https://127.0.0.1:8000", "http://evil.example", "null", ""):
        assert not origin_allowed(origin, served), origin


def test_a_server_on_every_interface_accepts_this_machine_and_its_public_url() -> None:
    served = served_origins("0.0.0.0", 8000, "http://my-laptop:8000", ["https://proxy.example"])
    assert served == {
        "http://0.0.0.0:8000",
        "http://127.0.0.1:8000",
        "http://localhost:8000",
        "http://[::1]:8000",
        "http://my-laptop:8000",
        "https://proxy.example:443",
    }


def test_a_named_host_accepts_only_that_name() -> None:
    assert served_origins("quiz.lan", 8000, "http://quiz.lan:8000") == {"http://quiz.lan:8000"}


def test_the_page_rewrite_leaves_no_google_font() -> None:
    page = local_page(
        "<html><head>\n"
        '<link rel="stylesheet" href="/static/css/xterm.css" />\n'
        '<link\n  rel="stylesheet"\n  href="https://fonts.googleapis.com/css?family=Roboto%20Mono"\n/>\n'
        "</head><body></body></html>"
    )
    assert "fonts.googleapis.com" not in page
    assert '<link rel="stylesheet" href="/static/css/xterm.css" />' in page
    assert page.count("@font-face") == 2


def fetch(url: str) -> tuple[int, bytes]:
    """The status and body of a GET of ``url`` (no proxy: the server is on this machine)."""
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with direct.open(url, timeout=PATIENCE_S) as response:
        return response.status, response.read()


def test_the_page_names_no_other_host_and_every_file_it_names_is_served(tmp_path: Path) -> None:
    with serving(cwd=tmp_path) as served:
        status, body = fetch(served.url)
        page = body.decode("utf-8")
        assert status == 200
        named = [a or b for a, b in re.findall(r'(?:href|src)="([^"]*)"|url\("?([^")]*)"?\)', page)]
        files = [urljoin(served.url + "/", url) for url in named if url]
        assert len(files) >= 5, named  # xterm.css, textual.js, the background, the fonts
        hosts = {urlsplit(url).netloc for url in files}
        assert hosts == {f"127.0.0.1:{served.port}"}, named
        for url in files:
            assert fetch(url)[0] == 200, url
        assert any(url.endswith("RobotoMono-VariableFont_wght.ttf") for url in files), named
        assert served.stop() == 0
