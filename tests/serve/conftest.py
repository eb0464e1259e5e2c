"""Serve test helpers: served.py beside this file starts `quizzer serve` and speaks to its websocket."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
