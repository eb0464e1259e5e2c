"""Fixtures for the store tests: a private temporary folder, a small filesystem, immutable files."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.store import faultkit


@pytest.fixture(autouse=True)
def private_tmp(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temporary folder the store falls back to for side files: one per test, not the machine's /tmp."""
    folder = tmp_path_factory.mktemp("tmp")
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 512 KiB tmpfs (needs root: otherwise the test is skipped with the reason)."""
    folder = tmp_path / "disk"
    problem = faultkit.mount_small_disk(folder)
    if problem is not None:
        pytest.skip(f"no small filesystem to fill: {problem}")
    try:
        yield folder
    finally:
        faultkit.unmount(folder)


@pytest.fixture
def immutable_ok(tmp_path: Path) -> None:
    """Skips the test, with the reason, where ``chattr +i`` does not work on tmp_path's filesystem."""
    problem = faultkit.immutable_unsupported(tmp_path)
    if problem is not None:
        pytest.skip(problem)
