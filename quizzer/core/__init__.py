"""The counting core: exact, traced sizing calculators (standard library only, no I/O but package data).

``CALCULATORS`` maps the names templates use to calculator functions; every one returns a
``Result`` (value, unit, derivation steps, convention). Submodules load on first use, so importing
``quizzer.core`` stays cheap for the command-line verbs.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import update_wrapper
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from quizzer.core.trace import Result

    # Made by __getattr__ on first use; declared here so that its readers get its type, not Any.
    CALCULATORS: Mapping[str, Callable[..., Result]]

#: module -> the calculators it provides (plain arguments, a Result back), by template name.
_CALCULATOR_MODULES: dict[str, tuple[str, ...]] = {
    "params": (
        "embedding_params",
        "lm_head_params",
        "position_params",
        "attention_params",
        "mlp_params",
        "norm_params",
        "router_params",
    ),
    "attention": ("mla_attention_params", "qk_norm_params"),
    "experts": ("moe_layer_params",),
    "kv": (
        "kv_tokens_cached",
        "windowed_kv_cache_bytes",
        "mla_kv_bytes_per_token",
        "mla_decompressed_kv_bytes_per_token",
    ),
    "families": (
        "gpt_total_params",
        "llama_total_params",
        "moe_total_params",
        "moe_active_params",
        "gqa_attention_params",
        "approx_params",
    ),
    "flops": (
        "training_flops",
        "recompute_training_flops",
        "inference_flops",
        "flops_to_macs",
        "flop_count_title",
        "training_flops_per_token",
        "training_flops_by",
        "megatron_flops_per_iteration",
        "megatron_params",
    ),
    "memory": (
        "weights_bytes",
        "training_state_bytes",
        "zero_bytes_per_gpu",
        "kv_cache_bytes",
        "kv_cache_bytes_per_token",
        "inference_memory_bytes",
        "training_recipe_text",
        "training_recipe_convention",
        "recipe_bytes_per_param",
    ),
    "activations": ("activation_bytes", "activation_bytes_full_recompute", "activation_checkpoint_bytes"),
    "inference": (
        "decode_step_time",
        "compute_step_time",
        "generate_step_time",
        "prefill_time",
        "critical_batch_size",
        "moe_critical_batch_size",
        "decode_throughput",
        "kv_tokens_freed_per_step",
    ),
    "training": (
        "training_time",
        "training_time_from_flops",
        "gpu_hours",
        "training_cost",
        "mfu_from_gpu_hours",
        "mfu_from_throughput",
        "batch_tokens",
    ),
    "scaling": (
        "chinchilla_tokens",
        "chinchilla_compute",
        "chinchilla_params_for_compute",
        "chinchilla_tokens_for_compute",
        "scaling_fit_title",
        "scaling_fit_formula",
        "scaling_fit_convention",
        "compute_optimal_params",
        "compute_optimal_tokens",
        "compute_optimal_compute_for_params",
        "compute_optimal_tokens_for_params",
        "compute_optimal_exponent",
    ),
    "parallel": (
        "allreduce_bytes_per_gpu",
        "allgather_bytes_per_gpu",
        "reduce_scatter_bytes_per_gpu",
        "collective_time",
        "ring_collective_time",
        "zero_comm_bytes_per_gpu",
        "pipeline_bubble_fraction",
        "pipeline_bubble_share",
        "dp_critical_batch_per_gpu",
        "sharded_bytes_per_device",
    ),
    "layouts": (
        "layout_gpus",
        "layout_state_bytes_per_gpu",
        "layout_activation_bytes_per_gpu",
        "layout_tp_bytes_per_gpu",
        "layout_cp_bytes_per_gpu",
        "layout_pp_bytes_per_gpu",
        "layout_dp_bytes_per_gpu",
        "strong_scaling_efficiency",
        "weak_scaling_efficiency",
        "throughput_scaling_efficiency",
        "sharded_matmul_time",
        "partial_sum_reduce_time",
        "contracting_split_crossover",
    ),
    "quant": ("quant_bits_per_param", "quant_overhead_bits_per_param", "quantized_weights_bytes"),
    "formats": (
        "float_max_normal",
        "float_min_normal",
        "float_min_subnormal",
        "float_value_count",
        "float_round",
    ),
    "blockscaled": (
        "block_scaled_bits_per_value",
        "block_scaled_bytes",
        "block_scaled_tensor_bytes",
        "fp8_block_scaled_bytes",
        "mixed_weights_bytes",
    ),
    "lora": ("lora_params", "lora_qv_params", "lora_all_linear_params", "trainable_percent"),
    "vit": ("vit_patch_count", "vit_tokens", "vit_params", "vit_forward_macs", "vit_forward_flops"),
    "hardware": ("peak_flops", "hbm_bandwidth", "hbm_bytes", "interconnect_bandwidth"),
    "efficiency": (
        "flops_utilisation",
        "bandwidth_utilisation",
        "matmul_roofline_utilisation",
        "compression_ratio",
        "prefill_compute_bound_tokens",
        "decode_compute_bound_context",
        "decode_compute_bound_batch",
    ),
    "chips": ("chip_title", "chip_base", "chip_has_rate", "chip_sheet_sparse", "chip_is_tpu"),
    "model_names": ("model_base",),
    "hybrid": (
        "gated_deltanet_params",
        "mamba2_params",
        "short_conv_params",
        "linear_state_bytes",
        "state_crossover_tokens",
        "hybrid_cache_bytes",
        "sequences_that_fit",
        "dsa_indexer_params",
        "indexer_key_bytes_per_token",
    ),
    "presets": (
        "model_params_of",
        "model_active_params_of",
        "model_non_embedding_params_of",
        "model_kv_bytes_per_token_of",
        "model_kv_cache_bytes_of",
        "model_kv_growth_bytes_per_token_of",
        "model_kv_window_cap_bytes_of",
        "model_mixer_params_of",
        "model_state_bytes_of",
        "model_cache_bytes_of",
        "model_state_crossover_of",
        "model_mtp_params_of",
    ),
}

#: Public names re-exported from submodules (besides the calculators).
_EXPORTS: dict[str, str] = {
    "ModelSpec": "spec",
    "Result": "trace",
    "Step": "trace",
    "Unit": "units",
    "format_quantity": "units",
    "from_hf_config": "hf",
    "preset": "presets",
    "preset_names": "presets",
    "preset_spec": "presets",
    "param_breakdown": "model",
    "model_params": "model",
    "model_active_params": "model",
    "non_embedding_params": "model",
    "forward_flops_per_token": "flops",
    "layer_groups": "groups",
    "kv_kinds": "kv_model",
    "model_kv_bytes_per_token": "kv_model",
    "model_kv_growth_bytes_per_token": "kv_model",
    "model_kv_window_cap_bytes": "kv_model",
    "model_kv_cache_bytes": "kv_model",
    "accelerator": "hardware",
    "QuizzerError": "errors",
    "SpecError": "errors",
    "ConfigError": "errors",
    "UnknownNameError": "errors",
}
for _module, _names in _CALCULATOR_MODULES.items():
    _EXPORTS.update(dict.fromkeys(_names, _module))

__all__ = ["CALCULATORS", "forget", *sorted(_EXPORTS)]


#: The results a memoized calculator keeps, at most; then it starts afresh.
_KEPT = 4096


def _memoized(calculator: Callable[..., Result]) -> Callable[..., Result]:
    """``calculator``, answering a call it has answered before from memory. A calculator is pure and its
    Result immutable, so the same arguments give the same Result; the key holds each argument's type
    beside its value (2 and 2.0 are different calls: their derivations read differently). A call with an
    argument that cannot be a key (a list) is made afresh; an error is never kept."""
    kept: dict[tuple[Any, ...], Result] = {}

    def call(*args: Any, **kwargs: Any) -> Result:
        key: tuple[Any, ...] = (args, tuple(map(type, args)))
        if kwargs:
            named = sorted(kwargs.items())
            key += (tuple(named), tuple(type(v) for _, v in named))
        try:
            return kept[key]
        except KeyError:
            pass
        except TypeError:  # an argument that cannot be a key
            return calculator(*args, **kwargs)
        result = calculator(*args, **kwargs)
        if len(kept) >= _KEPT:
            kept.clear()
        kept[key] = result
        return result

    wrapped = update_wrapper(call, calculator)  # its name, module, docstring and signature (__wrapped__)
    wrapped.kept_results = kept  # type: ignore[attr-defined]
    return wrapped


def forget() -> None:
    """Forget every memoized result (a test that plants a change in the core's code needs it)."""
    made = globals().get("CALCULATORS")  # made on first use (``__getattr__``): none yet, nothing kept
    for calculator in made._made.values() if made is not None else ():
        calculator.__dict__.get("kept_results", {}).clear()
    from quizzer.core.kept import forget_kept  # and the building blocks they are made of

    forget_kept()


class _Calculators(Mapping[str, "Callable[..., Result]"]):
    """CALCULATORS: names are known up front; a calculator's module is imported on first lookup, and
    each is memoized (``_memoized``): the drawn variables of a template call the same ones with the same
    arguments again and again (a preset's parameter count)."""

    def __init__(self) -> None:
        self._module_of = {name: module for module, names in _CALCULATOR_MODULES.items() for name in names}
        self._made: dict[str, Callable[..., Result]] = {}

    def __getitem__(self, name: str) -> Callable[..., Result]:
        made = self._made.get(name)
        if made is None:
            module = self._module_of[name]  # KeyError for unknown names, as a dict would
            made = self._made[name] = _memoized(getattr(import_module(f"quizzer.core.{module}"), name))
        return made

    def __iter__(self) -> Iterator[str]:
        return iter(self._module_of)

    def __len__(self) -> int:
        return len(self._module_of)

    def __contains__(self, name: object) -> bool:
        return name in self._module_of


def __getattr__(name: str) -> Any:
    if name == "CALCULATORS":
        value: Any = _Calculators()
    elif name in _EXPORTS:
        value = getattr(import_module(f"quizzer.core.{_EXPORTS[name]}"), name)
    else:
        raise AttributeError(f"module 'quizzer.core' has no attribute {name!r}")
    globals()[name] = value
    return value
