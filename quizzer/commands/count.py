"""The `quizzer count` verb: a part-by-part breakdown of a preset or a config.json."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from quizzer.core.errors import ConfigError, SpecError
from quizzer.core.flops import forward_flops_per_token
from quizzer.core.groups import LayerGroup
from quizzer.core.hf import from_hf_config
from quizzer.core.hybrid import state_crossover_tokens
from quizzer.core.kv import WINDOW_CONVENTIONS
from quizzer.core.kv_model import cross_attention_kv_bytes_per_source_token, kv_kinds
from quizzer.core.layers import layer_ranges
from quizzer.core.memory import weights_bytes
from quizzer.core.mixers import MIXER_NAMES, mixer_state, mixer_widths
from quizzer.core.model import param_breakdown
from quizzer.core.presets import preset, preset_names
from quizzer.core.spec import ModelSpec
from quizzer.core.units import Unit, elements_bytes, format_bytes, format_count, format_quantity, format_si


def load_model(ref: str, mtp: bool = False) -> tuple[str, ModelSpec, str]:
    """(name, spec, source) for a preset name or a path to a config.json (or a folder holding one); with
    ``mtp`` the multi-token-prediction modules the config gives are counted."""
    from quizzer.bank.read.model_files import is_path, read_config

    if not is_path(ref):
        found = preset(ref)
        spec = from_hf_config(found.config, mtp=True) if mtp else found.spec
        return found.name, spec, found.source
    path, config = read_config(ref)
    try:
        spec = from_hf_config(config, mtp=mtp)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    name = os.path.basename(os.path.dirname(os.path.abspath(path))) if path.endswith("config.json") else path
    return name, spec, path


def _group_report(group: LayerGroup, spec: ModelSpec) -> dict[str, Any]:
    row: dict[str, Any] = {
        "stack": group.stack,
        "kind": group.mlp_kind,
        "layers": group.layer_range,
        "count": group.count,
        "token_mixer": group.token,
        "attention": group.attention,
        "mixer": group.mixer,
        "mlp": group.mlp,
        "mlp_active": group.mlp_active,
        "norm": group.norm,
        "total": group.total,
    }
    if group.cross_attention:
        row["cross_attention"] = group.cross_attention
    if group.mlp_kind == "moe":
        row["moe"] = {
            "num_experts": spec.n_experts,
            "top_k": spec.experts_per_token,
            "num_shared_experts": spec.n_shared_experts,
            "params_per_expert": group.expert,
            "routed_experts_total": group.routed_experts,
            "router": group.router,
            "shared_experts": group.shared_experts,
        }
    return row


def _attention_report(spec: ModelSpec) -> list[dict[str, Any]]:
    kinds = spec.attention_kinds
    rows = []
    for kind in dict.fromkeys(kinds):
        layers = [i for i, k in enumerate(kinds) if k == kind]
        rows.append(
            {
                "kind": kind,
                "layers": layer_ranges(layers),
                "count": len(layers),
                "window": spec.window_of(kind),
            }
        )
    return rows


def count_report(
    name: str, spec: ModelSpec, dtype: str, seq_len: int, batch: int, state_dtype: str = "fp32"
) -> dict[str, Any]:
    """The numbers `count` prints, in the documented JSON shape (plus a few extra keys)."""
    if seq_len < 0 or batch < 1:
        raise SpecError(f"--seq-len ({seq_len}) must be >= 0 and --batch ({batch}) >= 1")
    elements_bytes(1, dtype)  # validates the name before any arithmetic
    parts = param_breakdown(spec)
    decoder = spec.lm_head
    kv = kv_report(spec, dtype, state_dtype) if decoder else None
    report: dict[str, Any] = {
        "model": name,
        "params": {"total": parts.total, "active": parts.active, **parts.parts()},
        "per_layer": {
            "attention": parts.attention_per_layer,
            "mixer": parts.mixer_per_layer,
            "mlp": parts.mlp_per_layer,
            "norm": parts.norm_per_layer,
            "total": parts.per_layer,
        },
        "flops_per_token": {"forward": forward_flops_per_token(spec, seq_len).value, "context": seq_len},
        "kv_cache_bytes_per_token": kv["bytes_per_token"] if kv else 0,
        "weights_bytes": weights_bytes(parts.total, dtype).value,
        "dtype": dtype,
        "layer_groups": [_group_report(g, spec) for g in parts.groups],
        "attention_layers": _attention_report(spec),
    }
    if spec.nope_layers:
        report["nope_layers"] = layer_ranges(spec.nope_layers)
    if spec.has_mixer:
        report["mixer"] = {
            "kind": spec.mixer,
            "name": MIXER_NAMES[spec.mixer],
            "layers": layer_ranges(spec.mixer_layers),
            "count": len(spec.mixer_layers),
            "params_per_layer": parts.mixer // len(spec.mixer_layers),
        }
    if kv:
        report["kv"] = kv
    if seq_len and decoder:
        report["kv_cache"] = kv_seq_report(spec, dtype, seq_len, batch, state_dtype)
    return report


def _state_report(spec: ModelSpec, dtype: str, state_dtype: str, growth: int) -> dict[str, Any]:
    """A hybrid's fixed state per sequence (conv, recurrent) and where the growing KV cache overtakes it."""
    state = mixer_state(spec, dtype, state_dtype)
    widths = mixer_widths(spec)
    detail: dict[str, Any] = {
        "conv_states": {
            "bytes": state.conv_bytes,
            "dtype": dtype,
            "layers": state.layers,
            "shape_per_layer": [widths.conv_channels, spec.mixer_conv_kernel],
        }
    }
    if state.recurrent_bytes:
        detail["recurrent_states"] = {
            "bytes": state.recurrent_bytes,
            "dtype": dtype if state_dtype == "model" else "fp32",
            "layers": state.layers,
            "elements_per_layer": state.recurrent_elements_per_layer,
        }
    return {
        "state_bytes_fixed": state.total_bytes,
        "state_detail": detail,
        "state_convention": "Hugging Face's cache: conv state in the model's dtype, recurrent state in "
        + (dtype if state_dtype == "model" else "fp32")
        + "; it does not grow with the context",
        # the context where the growing KV cache reaches the fixed state (None: nothing grows)
        "crossover_tokens": state_crossover_tokens(state.total_bytes, growth).value if growth else None,
    }


