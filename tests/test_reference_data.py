"""The reference figures shipped in tests/data/reference/ are whole and self-consistent."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REFERENCE_DIR, load_reference

MODEL_FILES = ["real_models.json", "real_models_2025.json", "real_models_2026.json"]


def _models() -> list[tuple[str, dict[str, Any]]]:
    return [(name, m) for name in MODEL_FILES for m in load_reference(name)]


def _refresh_module() -> Any:
    path = REFERENCE_DIR.parent / "refresh_reference.py"
    spec = importlib.util.spec_from_file_location("refresh_reference", path)
    assert spec
    assert spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_data_lives_in_the_checkout() -> None:
    root = Path(__file__).resolve().parent.parent
    assert REFERENCE_DIR.is_relative_to(root)
    assert len(load_reference("real_models.json")) == 12
    assert len(load_reference("real_models_2025.json")) == 10
    assert len(load_reference("real_models_2026.json")) == 7
    assert len(load_reference("problems.json")) == 45


@pytest.mark.parametrize(("file", "model"), _models(), ids=lambda v: v["name"] if isinstance(v, dict) else v)
def test_every_model_adds_up_to_its_total(file: str, model: dict[str, Any]) -> None:
    params = model["params"]
    emb = params["embedding"]
    assert emb["token"] + emb["position"] + emb["token_type"] + emb["embedding_norm"] == emb["total"]
    for group in params["layer_groups"]:
        mixer = group.get("mixer", 0)  # the 2026 file's fixed-state mixers
        assert group["attention"] + mixer + group["mlp"] + group["norm"] + group["other"] == group["total"]
    layers = sum(group["total"] * group["count"] for group in params["layer_groups"])
    assert layers == params["layers_total"]
    config = model["config"]
    assert sum(group["count"] for group in params["layer_groups"]) == config.get(
        "num_layers", config.get("num_hidden_layers")
    )
    parts = emb["total"] + layers + params["final_norm"] + params["lm_head"] + params["other"]
    assert parts == params["total"]
    assert params["total"] - emb["total"] - params["lm_head"] == params["non_embedding_total"]
    if params["lm_head_tied"]:  # None for BERT, which has no head
        assert params["lm_head"] == 0
    elif params["lm_head_tied"] is False:
        assert params["lm_head"] > 0
    assert model["config_json"]["model_type"], "every model carries the config.json it was built from"


@pytest.mark.parametrize(("file", "model"), _models(), ids=lambda v: v["name"] if isinstance(v, dict) else v)
def test_every_model_names_its_checkpoint_and_flops_add_up(file: str, model: dict[str, Any]) -> None:
    assert model["reference_checkpoint"]
    flops = model["flops_forward"]
    split = flops["layers_matmul"] + flops["attention_score"] + flops["lm_head"] + flops["other"]
    # the 2026 file adds the DSA indexer's scores and the mixers' inner matmuls and convolutions
    split += flops.get("attention_score_indexer", 0) + flops.get("mixer_internal", 0)
    assert split == flops["total"]


@pytest.mark.parametrize("problem", load_reference("problems.json"), ids=lambda p: p["id"])
def test_every_problem_has_a_source_an_answer_and_a_tolerance(problem: dict[str, Any]) -> None:
    assert problem["source"].strip()
    assert isinstance(problem["answer"], int | float)
    assert not isinstance(problem["answer"], bool)
    assert problem["units"].strip()
    tolerance = problem["tolerance"]
    assert tolerance["kind"] in {"exact", "relative"}
    if tolerance["kind"] == "exact":
        assert tolerance["value"] == 0
    else:
        assert 0 < tolerance["value"] < 1


def test_problem_ids_are_unique() -> None:
    ids = [p["id"] for p in load_reference("problems.json")]
    assert len(ids) == len(set(ids))


def test_no_prose_was_copied() -> None:
    module = _refresh_module()
    for name in [*MODEL_FILES, "problems.json"]:
        text = (REFERENCE_DIR / name).read_text(encoding="utf-8")
        for key in module.PROSE_KEYS:
            assert f'"{key}":' not in text, (name, key)


def test_refresh_strips_prose_and_keeps_figures_and_sources(tmp_path: Path) -> None:
    module = _refresh_module()
    source = tmp_path / "shared"
    source.mkdir()
    model = {
        "name": "m",
        "config_json": {"notes": "kept: config.json is data"},
        "params": {"total": 7, "why": "x"},
    }
    (source / "real_models.json").write_text(
        json.dumps({"models": [model], "generated_with": {"torch": "2"}})
    )
    (source / "real_models_2025.json").write_text(json.dumps({"models": [], "description": "prose"}))
    (source / "real_models_2026.json").write_text(json.dumps({"models": [], "conventions": {"kv": "prose"}}))
    problem = {"id": "P-1", "question": "prose", "answer": 3, "source": "https://example.org", "notes": "n"}
    (source / "problems.json").write_text(json.dumps([problem]))
    target = tmp_path / "out"
    target.mkdir()
    module.refresh(source, target)
    models = json.loads((target / "real_models.json").read_text())
    assert models["records"] == [
        {"name": "m", "config_json": {"notes": "kept: config.json is data"}, "params": {"total": 7}}
    ]
    assert models["generated_with"] == {"torch": "2"}
    problems = json.loads((target / "problems.json").read_text())["records"]
    assert problems == [{"id": "P-1", "answer": 3, "source": "https://example.org"}]
