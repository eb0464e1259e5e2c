"""Browser test helpers: tests/serve/served.py starts `quizzer serve` (its folder joins sys.path)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "serve"))