def kv_report(spec: ModelSpec, dtype: str, state_dtype: str = "fp32") -> dict[str, Any]:
    """The KV cache per token by layer kind: while within every window, beyond them, and the windows' cap;
    a hybrid's fixed state beside it.

    MLA models count the latent (what transformers 5 and MLA-aware runtimes cache) and give the decompressed
    K and V (what transformers 4.57 cached) beside it; DeepSeek-V3.2's indexer keys are in both.
    """
    kinds = kv_kinds(spec)
    rows, cap = [], dict.fromkeys(WINDOW_CONVENTIONS, 0)
    for k in kinds:
        per_layer = k.elements_per_token_per_layer
        row: dict[str, Any] = {
            "kind": k.kind,
            "layers": k.n_layers,
            "window": k.window,
            "bytes_per_token_per_layer": elements_bytes(per_layer, dtype),
            "bytes_per_token": elements_bytes(k.n_layers * per_layer, dtype),
        }
        if k.window is not None:
            row["cap_tokens"] = {c: k.cap_tokens(c) for c in WINDOW_CONVENTIONS}
            row["cap_bytes"] = {
                c: elements_bytes(k.n_layers * (k.cap_tokens(c) or 0) * per_layer, dtype)
                for c in WINDOW_CONVENTIONS
            }
            for c in WINDOW_CONVENTIONS:
                cap[c] += k.n_layers * (k.cap_tokens(c) or 0) * per_layer
        rows.append(row)
    growing = sum(k.n_layers * k.elements_per_token_per_layer for k in kinds if k.window is None)
    report: dict[str, Any] = {
        "bytes_per_token": elements_bytes(
            sum(k.n_layers * k.elements_per_token_per_layer for k in kinds), dtype
        ),
        "bytes_per_token_beyond_windows": elements_bytes(growing, dtype),
        "window_cap_bytes": {c: elements_bytes(v, dtype) for c, v in cap.items()},
        "by_kind": rows,
    }
    if spec.is_mla:
        decompressed = kv_kinds(spec, "decompressed")
        report["mla"] = {
            "latent_bytes_per_token": report["bytes_per_token"],
            "decompressed_bytes_per_token": elements_bytes(
                sum(k.n_layers * k.elements_per_token_per_layer for k in decompressed), dtype
            ),
            "latent_per_layer": spec.kv_lora_rank + spec.qk_rope_head_dim,
            "decompressed_per_layer": decompressed[0].elements_per_token_per_layer,
        }
        if spec.index_head_dim:
            layers = len(spec.softmax_layers)
            report["mla"]["indexer_key_bytes_per_token"] = elements_bytes(layers * spec.index_head_dim, dtype)
    if spec.has_mixer:
        report.update(_state_report(spec, dtype, state_dtype, report["bytes_per_token_beyond_windows"]))
    if spec.is_encoder_decoder:
        report["cross_attention_bytes_per_source_token"] = cross_attention_kv_bytes_per_source_token(
            spec, dtype
        )
    return report


