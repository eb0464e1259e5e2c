"""Shared fixtures and Hypothesis profiles for the whole suite."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=60, deadline=None)
settings.register_profile("ci", max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

REPO_ROOT = Path(__file__).resolve().parent.parent
#: The figures the golden tests compare against, shipped with the suite (refreshed by ``make reference``).
REFERENCE_DIR = REPO_ROOT / "tests" / "data" / "reference"


def load_reference(name: str) -> list[dict[str, Any]]:
    """The records of ``tests/data/reference/<name>``."""
    return json.loads((REFERENCE_DIR / name).read_text(encoding="utf-8"))["records"]


@pytest.fixture(scope="session")
def real_models() -> dict[str, dict[str, Any]]:
    """real_models.json keyed by model name."""
    return {m["name"]: m for m in load_reference("real_models.json")}


@pytest.fixture(scope="session")
def real_models_2025() -> dict[str, dict[str, Any]]:
    """real_models_2025.json (the 2025-26 architectures) keyed by model name."""
    return {m["name"]: m for m in load_reference("real_models_2025.json")}


@pytest.fixture(scope="session")
def problems() -> dict[str, dict[str, Any]]:
    """problems.json keyed by problem id."""
    return {p["id"]: p for p in load_reference("problems.json")}


@pytest.fixture(autouse=True)
def _private_history(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test, and every quizzer subprocess it starts, gets a fresh history and no config (not yours)."""
    folder = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("QUIZZER_DB", str(folder / "history.sqlite3"))
    monkeypatch.setenv("QUIZZER_CONFIG", str(folder / "config.toml"))  # none: the defaults, not yours
    # Every app a test makes refuses a history call on its UI thread: the reads run in workers.
    monkeypatch.setenv("QUIZZER_STRICT_THREADS", "1")


CROSSCHECK = REPO_ROOT / "tests" / "crosscheck"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """tests/crosscheck only when named on the command line (`make crosscheck`): where torch and transformers
    are installed, collecting it imports them (seconds per xdist worker) and running it takes minutes, so
    `make test` and `make test-slow` leave it out; where they are not installed it would only be skipped."""
    if collection_path != CROSSCHECK:
        return None
    named = [(config.invocation_params.dir / arg.split("::")[0]).resolve() for arg in config.args]
    return not any(path == CROSSCHECK or CROSSCHECK in path.parents for path in named)


#: Templates already parsed in this process, by (path, the table as written): see ``validated_once``.
_PARSED: dict[tuple[str, str], Any] = {}


@pytest.fixture
def validated_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each fresh Bank parses a template table this process has parsed before to the same Template, so
    the verbs that validate the whole bank (list, plain, check) do not redo the built-in templates in
    every CLI test. Exact: ``parse_template`` is a function of the table and its path only, and a Template
    is immutable; the names check and all that follows run as always, and a table that fails is parsed
    (and fails) again each time. The bank tests validate every template without it."""
    from quizzer.bank import loader
    from quizzer.bank.errors import TemplateError
    from quizzer.bank.read.schema import parse_template
    from quizzer.paths import questions_dir
    from tests.builtin_bank import builtin_bank

    if not _PARSED:  # the built-in bank's templates, validated once per process and shared with the modules
        bank, written = builtin_bank(), loader.load_bank([questions_dir()])
        for template_id in written.ids():  # the tables as written: peek keeps less once validated
            try:
                template = bank.get(template_id)
            except (KeyError, TemplateError):
                continue
            _PARSED[(template.path, repr(written.peek(template_id)))] = template

    def parse_once(raw: Any, path: str) -> Any:
        key = (path, repr(raw))
        if key not in _PARSED:
            _PARSED[key] = parse_template(raw, path)
        return _PARSED[key]

    monkeypatch.setattr(loader, "parse_template", parse_once)


def pytest_configure(config: pytest.Config) -> None:
    """Fix the dev sample's day (tests/sampling.py) before xdist starts its workers, which inherit it: a run
    across midnight still collects the same tests on every worker."""
    from tests.sampling import sample_day

    os.environ.setdefault("QUIZZER_TEST_DAY", str(sample_day()))


@pytest.hookimpl(optionalhook=True)  # a run with -p no:xdist (the browser test, crosscheck) has no such hook
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: two workers a core (at least 8 where there are cores for them). Half the suite drives a
    Textual app that waits on its timers and messages (a TUI file alone runs at 45-60% of a core), so one
    worker a core left the cores idle: on 2 cores, 224 s with 2 workers, 203 s with 4."""
    cores = os.cpu_count() or 1
    return min(2 * cores, max(cores, 8))


def pytest_report_header(config: pytest.Config) -> str:
    """Which templates the dev run samples, and how to replay it."""
    from tests.sampling import SHARE, full_run, sample_day

    if full_run():
        return "quizzer: ci profile, every per-template check on every template"
    return (
        f"quizzer: dev profile, the sampled per-template checks on 1 template in {SHARE} "
        f"(day {sample_day()}; QUIZZER_TEST_DAY={sample_day()} replays it, CI=true runs them all)"
    )
