"""The page `quizzer serve` sends: textual-serve's, its font served locally, a refused tab's reason shown."""

from __future__ import annotations

import re

#: textual-serve's page loads its font's stylesheet from Google Fonts: a request that leaves the machine on
#: every page load (telling a third party when someone practises), and that fails offline.
REMOTE_STYLESHEET = re.compile(
    r"<link\b[^>]*\bhref=\"https?://fonts\.(?:googleapis|gstatic)\.com/[^>]*>", re.I
)
#: The Roboto Mono files textual-serve itself ships in its static folder (served at /static/): the same font
#: the Google stylesheet named, from this server. Paths relative to the page, so that the font comes from the
#: page's own origin (a font from another origin needs CORS headers, which textual-serve does not send).
FONT_FILES = (
    "static/fonts/RobotoMono-VariableFont_wght.ttf",
    "static/fonts/RobotoMono-Italic-VariableFont_wght.ttf",
)
LOCAL_HEAD = f"""<link rel="preload" href="/{FONT_FILES[0]}" as="font" type="font/ttf" crossorigin />
    <style>
      @font-face {{
        font-family: "Roboto Mono";
        font-style: normal;
        font-weight: 100 700;
        src: url("/{FONT_FILES[0]}") format("truetype");
      }}
      @font-face {{
        font-family: "Roboto Mono";
        font-style: italic;
        font-weight: 100 700;
        src: url("/{FONT_FILES[1]}") format("truetype");
      }}
    </style>
    <script>
      // quizzer serve: when the server closes the tab with a reason (too many tabs open), the "Session
      // ended." box says it. Set as text, never as markup.
      (() => {{
        const Native = window.WebSocket;
        window.WebSocket = class extends Native {{
          constructor(...args) {{
            super(...args);
            this.addEventListener("close", (event) => {{
              const message = document.querySelector(".closed-dialog .message");
              if (event.reason && message) message.textContent = event.reason;
            }});
          }}
        }};
      }})();
    </script>
  </head>"""


def local_page(html: str) -> str:
    """textual-serve's page ``html`` without its Google Fonts stylesheet, declaring Roboto Mono from this
    server's static folder instead, and showing the reason the server gives when it closes the tab.

    >>> page = local_page('<head><link rel="stylesheet" href="https://fonts.googleapis.com/css?x" /></head>')
    >>> "googleapis" in page, "/static/fonts/RobotoMono-VariableFont_wght.ttf" in page, page.count("</head>")
    (False, True, 1)
    """
    html = REMOTE_STYLESHEET.sub("", html)
    return html.replace("</head>", LOCAL_HEAD, 1)
