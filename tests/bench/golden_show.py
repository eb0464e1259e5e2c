"""The `show --json` of every template at seeds 1..20, as one digest per template (a refactor's witness).

`python tests/bench/golden_show.py FILE` writes {template id: sha256 of its 20 instances' JSON} to FILE;
`--compare FILE` prints the templates whose digest differs from FILE's and exits 1 if any does.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

SEEDS = range(1, 21)


def digests() -> dict[str, str]:
    """Each template's digest: sha256 of the `show --json` of its instances at ``SEEDS``, in order."""
    from quizzer.bank.generate.render import generate
    from quizzer.bank.loader import load_bank
    from quizzer.commands.show import instance_json
    from quizzer.paths import questions_dir

    bank = load_bank([questions_dir()])
    out = {}
    for template in bank.templates():
        text = "\n".join(
            json.dumps(instance_json(generate(template, seed)), sort_keys=True) for seed in SEEDS
        )
        out[template.id] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return out


def main(argv: list[str]) -> int:
    if argv[:1] == ["--compare"]:
        before = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
        now = digests()
        changed = sorted(k for k in before.keys() | now.keys() if before.get(k) != now.get(k))
        print(f"{len(now)} templates, {len(SEEDS)} seeds each: {len(changed)} differ")
        for template_id in changed:
            print(f"  {template_id}")
        return 1 if changed else 0
    Path(argv[0]).write_text(json.dumps(digests(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
