"""The `quizzer count` verb: a part-by-part breakdown of a preset or a config.json."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from quizzer.core.errors import ConfigError, SpecError
from quizzer.core.flops import forward_flops_per_token
from quizzer.core.hf import from_hf_config
from quizzer.core.memory import kv_cache_bytes_per_token, weights_bytes
from quizzer.core.model import param_breakdown
from quizzer.core.presets import preset, preset_names
from quizzer.core.spec import ModelSpec
from quizzer.core.units import Unit, dtype_bits, format_bytes, format_count, format_quantity, format_si


def load_model(ref: str) -> tuple[str, ModelSpec, str]:
    """(name, spec, source) for a preset name or a path to a config.json (or a folder holding one)."""
    if not (ref.endswith(".json") or os.sep in ref or "/" in ref or os.path.exists(ref)):
        found = preset(ref)
        return found.name, found.spec, found.source
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
    try:
        spec = from_hf_config(config)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    name = os.path.basename(os.path.dirname(os.path.abspath(path))) if path.endswith("config.json") else path
    return name, spec, path


def count_report(name: str, spec: ModelSpec, dtype: str, seq_len: int, batch: int) -> dict[str, Any]:
    """The numbers `count` prints, in the documented JSON shape (plus a few extra keys)."""
    if seq_len < 0 or batch < 1:
        raise SpecError(f"--seq-len ({seq_len}) must be >= 0 and --batch ({batch}) >= 1")
    dtype_bits(dtype)  # validates the name before any arithmetic
    parts = param_breakdown(spec)
    decoder = spec.lm_head
    kv_per_token = kv_cache_bytes_per_token(spec.n_layers, spec.n_kv_heads, spec.head_dim, dtype).value
    report: dict[str, Any] = {
        "model": name,
        "params": {"total": parts.total, "active": parts.active, **parts.parts()},
        "per_layer": {
            "attention": parts.attention_per_layer,
            "mlp": parts.mlp_per_layer,
            "norm": parts.norm_per_layer,
            "total": parts.per_layer,
        },
        "flops_per_token": {"forward": forward_flops_per_token(spec, seq_len).value, "context": seq_len},
        "kv_cache_bytes_per_token": kv_per_token if decoder else 0,
        "weights_bytes": weights_bytes(parts.total, dtype).value,
        "dtype": dtype,
    }
    if seq_len and decoder:
        cached = min(seq_len, spec.sliding_window or seq_len)
        report["kv_cache"] = {
            "seq_len": seq_len,
            "batch": batch,
            "tokens_cached": cached,
            "bytes": kv_per_token * cached * batch,
        }
    return report


def _share(part: int, total: int) -> str:
    return f"{100 * part / total:5.1f}%" if part else ""


def render_table(report: dict[str, Any], spec: ModelSpec, source: str) -> str:
    """The human-readable breakdown."""
    p, layers = report["params"], spec.n_layers
    rows = [
        ("token embedding" + (" + types" if spec.type_vocab_size else ""), p["embedding"]),
        ("position table", p["position"]),
        (f"attention ({layers} layers)", p["attention"]),
        (f"mlp ({layers} layers){', experts + router' if spec.is_moe else ''}", p["mlp"]),
        ("norms", p["norm"]),
        ("lm head" + (" (tied)" if spec.tie_embeddings else ""), p["lm_head"]),
        ("other (pooler)" if spec.pooler else "other", p["other"]),
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
    dtype = report["dtype"]
    w = report["weights_bytes"]
    lines += [
        "",
        f"weights at {dtype}: {format_count(w)} bytes = {format_bytes(w, binary=False, digits=4)} "
        f"= {format_bytes(w, digits=4)}",
    ]
    if spec.lm_head:
        kv = report["kv_cache_bytes_per_token"]
        lines.append(
            f"KV cache per token at {dtype}: {format_count(kv)} bytes "
            f"(2 × {layers} layers × {spec.n_kv_heads} kv heads × {spec.head_dim} head_dim × bytes)"
        )
    if "kv_cache" in report:
        kv = report["kv_cache"]
        capped = (
            f", capped at the {spec.sliding_window}-token window"
            if kv["tokens_cached"] < kv["seq_len"]
            else ""
        )
        size = kv["bytes"]
        lines.append(
            f"KV cache for {kv['batch']} × {kv['seq_len']:,} tokens{capped}: {format_count(size)} "
            f"bytes = {format_bytes(size, binary=False, digits=4)} = {format_bytes(size, digits=4)}"
        )
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
            print(f"{name:<16} {found.title}")
        return 0
    if not args.model:
        parser.error("count needs a MODEL (a preset name or a config.json path), or --list")
    name, spec, source = load_model(args.model)
    report = count_report(name, spec, args.dtype, args.seq_len, args.batch)
    print(json.dumps(report, indent=2) if args.json else render_table(report, spec, source))
    return 0
