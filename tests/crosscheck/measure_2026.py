#!/usr/bin/env python
"""Measure a Hugging Face config.json the way the real_models_2026 reference records were measured.

Standalone script: it needs torch and transformers 5.x and is never imported by the test-suite.
Run it with the environment that has them, e.g.

    /work/tf5/bin/python tests/crosscheck/measure_2026.py --verify REFERENCE.json   # re-measure, diff
    /work/tf5/bin/python tests/crosscheck/measure_2026.py config.json [more.json]   # print records

What it produces for one config.json dict (``measure(config_json)``):

- ``params``: the model is built with ``AutoModelForCausalLM.from_config`` on the meta device (no memory,
  no weights). ``total`` is ``sum(p.numel() for p in model.parameters())`` (tied weights once). Each
  decoder layer's parameters are split into ``attention`` (softmax attention: MHA/GQA, MLA and the
  DeepSeek sparse-attention indexer), ``mixer`` (non-softmax token mixers: gated DeltaNet, Kimi Delta
  Attention, Mamba-2, short convolution), ``mlp`` (dense FFN or MoE with its router and shared experts),
  ``norm`` (every norm module, ``norm_detail`` says where) and ``other`` (anything else, e.g. Gemma-3n's
  AltUp/LAuReL/per-layer-input blocks). Layers with equal kind and counts are grouped. ``moe_active`` is
  the total minus ``(num_experts - top_k) * params_per_expert`` in every MoE layer.
- ``kv_cache``: the full model is built in bfloat16 under ``FakeTensorMode`` (shapes only, no memory),
  run with ``use_cache=True`` on fresh inputs of 5 and 9 tokens, and every tensor of Hugging Face's cache
  object is read: growth per token = (bytes after 9 - bytes after 5) / 4; conv and recurrent states are
  fixed per sequence (dtype as found: HF keeps recurrent states in float32 even in a bf16 model).
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections import OrderedDict

warnings.filterwarnings("ignore")

import torch  # noqa: E402
import transformers  # noqa: E402
from transformers import AutoModelForCausalLM  # noqa: E402
from transformers.models.auto.configuration_auto import CONFIG_MAPPING  # noqa: E402

transformers.logging.set_verbosity_error()

DTYPE = torch.bfloat16
DTYPE_BYTES = 2
CONTEXTS = (2048, 8192, 32768, 131072)

MIXER_MARKERS = ("gateddeltanet", "deltaattention", "mamba", "mixer", "shortconv")
MLP_MARKERS = ("mlp", "moe", "expert", "feedforward")

CONVENTIONS = {
    "params_total": (
        "sum(p.numel() for p in model.parameters()) on the meta device; tied weights counted once"
    ),
    "params_regions": (
        "attention = softmax attention (incl. MLA, DSA indexer); mixer = gated DeltaNet / KDA / Mamba-2 / "
        "short conv; mlp = FFN or MoE incl. router and shared experts; norm = all norm modules in the layer "
        "(norm_detail says where)"
    ),
    "params_active": "total - (num_experts - top_k) * params_per_expert per MoE layer",
    "kv_cache": (
        "bytes_per_token = growth of HF's cache per token over all layers (bf16 model); "
        "state_bytes_fixed = conv + recurrent states per sequence; measured on HF's cache object of the "
        "full model under FakeTensorMode after 5 and 9 tokens"
    ),
    "published_check": (
        "published totals may be rounded: match means |measured - published| <= precision / 2 "
        "(exact when precision 0)"
    ),
}


# ----------------------------------------------------------------------------------------------------
# building
# ----------------------------------------------------------------------------------------------------


def _text_part(config_json: dict) -> tuple[str, dict]:
    cfg = dict(config_json)
    mt = cfg.get("model_type")
    if mt in ("gemma3n",) and "text_config" in cfg:
        cfg = dict(cfg["text_config"])
        mt = "gemma3n_text"
    return mt, cfg


def _decode_floats(v):
    """transformers 5 writes inf/nan in config.json as {"__float__": "Infinity"}: back to floats."""
    if isinstance(v, dict):
        if set(v) == {"__float__"}:
            return float(v["__float__"])
        return {k: _decode_floats(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_decode_floats(x) for x in v]
    return v


def build_config(config_json: dict):
    mt, cfg = _text_part(_decode_floats(config_json))
    cfg = {
        k: v
        for k, v in cfg.items()
        if k not in ("transformers_version", "architectures", "auto_map", "quantization_config")
    }
    cfg.pop("model_type", None)
    cls = CONFIG_MAPPING[mt]
    return cls(**cfg)


def build_model(config, dtype=None):
    """AutoModelForCausalLM.from_config (gemma3n_text maps to Gemma3nForCausalLM, the text model only)."""
    kwargs = {"dtype": dtype} if dtype is not None else {}
    return AutoModelForCausalLM.from_config(config, **kwargs)


def decoder_layers(model):
    base = model.model if hasattr(model, "model") else model
    for name in ("layers", "h", "blocks"):
        if hasattr(base, name):
            return base, name, getattr(base, name)
    raise RuntimeError("cannot find the decoder layers")


def ranges(idx) -> str:
    idx = sorted(idx)
    parts, s, p = [], idx[0], idx[0]
    for i in idx[1:]:
        if i == p + 1:
            p = i
            continue
        parts.append(f"{s}-{p}" if p > s else f"{s}")
        s = p = i
    parts.append(f"{s}-{p}" if p > s else f"{s}")
    return ",".join(parts)


# ----------------------------------------------------------------------------------------------------
# parameters
# ----------------------------------------------------------------------------------------------------


def _is_norm(mod) -> bool:
    n = type(mod).__name__.lower()
    return "norm" in n and not isinstance(mod, torch.nn.Linear)


def region_of_module(mod) -> str:
    """Region of a direct child of a decoder layer, from its class name."""
    n = type(mod).__name__.lower()
    if _is_norm(mod):
        return "norm"
    if any(m in n for m in MIXER_MARKERS):
        return "mixer"
    if "attention" in n or "attn" in n:
        return "attention"
    if any(m in n for m in MLP_MARKERS):
        return "mlp"
    return "other"


def _experts_module(mod):
    for name, sub in mod.named_modules():
        if name.split(".")[-1] in ("experts",):
            return name, sub
    return None, None


def _top_k(config) -> int | None:
    for k in (
        "num_experts_per_tok",
        "num_experts_per_token",
        "moe_k",
        "moe_topk",
        "top_k",
        "num_selected_experts",
    ):
        v = getattr(config, k, None)
        if isinstance(v, int):
            return v
    return None


def moe_info(mlp_mod, layer, config) -> dict | None:
    _, experts = _experts_module(mlp_mod)
    if experts is None:
        return None
    eparams = list(experts.named_parameters())
    if isinstance(experts, torch.nn.ModuleList):
        num = len(experts)
        storage = f"module list of {num} experts"
    else:
        num = None
        for _, p in eparams:
            if p.dim() == 3:
                num = p.shape[0]
                break
        if num is None:
            num = getattr(experts, "num_experts", None)
        storage = "fused tensors: " + ", ".join(f"{n}{list(p.shape)}" for n, p in eparams)
    routed = sum(p.numel() for _, p in eparams)
    router = 0
    shared = 0
    for name, sub in mlp_mod.named_children():
        if sub is experts:
            continue
        cnt = sum(p.numel() for p in sub.parameters())
        lname = name.lower()
        if "shared" in lname:
            shared += cnt
        elif (
            name in ("gate", "router")
            or "router" in lname
            or "gate" in type(sub).__name__.lower()
            or "router" in type(sub).__name__.lower()
        ):
            router += cnt
        else:
            shared += cnt
    # direct parameters of the MoE block (e.g. a bias) count with the router
    router += sum(p.numel() for n, p in mlp_mod.named_parameters(recurse=False))
    return {
        "expert_storage": storage,
        "num_experts": int(num),
        "params_per_expert": routed // int(num),
        "routed_experts_total": routed,
        "router": router,
        "shared_experts": shared,
        "top_k": _top_k(config),
    }


def layer_breakdown(layer, config) -> dict:
    regions = {"attention": 0, "mixer": 0, "mlp": 0, "norm": 0, "other": 0}
    norm_detail = {"in_layer": 0, "inside_attention": 0, "inside_mixer": 0, "inside_mlp": 0}
    other_detail = {}
    kinds = {"attention": [], "mixer": [], "mlp": [], "other": []}
    moe = None
    shared_outside = 0
    moe_mods = []
    seen = set()
    for cname, child in layer.named_children():
        region = region_of_module(child)
        if region != "norm" and any(True for _ in child.parameters()):
            kinds[region].append(type(child).__name__)
        for pname, p in child.named_parameters():
            if id(p) in seen:
                continue
            seen.add(id(p))
            # is the parameter inside a norm module?
            owner = child
            in_norm = _is_norm(child)
            for part in pname.split(".")[:-1]:
                owner = getattr(owner, part) if not part.isdigit() else owner[int(part)]
                if _is_norm(owner):
                    in_norm = True
            n = p.numel()
            if in_norm:
                regions["norm"] += n
                if region == "norm":
                    norm_detail["in_layer"] += n
                elif region in ("attention", "mixer", "mlp"):
                    norm_detail[f"inside_{region}"] += n
                else:
                    norm_detail["in_layer"] += n
            else:
                regions[region] += n
                if region == "other":
                    other_detail[cname] = other_detail.get(cname, 0) + n
        if region == "mlp":
            info = moe_info(child, layer, config)
            if info is not None:
                moe_mods.append(info)
            elif "shared" in cname.lower():
                shared_outside += sum(p.numel() for p in child.parameters())
    for pname, p in layer.named_parameters(recurse=False):
        regions["other"] += p.numel()
        other_detail[pname] = p.numel()
    if moe_mods:
        moe = moe_mods[0]
        moe["shared_experts"] += shared_outside
    kind = " + ".join(f"{r}:{','.join(kinds[r])}" for r in ("attention", "mixer", "mlp", "other") if kinds[r])
    out = {"kind": kind, **regions, "norm_detail": norm_detail}
    if other_detail:
        out["other_detail"] = other_detail
    out["total"] = sum(regions.values())
    if moe:
        out["moe"] = moe
    return out


def measure_params(model, config) -> dict:
    _, _, layers = decoder_layers(model)
    per = [layer_breakdown(layer, config) for layer in layers]
    groups: OrderedDict[str, dict] = OrderedDict()
    for i, b in enumerate(per):
        key = json.dumps(b, sort_keys=True)
        groups.setdefault(key, {"b": b, "idx": []})["idx"].append(i)
    layer_groups = []
    for g in groups.values():
        b = g["b"]
        entry = {"stack": "decoder", "layers": ranges(g["idx"]), "count": len(g["idx"])}
        entry.update(b)
        layer_groups.append(entry)

    layer_param_ids = {id(p) for p in layers.parameters()}
    emb = model.get_input_embeddings()
    emb_w = emb.weight
    head = model.get_output_embeddings()
    tied = head is not None and head.weight is emb_w
    embedding = {"token": emb_w.numel(), "position": 0, "token_type": 0, "embedding_norm": 0}
    final_norm = 0
    lm_head = 0 if (tied or head is None) else head.weight.numel()
    other = 0
    other_detail = {}
    counted = {id(emb_w)}
    if head is not None:
        counted.add(id(head.weight))
    for name, p in model.named_parameters():
        if id(p) in layer_param_ids or id(p) in counted:
            continue
        counted.add(id(p))
        short = name.split(".")
        leaf_mod = ".".join(short[:-1])
        mod = model.get_submodule(leaf_mod) if leaf_mod else model
        mname = short[-2] if len(short) > 1 else name
        if _is_norm(mod) and ("embedding_norm" in leaf_mod or ("embed" in mname and "norm" in mname)):
            embedding["embedding_norm"] += p.numel()
        elif _is_norm(mod) and mname in ("norm", "norm_f", "final_layernorm", "final_norm", "ln_f"):
            final_norm += p.numel()
        elif isinstance(mod, torch.nn.Embedding) and "per_layer" in leaf_mod:
            # Gemma-3n's per-layer input embeddings: a second token-indexed table
            embedding["per_layer_token"] = embedding.get("per_layer_token", 0) + p.numel()
        elif "position" in name and "embed" in name:
            embedding["position"] += p.numel()
        elif "token_type" in name:
            embedding["token_type"] += p.numel()
        else:
            other += p.numel()
            other_detail[leaf_mod or name] = other_detail.get(leaf_mod or name, 0) + p.numel()
    embedding["total"] = sum(embedding.values())
    total = sum(p.numel() for p in model.parameters())
    layers_total = sum(g["total"] * g["count"] for g in layer_groups)
    parts = {
        r: sum(g[r] * g["count"] for g in layer_groups)
        for r in ("attention", "mixer", "mlp", "norm", "other")
    }
    res = {
        "total": total,
        "total_without_tied_dedup": sum(p.numel() for _, p in model.named_parameters(remove_duplicate=False)),
        "embedding": embedding,
        "per_layer": None,
        "layer_groups": layer_groups,
        "layers_total": layers_total,
        "parts_over_all_layers": parts,
        "final_norm": final_norm,
        "lm_head": lm_head,
        "lm_head_tied": bool(tied),
        "other": other,
        "other_detail": other_detail,
        "non_embedding_total": total - embedding["total"] - lm_head,
    }
    check = embedding["total"] + layers_total + final_norm + lm_head + other
    if check != total:
        res["accounting_error"] = total - check
    moe_groups = [g for g in layer_groups if "moe" in g]
    if moe_groups:
        inactive = sum(
            (g["moe"]["num_experts"] - g["moe"]["top_k"]) * g["moe"]["params_per_expert"] * g["count"]
            for g in moe_groups
        )
        active = total - inactive
        res["moe_active"] = {
            "top_k": moe_groups[0]["moe"]["top_k"],
            "moe_layers": sum(g["count"] for g in moe_groups),
            "inactive_routed_expert_params": inactive,
            "active_params_per_token": active,
            "active_params_per_token_excluding_input_embeddings": active - embedding["total"],
            "active_params_per_token_excluding_embeddings_and_lm_head": active - embedding["total"] - lm_head,
            "definition": (
                "total minus (num_experts - top_k) * params_per_expert in every MoE layer; router, "
                "shared experts, attention, mixers, norms, embeddings and lm_head count as active"
            ),
        }
    if len(layer_groups) == 1:
        res["per_layer"] = {k: v for k, v in layer_groups[0].items() if k not in ("stack", "layers", "count")}
    return res


# ----------------------------------------------------------------------------------------------------
# cache
# ----------------------------------------------------------------------------------------------------


def _nbytes(t) -> int:
    return t.numel() * t.element_size()


def _dt(t) -> str:
    return str(t.dtype).replace("torch.", "")


def read_cache(cache) -> list[dict]:
    out = []
    for L in cache.layers:
        d = {"class": type(L).__name__, "grow": {}, "fixed": {}}
        for attr in ("keys", "values", "indexer_keys"):
            v = getattr(L, attr, None)
            if torch.is_tensor(v) and v.numel():
                d["grow"][attr] = (_nbytes(v), list(v.shape), _dt(v))
        for attr in ("conv_states", "recurrent_states"):
            v = getattr(L, attr, None)
            if isinstance(v, dict):
                ts = [x for _, x in sorted(v.items()) if torch.is_tensor(x)]
            elif torch.is_tensor(v):
                ts = [v]
            else:
                ts = []
            if ts:
                d["fixed"][attr] = {
                    "bytes": sum(_nbytes(x) for x in ts),
                    "dtype": _dt(ts[0]),
                    "shapes": [list(x.shape) for x in ts],
                }
        out.append(d)
    return out


def run_cache(config, lengths=(5, 9)) -> dict:
    from torch._subclasses.fake_tensor import FakeTensorMode

    results = {}
    with FakeTensorMode(allow_non_fake_inputs=True):
        config._attn_implementation = "eager"
        model = AutoModelForCausalLM.from_config(
            config, dtype=DTYPE, experts_implementation="batched_mm", attn_implementation="eager"
        )
        model.eval()
        for T in lengths:
            ids = torch.ones((1, T), dtype=torch.long)
            with torch.no_grad():
                out = model(input_ids=ids, use_cache=True)
            results[T] = (type(out.past_key_values).__name__, read_cache(out.past_key_values))
    return results


def _layer_types(config, n):
    lt = getattr(config, "layer_types", None)
    if isinstance(lt, list) and len(lt) == n:
        return lt
    return None


def measure_cache(config, model_layers: int) -> dict:
    lengths = (5, 9)
    window = getattr(config, "sliding_window", None)
    res = run_cache(config, lengths)
    cache_class, a = res[5]
    _, b = res[9]
    groups: OrderedDict[str, dict] = OrderedDict()
    for i, (la, lb) in enumerate(zip(a, b, strict=True)):
        grow_detail = {}
        for k in sorted(set(la["grow"]) | set(lb["grow"])):
            ba = la["grow"].get(k, (0,))[0]
            bb = lb["grow"].get(k, (0,))[0]
            if bb - ba:
                grow_detail[k] = (bb - ba) // (lengths[1] - lengths[0])
        fixed_detail = lb["fixed"]
        if la["fixed"] != lb["fixed"]:
            fixed_detail = dict(fixed_detail, warning="fixed states differ between 5 and 9 tokens")
        entry = {
            "cache_layer": lb["class"],
            "fixed_bytes": sum(v["bytes"] for v in fixed_detail.values() if isinstance(v, dict)),
            "fixed_detail": fixed_detail,
            "grow_bytes_per_token": sum(grow_detail.values()),
            "grow_detail": grow_detail,
        }
        key = json.dumps(entry, sort_keys=True)
        groups.setdefault(key, {"e": entry, "idx": []})["idx"].append(i)
    layer_groups = []
    for g in groups.values():
        e = {"stack": "decoder", "layers": ranges(g["idx"]), "count": len(g["idx"])}
        e.update(g["e"])
        layer_groups.append(e)
    bpt = sum(g["grow_bytes_per_token"] * g["count"] for g in layer_groups)
    fixed = sum(g["fixed_bytes"] * g["count"] for g in layer_groups)
    state_detail = {}
    for g in layer_groups:
        for k, v in g["fixed_detail"].items():
            if not isinstance(v, dict):
                continue
            s = state_detail.setdefault(k, {"bytes": 0, "dtype": v["dtype"], "layers": 0})
            s["bytes"] += v["bytes"] * g["count"]
            s["layers"] += g["count"]
            if s["dtype"] != v["dtype"]:
                s["dtype"] = "mixed"
    bpt_detail = {}
    for g in layer_groups:
        for k, v in g["grow_detail"].items():
            bpt_detail[k] = bpt_detail.get(k, 0) + v * g["count"]
    attention_layers = sum(g["count"] for g in layer_groups if g["grow_bytes_per_token"])
    out = {
        "applicable": True,
        "dtype": "bfloat16 model (HF may keep recurrent states in another dtype: see state_detail)",
        "method": (
            "full model under FakeTensorMode in bf16, use_cache=True forwards of 5 and 9 tokens; "
            "tensors read off HF's cache object"
        ),
        "cache_class": cache_class,
        "cache_layers": len(b),
        "model_layers": model_layers,
        "layer_groups": layer_groups,
        "bytes_per_token": bpt,
        "state_bytes_fixed": fixed,
        "state_detail": state_detail,
        "bytes_per_token_detail": bpt_detail,
        "attention_layers": attention_layers,
    }
    # formula cross-check
    kvh = getattr(config, "num_key_value_heads", None)
    hd = getattr(config, "head_dim", None)
    if hd is None and getattr(config, "num_attention_heads", None):
        hd = config.hidden_size // config.num_attention_heads
    mla = getattr(config, "kv_lora_rank", None)
    if mla:
        rope = config.qk_rope_head_dim
        per_layer = (mla + rope) * DTYPE_BYTES
        idx = getattr(config, "index_head_dim", None) if "indexer_keys" in bpt_detail else None
        if idx:
            per_layer += idx * DTYPE_BYTES
            out["indexer_key_formula"] = attention_layers * idx * DTYPE_BYTES
        out["hf_decompressed_formula"] = int(
            attention_layers
            * config.num_attention_heads
            * (config.qk_nope_head_dim + rope + config.v_head_dim)
            * DTYPE_BYTES
        )
        out["mla_latent_formula"] = attention_layers * (mla + rope) * DTYPE_BYTES
        out["mla_latent_formula_expr"] = (
            "attention_layers * (kv_lora_rank + qk_rope_head_dim) * 2 bytes (what an "
            "MLA-aware runtime caches)"
        )
        if idx:
            out["mla_latent_plus_indexer"] = out["mla_latent_formula"] + out["indexer_key_formula"]
        out["hf_caches"] = "latent"
        formula = attention_layers * per_layer
    else:
        out["kv_heads"] = kvh
        out["head_dim"] = hd
        formula = 2 * attention_layers * kvh * hd * DTYPE_BYTES if kvh and hd else None
    out["formula_bytes_per_token"] = formula
    out["formula_expr"] = (
        "2 * attention_layers * kv_heads * head_dim * 2 bytes (MLA: what HF caches, see hf_caches: "
        "the latent kv_lora_rank + qk_rope_head_dim, or the decompressed per-head K/V; DSA: + "
        "index_head_dim indexer key per layer)"
    )
    out["measured_matches_formula"] = formula == bpt
    # sliding windows
    sliding = [g for g in layer_groups if "Sliding" in g["cache_layer"]]
    cap = None
    if sliding and window:
        T = window + 3
        big = run_cache(config, (T,))[T][1]
        lt = _layer_types(config, len(big)) or ["?"] * len(big)
        stored = {}
        for kind, L in zip(lt, big, strict=True):
            if "keys" in L["grow"]:
                stored.setdefault(kind, L["grow"]["keys"][1][-2])
        cap = stored.get("sliding_attention", window - 1)
        n_sl = sum(g["count"] for g in sliding)
        beyond = sum(g["grow_bytes_per_token"] * g["count"] for g in layer_groups if g not in sliding)
        out.update(
            {
                "window": window,
                "sliding_cap_check": {"tokens": T, "stored_tokens_by_kind": stored},
                "bytes_per_token_beyond_window": beyond,
                "sliding_layers": n_sl,
                "sliding_layer_cap_tokens": cap,
                "sliding_layers_cap_bytes": sum(g["grow_bytes_per_token"] * g["count"] for g in sliding)
                * cap,
            }
        )
    tot = {}
    for T in CONTEXTS:
        s = fixed
        for g in layer_groups:
            n = min(T, cap) if (cap and g in sliding) else T
            s += n * g["grow_bytes_per_token"] * g["count"]
        tot[str(T)] = s
    out["total_bytes_at_context"] = tot
    out["total_bytes_at_context_expr"] = (
        "state_bytes_fixed + T * growth (sliding layers: min(T, cap) tokens), batch 1"
    )
    return out


# ----------------------------------------------------------------------------------------------------


def measure(config_json: dict, cache: bool = True) -> dict:
    config = build_config(config_json)
    with torch.device("meta"):
        model = build_model(config)
    params = measure_params(model, config)
    rec = {
        "model_type": config.model_type,
        "hf_class": type(model).__name__,
        "hf_config_class": type(config).__name__,
        "params": params,
    }
    if cache:
        rec["kv_cache"] = measure_cache(build_config(config_json), len(decoder_layers(model)[2]))
    return rec


REQUIRED_PARAM_FIELDS = [
    "total",
    "embedding.token",
    "final_norm",
    "lm_head",
    "lm_head_tied",
    "non_embedding_total",
    "moe_active.active_params_per_token",
    "moe_active.active_params_per_token_excluding_input_embeddings",
    "moe_active.active_params_per_token_excluding_embeddings_and_lm_head",
]
GROUP_FIELDS = [
    "layers",
    "count",
    "attention",
    "mixer",
    "mlp",
    "norm",
    "other",
    "total",
    "moe.num_experts",
    "moe.top_k",
    "moe.params_per_expert",
    "moe.router",
    "moe.shared_experts",
]
CACHE_GROUP_FIELDS = ["layers", "count", "fixed_bytes", "fixed_detail", "grow_bytes_per_token"]


def _get(d, path):
    for k in path.split("."):
        if d is None:
            return None
        d = d.get(k) if isinstance(d, dict) else None
    return d


def diff_record(ref: dict, got: dict) -> list[str]:
    out = []
    rp, gp = ref["params"], got["params"]
    for f in REQUIRED_PARAM_FIELDS:
        if _get(rp, f) != _get(gp, f):
            out.append(f"params.{f}: ref {_get(rp, f)} got {_get(gp, f)}")
    if len(rp["layer_groups"]) != len(gp["layer_groups"]):
        out.append(
            f"params.layer_groups: ref {len(rp['layer_groups'])} groups, got {len(gp['layer_groups'])}"
        )
    for i, (a, b) in enumerate(zip(rp["layer_groups"], gp["layer_groups"], strict=False)):
        for f in [*GROUP_FIELDS, "norm_detail"]:
            if _get(a, f) != _get(b, f):
                out.append(f"params.layer_groups[{i}].{f}: ref {_get(a, f)} got {_get(b, f)}")
    rk, gk = ref.get("kv_cache"), got.get("kv_cache")
    if rk and gk:
        for f in ("bytes_per_token", "state_bytes_fixed"):
            if rk[f] != gk[f]:
                out.append(f"kv_cache.{f}: ref {rk[f]} got {gk[f]}")
        if len(rk["layer_groups"]) != len(gk["layer_groups"]):
            out.append(f"kv_cache.layer_groups: ref {len(rk['layer_groups'])} got {len(gk['layer_groups'])}")
        for i, (a, b) in enumerate(zip(rk["layer_groups"], gk["layer_groups"], strict=False)):
            for f in CACHE_GROUP_FIELDS:
                if _get(a, f) != _get(b, f):
                    out.append(f"kv_cache.layer_groups[{i}].{f}: ref {_get(a, f)} got {_get(b, f)}")
        for f in (
            "total_bytes_at_context",
            "sliding_layers_cap_bytes",
            "bytes_per_token_beyond_window",
            "mla_latent_formula",
            "state_detail",
            "bytes_per_token_detail",
        ):
            if f in rk and rk.get(f) != gk.get(f):
                out.append(f"kv_cache.{f}: ref {rk.get(f)} got {gk.get(f)}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("configs", nargs="*", help="config.json files to measure")
    ap.add_argument(
        "--verify", help="a real_models_2026-style JSON file: re-measure each record's config_json, diff"
    )
    ap.add_argument("--only", help="comma-separated model names for --verify")
    ap.add_argument("--no-cache", action="store_true")
    args = ap.parse_args(argv)
    bad = 0
    if args.verify:
        data = json.load(open(args.verify))
        for m in data["models"]:
            if args.only and m["name"] not in args.only.split(","):
                continue
            got = measure(m["config_json"], cache=not args.no_cache)
            d = diff_record(m, got)
            print(f"{m['name']}: {'OK (all compared fields equal)' if not d else f'{len(d)} DIFFERENCES'}")
            for line in d:
                print("   ", line)
            bad += bool(d)
    for path in args.configs:
        cfg = json.load(open(path))
        print(json.dumps(measure(cfg, cache=not args.no_cache), indent=1))
    print(f"torch {torch.__version__}, transformers {transformers.__version__}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
