"""A model named by the user (``--model``, ``--set model=...``, Home's "practise on a model"): a preset, or a
config.json read and registered under its digest."""

from __future__ import annotations

import json
import os
from typing import Any

from quizzer.core.errors import ConfigError, QuizzerError


def is_path(ref: str) -> bool:
    """Whether ``ref`` names a file or folder rather than a preset (as `quizzer count` decides)."""
    return ref.endswith(".json") or os.sep in ref or "/" in ref or os.path.exists(ref)


def model_name(ref: str) -> str:
    """The name templates take for ``ref``: a preset's canonical name (own fields kept), or for a path the
    ``config-<digest>`` name its config.json is registered under. Raises the one-line error `quizzer count`
    gives for a model it cannot read."""
    from quizzer.core.presets import preset, register_config

    if not is_path(ref):
        return preset(ref).name
    path, config = read_config(ref)
    try:
        return register_config(config, title=_title(path, config))
    except QuizzerError as exc:
        raise type(exc)(f"{path}: {exc}") from None


def read_config(ref: str) -> tuple[str, dict[str, Any]]:
    """(path, parsed JSON) of a config.json (or a folder holding one); a one-line ConfigError if it cannot be
    read or is not JSON."""
    path = os.path.join(ref, "config.json") if os.path.isdir(ref) else ref
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        raise ConfigError(f"no such file: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    try:
        config = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    return path, config


def _title(path: str, config: object) -> str:
    """How prompts name a config's model: its ``_name_or_path``, else its folder's name."""
    named = config.get("_name_or_path") if isinstance(config, dict) else None
    if isinstance(named, str) and named.strip():
        return named.strip()
    folder = os.path.basename(os.path.dirname(os.path.abspath(path)))
    return f"your model ({folder if path.endswith('config.json') and folder else os.path.basename(path)})"


__all__ = ["is_path", "model_name", "read_config"]
