"""Cross-check against transformers' own modules (`make crosscheck`): every preset and every supported
model_type on the meta device (parameters part by part), the KV figures against real cache objects, FLOPs
against torch's FlopCounterMode.

Skipped unless torch and transformers are installed (CONTRIBUTING.md: `pip install torch==2.13.0`, then
`pip install transformers==4.57.6`). No weights are downloaded: models are built from configs.
"""

from __future__ import annotations

from typing import Any

import pytest

from quizzer.core import hf_2026
from quizzer.core.flops import forward_flops_per_token
from quizzer.core.hf import BUILDERS, from_hf_config
from quizzer.core.kv_model import cross_attention_kv_bytes_per_source_token, model_kv_cache_bytes
from quizzer.core.model import param_breakdown
from quizzer.core.presets import preset, preset_names
from quizzer.core.spec import ModelSpec

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

pytestmark = [pytest.mark.crosscheck, pytest.mark.filterwarnings("ignore")]

T = dict(
    vocab_size=128,
    hidden_size=64,
    intermediate_size=96,
    num_hidden_layers=4,
    num_attention_heads=4,
    pad_token_id=0,
)
W = 4  # a window shorter than the 9 tokens the cache tests feed
#: A small config of every supported model_type, with the features that type's builder reads switched on.
SMALL: dict[str, dict[str, Any]] = {
    "gpt2": dict(model_type="gpt2", vocab_size=128, n_embd=64, n_layer=3, n_head=4, n_positions=32),
    "gpt_neox": dict(T, model_type="gpt_neox", rotary_pct=0.25),
    "opt": dict(T, model_type="opt", ffn_dim=96, max_position_embeddings=32, word_embed_proj_dim=64),
    "llama": dict(T, model_type="llama", num_key_value_heads=2),
    "mistral": dict(T, model_type="mistral", num_key_value_heads=2, sliding_window=W),
    "mixtral": dict(
        T, model_type="mixtral", num_key_value_heads=2, num_local_experts=4, num_experts_per_tok=2
    ),
    "qwen2": dict(
        T,
        model_type="qwen2",
        num_key_value_heads=2,
        use_sliding_window=True,
        sliding_window=W,
        max_window_layers=2,
    ),
    "gemma": dict(T, model_type="gemma", num_key_value_heads=1, head_dim=32),
    "phi3": dict(T, model_type="phi3", num_key_value_heads=2, sliding_window=W),
    "bert": dict(T, model_type="bert", max_position_embeddings=32),
    "qwen3": dict(
        T,
        model_type="qwen3",
        num_key_value_heads=2,
        head_dim=32,
        use_sliding_window=True,
        sliding_window=W,
        max_window_layers=2,
    ),
    "qwen3_moe": dict(
        T,
        model_type="qwen3_moe",
        num_key_value_heads=2,
        head_dim=32,
        moe_intermediate_size=24,
        num_experts=4,
        num_experts_per_tok=2,
        mlp_only_layers=[1],
    ),
    "gemma2": dict(T, model_type="gemma2", num_key_value_heads=2, head_dim=32, sliding_window=W),
    "gemma3_text": dict(
        T, model_type="gemma3_text", num_hidden_layers=7, num_key_value_heads=2, head_dim=32, sliding_window=W
    ),
    "deepseek_v2": dict(
        T,
        model_type="deepseek_v2",
        q_lora_rank=None,
        kv_lora_rank=16,
        qk_nope_head_dim=8,
        qk_rope_head_dim=4,
        v_head_dim=12,
        n_routed_experts=4,
        n_shared_experts=2,
        moe_intermediate_size=24,
        num_experts_per_tok=2,
        first_k_dense_replace=1,
        attention_bias=True,
    ),
    "deepseek_v3": dict(
        T,
        model_type="deepseek_v3",
        num_key_value_heads=4,
        q_lora_rank=32,
        kv_lora_rank=16,
        qk_nope_head_dim=8,
        qk_rope_head_dim=4,
        v_head_dim=12,
        n_routed_experts=4,
        n_shared_experts=1,
        moe_intermediate_size=24,
        num_experts_per_tok=2,
        first_k_dense_replace=2,
        n_group=2,
        topk_group=1,
    ),
    "kimi_k2": dict(
        T,
        model_type="kimi_k2",
        num_key_value_heads=4,
        q_lora_rank=32,
        kv_lora_rank=16,
        qk_nope_head_dim=8,
        qk_rope_head_dim=4,
        v_head_dim=12,
        n_routed_experts=8,
        n_shared_experts=1,
        moe_intermediate_size=24,
        num_experts_per_tok=2,
        first_k_dense_replace=1,
        n_group=1,
        topk_group=1,
    ),
    "gpt_oss": dict(
        T,
        model_type="gpt_oss",
        intermediate_size=48,
        num_key_value_heads=2,
        head_dim=16,
        num_local_experts=4,
        num_experts_per_tok=2,
        sliding_window=W,
    ),
    "llama4_text": dict(
        T,
        model_type="llama4_text",
        intermediate_size=48,
        intermediate_size_mlp=96,
        num_hidden_layers=8,
        num_key_value_heads=2,
        head_dim=16,
        num_local_experts=4,
        num_experts_per_tok=1,
        interleave_moe_layer_step=2,
        attention_chunk_size=W,
    ),
    "olmo2": dict(T, model_type="olmo2", num_key_value_heads=2),
    "olmo": dict(T, model_type="olmo", attention_bias=True),
    "granite": dict(T, model_type="granite", num_key_value_heads=2, attention_bias=True, mlp_bias=True),
    "phi": dict(T, model_type="phi", num_key_value_heads=2, qk_layernorm=True),
    "falcon": dict(
        model_type="falcon", vocab_size=128, hidden_size=64, num_hidden_layers=3, num_attention_heads=4
    ),
    "gptj": dict(model_type="gptj", vocab_size=128, n_embd=64, n_layer=3, n_head=4, rotary_dim=8),
    "bloom": dict(model_type="bloom", vocab_size=128, hidden_size=64, n_layer=3, n_head=4),
    "stablelm": dict(T, model_type="stablelm", num_key_value_heads=2, qk_layernorm=True, use_qkv_bias=True),
    "t5": dict(
        model_type="t5",
        vocab_size=128,
        d_model=64,
        d_kv=8,
        d_ff=96,
        num_layers=2,
        num_decoder_layers=3,
        num_heads=4,
        feed_forward_proj="gated-gelu",
        tie_word_embeddings=False,
    ),
}
#: More layouts of some types (the model_type's builder has branches).
VARIANTS: dict[str, dict[str, Any]] = {
    "falcon-new-gqa": dict(SMALL["falcon"], num_kv_heads=2, new_decoder_architecture=True, bias=True),
    "falcon-sequential-alibi": dict(
        SMALL["falcon"], parallel_attn=False, multi_query=False, alibi=True, bias=True
    ),
    "stablelm-parallel": dict(SMALL["stablelm"], use_parallel_residual=True, qk_layernorm=False),
    "t5-tied-relu": {
        k: v for k, v in SMALL["t5"].items() if k not in ("feed_forward_proj", "tie_word_embeddings")
    },
    "gemma3-bidirectional": dict(SMALL["gemma3_text"], use_bidirectional_attention=True, sliding_window=8),
}
CONFIGS = {**SMALL, **VARIANTS}