def _total(
    spec: ModelSpec, dtype: str, seq_len: int, batch: int, convention: str, mla: str = "latent"
) -> int:
    kinds = kv_kinds(spec, mla)
    elements = sum(
        k.n_layers * k.tokens_cached(seq_len, convention) * k.elements_per_token_per_layer for k in kinds
    )
    return elements_bytes(elements * batch, dtype)


def kv_seq_report(
    spec: ModelSpec, dtype: str, seq_len: int, batch: int, state_dtype: str = "fp32"
) -> dict[str, Any]:
    """The KV cache of ``batch`` sequences of ``seq_len`` tokens, by layer kind, in both window readings.

    ``bytes`` reads a window of W tokens as W cached tokens (papers, servers); ``bytes_hf`` as transformers'
    sliding cache holds them (W − 1). ``tokens_cached`` is what the layers that keep the most hold. A
    hybrid adds ``state_bytes`` (its fixed state × batch) and ``total_bytes`` (KV + state).
    """
    kinds = kv_kinds(spec)
    report: dict[str, Any] = {
        "seq_len": seq_len,
        "batch": batch,
        "tokens_cached": max((k.tokens_cached(seq_len) for k in kinds), default=0),
        "bytes": _total(spec, dtype, seq_len, batch, "paper"),
        "window_convention": "paper",
        "bytes_hf": _total(spec, dtype, seq_len, batch, "hf"),
        "by_kind": [
            {
                "kind": k.kind,
                "layers": k.n_layers,
                "tokens_cached": {c: k.tokens_cached(seq_len, c) for c in WINDOW_CONVENTIONS},
                "bytes": {
                    c: elements_bytes(
                        k.n_layers * k.tokens_cached(seq_len, c) * k.elements_per_token_per_layer * batch,
                        dtype,
                    )
                    for c in WINDOW_CONVENTIONS
                },
            }
            for k in kinds
        ],
    }
    if spec.is_mla:
        report["mla_decompressed_bytes"] = {
            c: _total(spec, dtype, seq_len, batch, c, "decompressed") for c in WINDOW_CONVENTIONS
        }
    if spec.has_mixer:
        report["state_bytes"] = mixer_state(spec, dtype, state_dtype).total_bytes * batch
        report["total_bytes"] = report["bytes"] + report["state_bytes"]
        report["total_bytes_hf"] = report["bytes_hf"] + report["state_bytes"]
    return report


def _sizes(n: int) -> str:
    return (
        f"{format_count(n)} bytes = {format_bytes(n, binary=False, digits=4)} = {format_bytes(n, digits=4)}"
    )


