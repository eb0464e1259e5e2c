"""The leaks lint: what only the code's authors can read, shown to a student (issue 25, class 8).

A path of this project (``quizzer/core/presets.toml``, a ``.py`` file) in a text or a reference's title
points a student at files they do not have; a reference that is no web address cannot be opened; a
follow-up written twice is printed twice.
"""

from __future__ import annotations

import re

from quizzer.bank.check.base import Lint
from quizzer.bank.check.identifiers_names import CODE_SPAN_RE
from quizzer.bank.check.literals_texts import source_texts
from quizzer.bank.read.schema import Template

#: A path into this project's tree: what a student of the tool never sees (a file of another project,
#: torchvision's vision_transformer.py, is a source like any other).
PATH_RE = re.compile(r"(?<![\w/.-])(?:quizzer|tests|questions)/[\w./-]*\w")


def code_paths(text: str) -> list[str]:
    """The paths of the project's code in ``text``, code spans included (a path is no config key).

    >>> code_paths("sources listed in quizzer/core/presets.toml; see `questions/README.md`.")
    ['quizzer/core/presets.toml', 'questions/README.md']
    >>> code_paths("torchvision's vision_transformer.py, https://github.com/a/quizzer/blob/main/tests/x.py")
    []
    """
    return PATH_RE.findall(CODE_SPAN_RE.sub(lambda m: f" {m.group(0).strip('`')} ", text))


class Leaks(Lint):
    """A path of the project's code in a text or a reference, a reference that is no web address, and a
    follow-up written twice."""

    name = "leaks"
    finds = (
        "a path of quizzer's code in a text, a reference that is no web address, a follow-up written twice"
    )

    def __init__(self, template: Template) -> None:
        super().__init__(template)
        texts = [(t.part, t.field, t.text) for t in source_texts(template)]
        texts += [(None, f"references[{i}].title", r.title) for i, r in enumerate(template.references)]
        for part, field, text in texts:
            for path in code_paths(text):
                self.report(
                    part,
                    field,
                    f"path {path}",
                    f"names {path!r}, a file of quizzer's code a student does not have: cite the source "
                    "itself (a paper, a model card, a config on the Hub)",
                )
        for i, reference in enumerate(template.references):
            if not reference.url.startswith(("https://", "http://")):
                self.report(
                    None,
                    f"references[{i}].url",
                    "no address",
                    f"{reference.url!r} is no web address a student can open: give the source's https:// URL",
                )
        seen: dict[str, int] = {}
        for i, follow_up in enumerate(template.follow_ups):
            key = " ".join(follow_up.question.split()).casefold()
            if key in seen:
                self.report(
                    None,
                    f"follow_ups[{i}].question",
                    "twice",
                    f"asks what follow_ups[{seen[key]}] asks: a student reads it twice; remove one",
                )
            seen.setdefault(key, i)


__all__ = ["PATH_RE", "Leaks", "code_paths"]