def _hf_config(config: dict[str, Any], **extra: Any) -> Any:
    config = {**config, **extra}
    model_type = config.pop("model_type")
    if model_type == "kimi_k2":  # Kimi K2 ships DeepSeek-V3's modeling code under its own model_type
        return transformers.DeepseekV3Config(**config)
    return transformers.AutoConfig.for_model(model_type, **config)


def _build(config: dict[str, Any], device: str = "meta", **extra: Any) -> Any:
    cfg = _hf_config(config, **extra)
    with torch.device(device):
        if config["model_type"] == "bert":
            return transformers.BertModel(cfg)  # the base model, with its pooler, no LM head
        if config["model_type"] == "t5":
            return transformers.T5ForConditionalGeneration(cfg).to(extra.get("dtype") or torch.float32)
        try:
            return transformers.AutoModelForCausalLM.from_config(cfg, dtype=extra.get("dtype"))
        except AttributeError:
            # transformers 4.57's StableLM init zeroes a LayerNorm bias that qk_layernorm builds without
            # (a bug):
            # build without init, then tie as init would.
            from transformers.modeling_utils import no_init_weights

            with no_init_weights():
                model = transformers.AutoModelForCausalLM.from_config(cfg)
            model.tie_weights()
            return model


def _numel(module: Any) -> int:
    return sum(p.numel() for p in module.parameters())


def _stacks(model: Any, spec: ModelSpec) -> dict[str, Any]:
    if spec.is_encoder_decoder:
        return {"encoder": model.encoder.block, "decoder": model.decoder.block}
    layers = next(
        m for m in model.modules() if isinstance(m, torch.nn.ModuleList) and len(m) == spec.n_layers
    )
    return {"decoder": layers, "encoder": layers}


def _compare_parameters(model: Any, spec: ModelSpec) -> None:
    parts = param_breakdown(spec)
    assert _numel(model) == parts.total
    assert model.get_input_embeddings().weight.numel() == parts.token_embedding
    if spec.lm_head:
        head = model.get_output_embeddings()
        tied = head.weight is model.get_input_embeddings().weight
        assert tied == spec.tie_embeddings
        bias = head.bias.numel() if getattr(head, "bias", None) is not None else 0
        assert (0 if tied else head.weight.numel()) + bias == parts.lm_head
    stacks = _stacks(model, spec)
    for group in parts.groups:
        for i in (group.layers[0], group.layers[-1]):
            layer = stacks[group.stack][i]
            table = 0
            if spec.positions == "relative" and i == 0:  # T5's bias table sits in the first layer's attention
                table = spec.relative_attention_buckets * spec.n_heads
            assert _numel(layer) - table == group.total, (group.stack, group.mlp_kind, i)