def kv_lines(report: dict[str, Any], spec: ModelSpec) -> list[str]:
    """The KV-cache lines of the table: per token, per layer kind, MLA's two readings, at --seq-len."""
    kv, dtype, lines = report["kv"], report["dtype"], []
    per = kv["bytes_per_token"]
    if spec.is_mla:
        mla = kv["mla"]
        n = len(spec.softmax_layers)
        indexer = f" + {spec.index_head_dim} indexer key" if spec.index_head_dim else ""
        lines.append(
            f"KV cache per token at {dtype}: {format_count(per)} bytes (MLA latent, as transformers 5 caches "
            f"it: {n} layers × ({spec.kv_lora_rank} + {spec.qk_rope_head_dim} rope{indexer}) × bytes, no ×2)"
        )
        lines.append(
            "  decompressed K and V, as transformers 4.57 cached them: "
            f"{format_count(mla['decompressed_bytes_per_token'])}"
            f" bytes ({n} × {spec.n_heads} heads × ({spec.head_dim} + {spec.v_head_dim}) × bytes)"
        )
    else:
        within = ""
        windows = [k["window"] for k in kv["by_kind"] if k["window"] is not None]
        if windows:
            within = f" while the context is within {min(windows):,} tokens"
        n = len(spec.softmax_layers)
        which = "softmax-attention layers" if n < spec.n_layers else "layers"
        if n:
            lines.append(
                f"KV cache per token at {dtype}: {format_count(per)} bytes{within} "
                f"(2 × {n} {which} × {spec.n_kv_heads} kv heads × {spec.head_dim} head_dim × bytes)"
            )
        else:
            lines.append("KV cache: none (no softmax-attention layer caches K and V)")
        if windows:
            for k in kv["by_kind"]:
                if k["window"] is None:
                    lines.append(
                        f"  {k['kind']:<8} {k['layers']:>3} layers: {format_count(k['bytes_per_token'])} "
                        "bytes per token, always growing"
                    )
                else:
                    cap, hf = k["cap_bytes"]["paper"], k["cap_bytes"]["hf"]
                    lines.append(
                        f"  {k['kind']:<8} {k['layers']:>3} layers: {format_count(k['bytes_per_token'])} "
                        f"bytes per token up to {k['window']:,} tokens, then fixed at {format_count(cap)} "
                        f"bytes ({format_count(hf)} in transformers, W − 1 tokens)"
                    )
            lines.append(
                f"  beyond every window: {format_count(kv['bytes_per_token_beyond_windows'])} bytes per token"
            )
    if spec.has_mixer:
        detail = kv["state_detail"]
        conv = detail["conv_states"]
        parts = [f"conv {format_count(conv['bytes'])} ({conv['dtype']})"]
        if "recurrent_states" in detail:
            rec = detail["recurrent_states"]
            parts.append(f"recurrent {format_count(rec['bytes'])} ({rec['dtype']})")
        lines.append(
            f"fixed state per sequence ({conv['layers']} {MIXER_NAMES[spec.mixer]} layers): "
            f"{_sizes(kv['state_bytes_fixed'])}; " + " + ".join(parts) + ", whatever the context"
        )
        if kv["crossover_tokens"] is not None:
            lines.append(f"  the KV cache overtakes the fixed state at {kv['crossover_tokens']:,} tokens")
    if spec.is_encoder_decoder:
        cross = format_count(kv["cross_attention_bytes_per_source_token"])
        lines.append(
            f"  cross-attention K and V per encoder token: {cross} bytes (fixed by the source length)"
        )
    if "kv_cache" in report:
        c = report["kv_cache"]
        capped = ""
        if c["tokens_cached"] < c["seq_len"] and spec.softmax_layers:
            capped = f", capped at the {spec.sliding_window or spec.attention_chunk_size}-token window"
        lines.append(f"KV cache for {c['batch']} × {c['seq_len']:,} tokens{capped}: {_sizes(c['bytes'])}")
        if c["bytes_hf"] != c["bytes"]:
            lines.append(f"  transformers' cache (W − 1 tokens per window): {_sizes(c['bytes_hf'])}")
        if spec.is_mla:
            lines.append(f"  decompressed K and V: {_sizes(c['mla_decompressed_bytes']['paper'])}")
        if spec.has_mixer:
            lines.append(f"  with the fixed state: {_sizes(c['total_bytes'])}")
    return lines


def _share(part: int, total: int) -> str:
    return f"{100 * part / total:5.1f}%" if part else ""


def _layer_rows(report: dict[str, Any], spec: ModelSpec) -> list[str]:
    """One line per kind of layer (dense against MoE, encoder against decoder) and per attention kind."""
    lines = []
    groups = report["layer_groups"]
    hybrid = spec.has_mixer or bool(spec.no_mlp_layers)
    if len(groups) > 1 or spec.is_moe:
        labels = []
        for g in groups:
            label = f"{g['layers']} {g['stack'] + ' ' if spec.is_encoder_decoder else ''}{g['kind']}"
            if hybrid:
                token = {
                    "attention": "attention",
                    "linear": "mixer",
                    "parallel": "attention ∥ mixer",
                    "mlp": "no mixer",
                }[g["token_mixer"]]
                label = f"{g['layers']} {token} + {g['kind'] if g['kind'] != 'none' else 'no'} mlp"
            if g["kind"] == "moe":
                shared = f" + {spec.n_shared_experts} shared" if spec.n_shared_experts else ""
                label += f" ({spec.n_experts}{shared}, top-{spec.experts_per_token})"
            labels.append(label)
        width = max(24, *(len(label) + 2 for label in labels))
        mixer_head = f"{'mixer':>14}" if hybrid else ""
        head = f"{'count':>6}{'attention':>16}{mixer_head}{'mlp':>18}{'mlp per token':>18}{'norms':>10}"
        lines += ["", f"{'layers':<{width}}{head}"]
        for label, g in zip(labels, groups, strict=True):
            mixer = f"{format_count(g['mixer']):>14}" if hybrid else ""
            lines.append(
                f"{label:<{width}}{g['count']:>6}{format_count(g['attention']):>16}{mixer}"
                f"{format_count(g['mlp']):>18}{format_count(g['mlp_active']):>18}{format_count(g['norm']):>10}"
            )
    kinds = report["attention_layers"]
    if len(kinds) > 1 or kinds[0]["window"] is not None or spec.nope_layers:
        lines.append("")
        for k in kinds:
            window = f", window {k['window']:,}" if k["window"] is not None else ""
            what = f"{k['kind']} attention"
            if k["kind"] == "linear":
                what = f"{MIXER_NAMES[spec.mixer]} mixer (fixed state)"
            elif k["kind"] == "parallel":
                what = f"full attention beside a {MIXER_NAMES[spec.mixer]} mixer"
            elif k["kind"] == "mlp":
                what = "no token mixer (MLP only)"
            lines.append(f"{what}: {k['count']} layers{window} ({k['layers']})")
        if spec.nope_layers:
            lines.append(f"no positional encoding (NoPE): layers {report['nope_layers']}")
    return lines


