"""What `quizzer pack new NAME` writes: one template, the author's README, a Makefile and a pyproject.toml."""

from __future__ import annotations

import re

#: A pack's name: lower-case words of letters and digits joined by single dashes, a letter first (it
#: becomes the template ids' prefix, the topic, the entry point's name and, with _, the package's).
SLUG = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
#: The longest name: ids stay readable and the folder name portable.
MAX_NAME_CHARS = 40

TEMPLATE = '''\
# The {name} pack. Each [[template]] is one question with variables; quizzer draws fresh numbers for
# every instance, computes the answer with its counting core and grades what is typed.
# How to write one: README.md beside this file. Check the pack with `make check` (`quizzer check .`).

[[template]]
id = "{name}-weights-memory"           # stable and unique across every pack: history keys on it
title = "Weight memory at a dtype"
topic = "{name}"
difficulty = "easy"                    # easy | medium | hard
minutes = 2                            # the time a prepared candidate needs
kind = "exact"                         # exact (a computed value) | estimate (graded by a factor)
tags = ["inference memory", "dtypes"]

prompt = """
A model of **{{billions}}B parameters** is served with its weights stored in **{{dtype}}**.

How much memory do the weights alone take? Answer in GiB.
"""

conventions = [
  "GiB = 2^30 bytes; a bare number is read as GiB (a figure typed in GB or MiB is converted).",
  "Weights only: no KV cache, activations, optimizer state or framework overhead.",
  "Bytes per parameter: fp32 4, bf16 and fp16 2, fp8 and int8 1.",
]

nudges = [
  "How many bytes does one parameter take in this dtype?",
  "Which power of two turns bytes into GiB?",
]

explanation = """
**Weights are parameters times bytes.** Every parameter is stored once, in the serving dtype, so the
weights take `parameters × bytes per parameter`; {{dtype}} stores {{value_bytes:plural(byte)}} per parameter.

{{derivation}}

So the weights take **{{answer}}**: divide bytes by 2^30 for GiB, by 10^9 for GB.
"""

tldr = "Weight memory = parameters × bytes per parameter ({{value_bytes}} in {{dtype}}): here {{answer}}."

memory_aid = """Billions of parameters times bytes each gives GB: \
{{billions}}B × {{value_bytes:plural(byte)}} = {{gb}} GB, a little under {{gb}} GiB."""

[template.variables]
billions = {{ choices = [1, 3, 7, 8, 13, 34, 70] }}
dtype = {{ choices = ["fp32", "bf16", "fp16", "fp8", "int8"] }}
n_params = {{ expr = "billions * 10 ** 9", unit = "params" }}
value_bytes = {{ expr = "weights_bytes(1, dtype)", label = "bytes per parameter" }}
gb = {{ expr = "billions * value_bytes", label = "GB" }}

[template.answer]
expr = "weights_bytes(n_params, dtype)"
unit = "bytes"                         # the base unit: never pre-scaled
display = "GiB"                        # what people see, and what a bare number means
tolerance = {{ rel = 0.01 }}             # answers within 1% are correct

[[template.mistakes]]
name = "bits-for-bytes"
title = "Bits counted as bytes"
answer = "8 * weights_bytes(n_params, dtype)"
feedback = """That is the weights' size in bits, or bytes counted at 8 per parameter. {{dtype}} stores \\
{{value_bytes:plural(byte)}} per parameter: multiply the parameters by that, not by its bits."""
'''

README = """\
# {name}

A question pack for [quizzer](https://pypi.org/project/quizzer-ml/): {count_words} in `{file}`.

## Try it

```sh
make check                                  # quizzer check .: every problem, exit 0 when clean
quizzer show {template_id} --questions .    # an instance, its answer and explanation
quizzer drill --questions . --topic {name}  # practise it in the app
```

## Write templates

Each `[[template]]` in a `*.toml` file of this folder is one question; `{file}` is a complete, checked
example. The fields, the variables, the text placeholders, the answer's unit and tolerance, mistakes and
the lints are described in quizzer's guide to writing templates
({guide}). `quizzer check --lints` lists what the check looks for.

- Ids are global: give every template an id of its own (this pack's start with `{name}-`). An id the
  built-in bank or another pack already uses is reported, and that copy is skipped.
- The answer is always computed (`expr`), never typed in: the calculators are listed by
  `python -c "import quizzer.core as c; print(sorted(c.CALCULATORS))"`.
- Run `make check` after every change: it loads every template, draws 100 instances of each and runs
  every lint. `quizzer check --seeds 500 .` looks harder.

## Use it everywhere

Pass the folder to any verb (`--questions PATH`, or `QUIZZER_QUESTIONS=PATH`), or list it once in
quizzer's config.toml (`quizzer config path` prints where it is), for every verb and the app:

```toml
packs = ["{path}"]
```

`quizzer pack list` shows every pack loaded, where it comes from, its templates and its problems.

## Publish it

`pyproject.toml` makes this folder a Python package, `{dist}`, that declares the pack through the
`quizzer.packs` entry point:

```toml
[project.entry-points."quizzer.packs"]
{name} = "{module}"
```

The value names the package whose folder holds the `*.toml` (quizzer finds it without importing it).
Installed beside quizzer (`pip install .`, or `pipx inject quizzer-ml .` for a pipx install), the pack is
loaded by every verb and the app, and `quizzer pack list` shows it as `entry point {name} ({dist})`.
To publish: `python -m build`, then upload `dist/*` with `twine upload`. Edit the description and the
version in `pyproject.toml` first; the wheel holds the `*.toml` files of this folder (never
`pyproject.toml`, which quizzer never reads as templates).
"""

MAKEFILE = """\
# The pack's commands. QUIZZER is the quizzer to run: make check QUIZZER=~/.local/bin/quizzer
QUIZZER ?= quizzer

.PHONY: check show drill

# Every problem in this pack (schema, instances, lints, ids other packs use); exit 1 if there is any.
check:
\t$(QUIZZER) check .

# One instance of the example, with its answer and explanation.
show:
\t$(QUIZZER) show {template_id} --questions .

# Practise this pack's questions in the app.
drill:
\t$(QUIZZER) drill --questions . --topic {name}
"""

PYPROJECT = """\
# Publishing this pack as a Python package (see README.md): quizzer never reads this file as templates.
[build-system]
requires = ["hatchling>=1.24"]
build-backend = "hatchling.build"

[project]
name = "{dist}"
version = "0.1.0"
description = "{name}: a question pack for quizzer"
readme = "README.md"
requires-python = ">=3.11"
dependencies = ["quizzer-ml"]

# quizzer loads the *.toml in the folder of the package named here (pack name = package).
[project.entry-points."quizzer.packs"]
{name} = "{module}"

# The wheel holds this folder's *.toml (not in subfolders, not this file) as the package {module}.
[tool.hatch.build.targets.wheel]
include = ["/*.toml"]
exclude = ["/pyproject.toml"]

[tool.hatch.build.targets.wheel.sources]
"" = "{module}"
"""


def module_name(name: str) -> str:
    """The package a pack named ``name`` is published as.

    >>> module_name("my-pack")
    'quizzer_pack_my_pack'
    """
    return "quizzer_pack_" + name.replace("-", "_")


def dist_name(name: str) -> str:
    """The distribution a pack named ``name`` is published as.

    >>> dist_name("my-pack")
    'quizzer-pack-my-pack'
    """
    return "quizzer-pack-" + name
