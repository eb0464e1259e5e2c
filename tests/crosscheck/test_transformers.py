"""Cross-check every preset against transformers' own modules on the meta device (`make crosscheck`).

Skipped unless torch and transformers are installed (see README: `pip install torch==2.13.0`, then
`pip install transformers`). No weights are downloaded: models are built from the preset's config.
"""

from __future__ import annotations

from typing import Any

import pytest

from quizzer.core.model import param_breakdown
from quizzer.core.presets import preset, preset_names

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

pytestmark = [pytest.mark.crosscheck, pytest.mark.filterwarnings("ignore")]


def _build(config: dict[str, Any]) -> Any:
    cfg = transformers.AutoConfig.for_model(**config)
    with torch.device("meta"):
        if config["model_type"] == "bert":
            return transformers.BertModel(cfg)  # the base model, with its pooler, no LM head
        return transformers.AutoModelForCausalLM.from_config(cfg)


def _numel(module: Any) -> int:
    return sum(p.numel() for p in module.parameters())


@pytest.mark.parametrize("name", preset_names())
def test_preset_matches_transformers(name: str) -> None:
    found = preset(name)
    model = _build(dict(found.config))
    parts = param_breakdown(found.spec)
    assert _numel(model) == parts.total
    assert model.get_input_embeddings().weight.numel() == parts.token_embedding
    if found.spec.lm_head:
        head = model.get_output_embeddings()
        tied = head.weight is model.get_input_embeddings().weight
        assert tied == found.spec.tie_embeddings
        assert (0 if tied else head.weight.numel()) == parts.lm_head
    layers = next(
        m for m in model.modules() if isinstance(m, torch.nn.ModuleList) and len(m) == found.spec.n_layers
    )
    assert _numel(layers[0]) == parts.per_layer


@pytest.mark.parametrize("name", [n for n in preset_names() if preset(n).spec.lm_head])
def test_kv_heads_and_head_dim(name: str) -> None:
    found = preset(name)
    cfg = transformers.AutoConfig.for_model(**dict(found.config))
    n_kv = getattr(cfg, "num_key_value_heads", None) or cfg.num_attention_heads
    head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
    assert (found.spec.n_kv_heads, found.spec.head_dim) == (n_kv, head_dim)
