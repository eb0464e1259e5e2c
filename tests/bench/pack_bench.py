"""`make bench` rows for a question pack at the size limit: its load time against the built-in bank's."""

from __future__ import annotations

import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNS = 5
#: A pack's load grows with its size: its time per byte within this factor of the file it copies. (Measured
#: 1.5-1.7: the cyclic garbage collector scans a heap that grows with the pack; with gc off it is 0.7.)
BUDGET = 2.0
_ID = re.compile(r'^(id = ")([^"]+)(")', re.MULTILINE)


def _largest_file() -> Path:
    return max((ROOT / "questions").glob("*.toml"), key=lambda p: p.stat().st_size)


def build_pack(folder: Path, limit_bytes: int) -> Path:
    """One file of copies of the largest built-in file (ids made unique), as close to ``limit_bytes`` as
    whole copies allow; returns its path."""
    text = _largest_file().read_text(encoding="utf-8")
    size = len(text.encode("utf-8"))
    parts = [_ID.sub(rf"\g<1>\g<2>-copy{k}\g<3>", text) for k in range(limit_bytes // (size + 16))]
    path = folder / "at-the-limit.toml"
    path.write_text("\n".join(parts), encoding="utf-8")
    return path


def _load_ms(groups: dict[str, list[str]], runs: int = RUNS) -> dict[str, tuple[float, int, int]]:
    """Per group of paths: median CPU ms to load and validate it (templates and problems, as `quizzer
    list` does), its templates and its problems. Groups run interleaved so a busy patch of the machine
    weighs on all alike; CPU time, since other processes share the cores; one warm-up round is dropped."""
    from quizzer.bank.loader import load_bank

    times: dict[str, list[float]] = {label: [] for label in groups}
    counts: dict[str, tuple[int, int]] = {}
    for round_ in range(runs + 1):
        for label, paths in groups.items():
            start = time.process_time()
            bank = load_bank(paths)
            counts[label] = (len(bank.templates()), len(bank.problems()))
            if round_:
                times[label].append((time.process_time() - start) * 1000)
            del bank  # freed outside the next group's timing
    return {label: (statistics.median(times[label]), *counts[label]) for label in groups}


def pack_rows() -> list[str]:
    """A pack at MAX_FILE_BYTES against the one built-in file it copies (time per byte, same run), the
    built-in bank for scale, and the rejection of a file one byte over the limit."""
    sys.path.insert(0, str(ROOT))
    from quizzer.bank.limits import MAX_FILE_BYTES

    one = _largest_file()
    with tempfile.TemporaryDirectory() as tmp:
        pack = build_pack(Path(tmp), MAX_FILE_BYTES)
        pack_bytes = pack.stat().st_size
        over = Path(tmp) / "over.toml"
        over.write_bytes(pack.read_bytes() + b"\n" * (MAX_FILE_BYTES + 1 - pack_bytes))
        measured = _load_ms(
            {"one": [str(one)], "pack": [str(pack)], "bank": [str(ROOT / "questions")], "over": [str(over)]}
        )
    (one_ms, one_templates, _), (pack_ms, pack_templates, pack_problems) = measured["one"], measured["pack"]
    bank_ms, bank_templates, _ = measured["bank"]
    over_ms, _, over_problems = measured["over"]
    ratio = (pack_ms / pack_bytes) / (one_ms / one.stat().st_size)
    label = (
        f"pack at the limit ({pack_bytes / 1024:.0f} KiB, {pack_templates} templates) {pack_ms:.0f} ms "
        f"vs {one.name} ({one.stat().st_size / 1024:.0f} KiB, {one_templates}) {one_ms:.1f} ms"
    )
    rows = [
        f"  {label:<64} per byte {ratio:5.2f} (budget <= {BUDGET})  {'ok' if ratio <= BUDGET else 'OVER'}",
        f"  {'the built-in bank, for scale (' + str(bank_templates) + ' templates)':<64} {bank_ms:6.0f} ms",
        f"  {'a file one byte over the limit: named and not read':<64} {over_ms:6.1f} ms",
    ]
    if pack_problems or over_problems != 1:
        rows.append(
            f"  unexpected: {pack_problems} problems at the limit and {over_problems} over it (want 0, 1)"
        )
    return rows


if __name__ == "__main__":
    print("\n".join(pack_rows()))