#: The types of late 2025-26 follow transformers 5.23 and are checked by test_transformers5.py.
OLDER_TYPES = set(BUILDERS) - set(hf_2026.BUILDERS)
OLDER_PRESETS = [n for n in preset_names() if preset(n).config["model_type"] in OLDER_TYPES]


@pytest.mark.parametrize("name", OLDER_PRESETS)
def test_preset_matches_transformers(name: str) -> None:
    found = preset(name)
    _compare_parameters(_build(dict(found.config)), found.spec)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_model_type_matches_transformers(name: str) -> None:
    _compare_parameters(_build(CONFIGS[name]), from_hf_config(CONFIGS[name]))


def test_every_model_type_is_cross_checked() -> None:
    assert set(SMALL) == OLDER_TYPES


@pytest.mark.parametrize("name", [n for n in OLDER_PRESETS if preset(n).spec.lm_head])
def test_kv_heads_and_head_dim(name: str) -> None:
    found = preset(name)
    if found.spec.is_mla:
        return  # MLA's cache is checked against real cache objects below
    cfg = _hf_config(dict(found.config))
    n_kv = getattr(cfg, "num_key_value_heads", None) or cfg.num_attention_heads
    head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
    assert (found.spec.n_kv_heads, found.spec.head_dim) == (n_kv, head_dim)


def _cache_bytes(layers: Any) -> int:
    return sum(t.numel() * t.element_size() for layer in layers for t in (layer.keys, layer.values))


def _expected_spec(name: str, spec: ModelSpec) -> ModelSpec:
    """Falcon's new decoder layout broadcasts K and V to every query head before caching them, so
    transformers' cache holds n_heads heads where the model has n_kv_heads (GQA-aware runtimes cache less)."""
    if name == "falcon-new-gqa":
        return spec.replace(n_kv_heads=spec.n_heads)
    return spec


DECODERS = sorted(n for n in CONFIGS if CONFIGS[n]["model_type"] != "bert")


@pytest.mark.parametrize("name", DECODERS)
def test_kv_cache_matches_real_cache_objects(name: str) -> None:
    """After 9 tokens the cache holds what the 'hf' reading says (W − 1 per windowed layer); one decode step
    attends to what the 'paper' reading says at 10 tokens (W per windowed layer)."""
    config = CONFIGS[name]
    spec = _expected_spec(name, from_hf_config(config))
    mla = "decompressed" if spec.is_mla else "latent"  # transformers decompresses MLA's K and V
    torch.manual_seed(0)
    model = _build(config, "cpu", dtype=torch.bfloat16, attn_implementation="eager").eval()
    ids = torch.randint(0, 128, (1, 9))
    with torch.no_grad():
        if spec.is_encoder_decoder:
            cache = model(input_ids=ids[:, :7], decoder_input_ids=ids, use_cache=True).past_key_values
            cross = cache.cross_attention_cache.layers
            assert _cache_bytes(cross) == 7 * cross_attention_kv_bytes_per_source_token(spec, "bf16")
            layers = cache.self_attention_cache.layers
        else:
            layers = model(ids, use_cache=True).past_key_values.layers
    assert _cache_bytes(layers) == model_kv_cache_bytes(spec, 9, 1, "bf16", "hf", mla).value
    attended = 0
    for i, layer in enumerate(layers):
        new_k, new_v = (t[:, :, -1:] for t in (layer.keys, layer.values))
        keys, values = layer.update(new_k.clone(), new_v.clone(), {"cache_position": torch.tensor([9])})
        attended += (keys.numel() + values.numel()) * keys.element_size()
        assert i < spec.n_layers
    assert attended == model_kv_cache_bytes(spec, 10, 1, "bf16", "paper", mla).value


#: transformers runs these MoE layers over every expert for every token at inference (gpt-oss's batched
#: experts, Llama 4's dense-ish expert matmul), so FlopCounterMode sees all experts, not top-k.
ALL_EXPERTS = {"gpt_oss", "llama4_text"}


@pytest.mark.parametrize(
    "name", sorted(n for n in DECODERS if CONFIGS[n]["model_type"] not in ALL_EXPERTS | {"t5"})
)
def test_forward_flops_match_flop_counter(name: str) -> None:
    """FlopCounterMode over a forward of S tokens (eager attention) = S × our per-token count at context S,
    leaving out the rotary tables' outer product (not a weight matmul)."""
    from torch.utils.flop_counter import FlopCounterMode

    config, s = CONFIGS[name], 16
    spec = from_hf_config(config)
    model = _build(config, "cpu", attn_implementation="eager").eval()
    counter = FlopCounterMode(display=False)
    with counter, torch.no_grad():
        model(torch.randint(0, 128, (1, s)))
    counts = counter.get_flop_counts()
    rotary = sum(
        sum(ops.values())
        for module, ops in counts.items()
        if module.endswith(("rotary_emb", "rotary_emb_local"))
    )
    assert counter.get_total_flops() - rotary == s * forward_flops_per_token(spec, s).value
