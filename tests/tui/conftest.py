"""TUI test helpers: the snapshot apps live in snapshot_app.py beside this file."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