def render_table(report: dict[str, Any], spec: ModelSpec, source: str) -> str:
    """The human-readable breakdown."""
    p, layers = report["params"], spec.n_layers
    if spec.is_encoder_decoder:
        layers_text = f"{spec.n_encoder_layers} + {layers} layers"
    else:
        layers_text = f"{layers} layers"
    extra = (", MLA" if spec.is_mla else "") + (", + cross" if spec.is_encoder_decoder else "")
    extra += " + indexer" if spec.index_n_heads else ""
    softmax = len(spec.softmax_layers)
    attention = f"attention ({layers_text if softmax == spec.n_layers else f'{softmax} layers'}{extra})"
    rows = [
        ("token embedding" + (" + types" if spec.type_vocab_size else ""), p["embedding"]),
        ("position table" + (" (relative bias)" if spec.positions == "relative" else ""), p["position"]),
        (attention, p["attention"]),
        *(
            [(f"mixer ({len(spec.mixer_layers)} {MIXER_NAMES[spec.mixer]} layers)", p["mixer"])]
            if spec.has_mixer
            else []
        ),
        (f"mlp ({layers_text}){', experts + router' if spec.is_moe else ''}", p["mlp"]),
        ("norms", p["norm"]),
        ("lm head" + (" (tied)" if spec.tie_embeddings else ""), p["lm_head"]),
        ("other (pooler)" if spec.pooler else "other", p["other"]),
        *([(f"multi-token prediction ({spec.mtp_layers} module)", p["mtp"])] if spec.mtp_layers else []),
    ]
    width = max(len(label) for label, _ in rows) + 2
    lines = [f"{report['model']}  ({source})", "", f"{'part':<{width}}{'params':>18}  share"]
    lines += [
        f"{label:<{width}}{format_count(value):>18}  {_share(value, p['total'])}" for label, value in rows
    ]
    lines.append(f"{'total':<{width}}{format_count(p['total']):>18}  ({format_si(p['total'], 4)})")
    if p["active"] != p["total"]:
        lines.append(
            f"{'active per token':<{width}}{format_count(p['active']):>18}  ({format_si(p['active'], 4)})"
        )
    lines += _layer_rows(report, spec)
    dtype = report["dtype"]
    w = report["weights_bytes"]
    lines += [
        "",
        f"weights at {dtype}: {format_count(w)} bytes = {format_bytes(w, binary=False, digits=4)} "
        f"= {format_bytes(w, digits=4)}",
    ]
    if spec.lm_head:
        lines += kv_lines(report, spec)
    flops = report["flops_per_token"]
    context = f", attention over {flops['context']:,} tokens" if flops["context"] else " (2 × matmul params)"
    lines.append(
        f"forward FLOPs per token{context}: {format_count(flops['forward'])} "
        f"({format_quantity(flops['forward'], Unit.FLOPS, digits=4)})"
    )
    return "\n".join(lines)


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Entry point of the `count` verb."""
    if args.list:
        for name in preset_names():
            found = preset(name)
            print(f"{name:<18} {found.title}" + (f" ({found.about})" if found.about else ""))
        return 0
    if not args.model:
        parser.error("count needs a MODEL (a preset name or a config.json path), or --list")
    name, spec, source = load_model(args.model, args.mtp)
    if args.mtp and not spec.mtp_layers:
        print(
            f"note: {name}'s config gives no multi-token-prediction modules (num_nextn_predict_layers)",
            file=sys.stderr,
        )
    report = count_report(name, spec, args.dtype, args.seq_len, args.batch, args.state_dtype)
    print(json.dumps(report, indent=2) if args.json else render_table(report, spec, source))
    return 0
