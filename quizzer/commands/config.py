"""`quizzer config path`: where the settings file is (QUIZZER_CONFIG, else the user config folder)."""

from __future__ import annotations

import argparse

from quizzer.paths import config_file


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Print the path of config.toml, which may not exist yet (the app creates it when it saves a theme)."""
    print(config_file())
    return 0
