"""Own numbers (#27): every part's variables, a chip's figures and a model's shape set from the command line;
a config.json or a preset asked about with --model."""

from __future__ import annotations

import json
import random
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from quizzer.bank.errors import TemplateError
from quizzer.bank.generate.instance import Instance
from quizzer.bank.loader import Bank
from quizzer.bank.model_bank import CONFIG_KEY, ModelBank, model_variable, posed_for, replay
from quizzer.bank.read.overrides import is_chip, settable_rows
from quizzer.core.accelerators import ACCELERATORS
from quizzer.core.chips import RATE_FIELDS
from quizzer.core.errors import QuizzerError
from quizzer.core.hf import BUILDERS
from quizzer.core.presets import preset, preset_names, register_config
from quizzer.session.picking import format_set, parse_set
from tests.builtin_bank import builtin_bank
from tests.cli_run import run_cli
from tests.sampling import sampled

REFERENCE = Path(__file__).resolve().parent / "data" / "reference"


@cache
def bank() -> Bank:
    return builtin_bank()


def values(instance: Instance) -> list[Any]:
    return [part.value for part in instance.parts]


def _candidates(var: Any) -> list[Any]:
    if var.kind == "choices":
        return list(var.spec)
    if var.kind == "bool":
        return [True, False]
    if var.kind in ("range", "log2"):
        lo, hi = var.spec
        return [lo, hi]
    return []


def later_part_variables() -> list[tuple[str, int, str]]:
    """(template id, part, variable) for every drawn variable of a later part of the built-in bank."""
    out = []
    for template in bank().templates():
        for part in template.parts[1:]:
            out += [(template.id, part.number, v.name) for v in part.variables if len(_candidates(v)) > 1]
    return out


def chip_templates() -> list[tuple[str, str]]:
    return [
        (t.id, v.name) for t in bank().templates() for part in t.parts for v in part.variables if is_chip(v)
    ]


def model_templates() -> list[str]:
    return [t.id for t in bank().templates() if model_variable(t) is not None]


# --- every part posable ----------------------------------------------------------------------------------


def test_the_issue_example_sets_part_2s_v_and_only_part_2_changes() -> None:
    drawn = bank().generate("pipeline-bubble-fraction", 1)
    own = bank().generate("pipeline-bubble-fraction", 1, {"v": "4"})
    assert own.parts[0].value == drawn.parts[0].value
    assert own.parts[1].variables["v"] == 4
    assert own.parts[1].value == pytest.approx(own.parts[0].value / 4)


@pytest.mark.parametrize("case", later_part_variables(), ids=lambda c: f"{c[0]}.{c[2]}")
def test_a_later_parts_variable_changes_nothing_before_it(case: tuple[str, int, str]) -> None:
    """Set to another value it can take, a part's variable leaves every earlier part as drawn and is the
    value that part uses."""
    template_id, number, name = case
    template = bank().get(template_id)
    var = next(v for v in template.parts[number - 1].variables if v.name == name)
    drawn = bank().generate(template_id, 7)
    current = drawn.parts[number - 1].variables[name]
    others = [c for c in _candidates(var) if c != current]
    own = bank().generate(template_id, 7, {name: str(random.Random(name).choice(others))})
    assert values(own)[: number - 1] == values(drawn)[: number - 1]
    assert own.parts[number - 1].variables[name] != current


def test_part_variable_names_are_unique_within_a_template() -> None:
    for template in bank().templates():
        names = [v.name for part in template.parts for v in part.variables]
        assert len(names) == len(set(names)), template.id


def test_show_vars_lists_every_settable_name_with_its_part() -> None:
    out = run_cli(*["show", "pipeline-bubble-fraction", "--vars", "--json"])
    rows = json.loads(out.stdout)
    by_name = {r["name"]: r for r in rows}
    assert by_name["v"]["part"] == 2
    template = bank().get("pipeline-bubble-fraction")
    drawn = {v.name for p in template.parts for v in p.variables if v.kind != "expr"}
    assert set(by_name) == drawn


def test_show_part_shows_one_part_on_its_own_numbers() -> None:
    out = run_cli(*["show", "pipeline-bubble-fraction#1", "--part", "2", "--set", "v=4", "--json"])
    data = json.loads(out.stdout)
    assert data["part"] == 2
    assert data["variables"]["v"] == 4
    first = bank().generate("pipeline-bubble-fraction", 1).parts[0].value
    assert data["answer"]["value"] == pytest.approx(first / 4)


def test_grade_part_takes_a_part_variable() -> None:
    own = bank().generate("pipeline-bubble-fraction", 1, {"v": "4"})
    answer = f"{own.parts[1].value * 100:.4f}%"
    out = run_cli(*["grade", "pipeline-bubble-fraction#1", answer, "--part", "2", "--set", "v=4", "--json"])
    assert json.loads(out.stdout)["verdict"] in ("exact", "correct")


# --- chips as data ---------------------------------------------------------------------------------------


def _as_custom(name: str) -> dict[str, str]:
    """A custom chip with every figure of table chip ``name``."""
    acc = ACCELERATORS[name]
    fields = {f"{rate}": repr(acc.dense_flops[rate]) for rate in RATE_FIELDS if rate in acc.dense_flops}
    fields["hbm_bytes"] = str(acc.hbm_bytes)
    fields["hbm_bandwidth"] = repr(acc.hbm_bandwidth)
    if acc.interconnect_bandwidth is not None:
        fields["interconnect_bandwidth"] = repr(acc.interconnect_bandwidth)
        fields["interconnect_links"] = str(acc.interconnect_links)
    return fields


#: Templates whose answer rests on something of a table chip beyond its figures, which a custom chip (known
#: only by its figures) takes from a default: the reason.
BEYOND_FIGURES = {
    "walkthrough-moe-active": "the rent per GPU-hour is the base chip's going rate",
    "walkthrough-mla-serving": "the rent per GPU-hour is the base chip's going rate",
    "serving-cost-per-million-tokens": "the price band is the base chip's",
    "training-cost": "the price per GPU-hour is the base chip's",
    "dp-critical-batch-per-gpu": "A100 nodes have 200 Gb/s NICs, later ones 400 Gb/s",
    "roofline-host-link-offload": "the host link (PCIe generation or NVLink-C2C) belongs to the part",
    "nvlink-allgather-time": "the MI300X's full mesh and NVSwitch nodes differ beyond the link figure",
    "tp-allreduce-bytes": "the MI300X's full mesh and NVSwitch nodes differ beyond the link figure",
    "generate-step-time": "a TPU's slice sizes differ from a GPU node's",
}


def _chip_of(template_id: str, var: str, seed: int = 3) -> str:
    drawn = bank().generate(template_id, seed)
    return str(drawn.variables.get(var) or next(p.variables[var] for p in drawn.parts if var in p.variables))


@pytest.mark.parametrize("case", chip_templates(), ids=lambda c: c[0])
def test_a_chip_given_its_own_table_figures_gives_identical_answers(case: tuple[str, str]) -> None:
    template_id, var = case
    chip = _chip_of(template_id, var)
    table = bank().generate(template_id, 3, {var: chip})
    restated = {f"{var}.{k}": v for k, v in _as_custom(chip).items()}
    assert values(bank().generate(template_id, 3, {var: chip, **restated})) == values(table)


@pytest.mark.parametrize("case", chip_templates(), ids=lambda c: c[0])
def test_a_custom_chip_with_a_table_chips_figures_gives_identical_answers(case: tuple[str, str]) -> None:
    template_id, var = case
    chip = "h100-sxm" if template_id in BEYOND_FIGURES else _chip_of(template_id, var)
    table = bank().generate(template_id, 3, {var: chip})
    custom = {f"{var}.{k}": v for k, v in _as_custom(chip).items()}
    assert values(bank().generate(template_id, 3, {var: "custom", **custom})) == values(table)


@pytest.mark.parametrize("case", chip_templates(), ids=lambda c: c[0])
def test_some_figure_of_the_chip_changes_an_answer(case: tuple[str, str]) -> None:
    """Every template that takes a chip uses one of its figures: doubling one of them changes an answer
    (doubling them all may not: a ridge point is a ratio)."""
    template_id, var = case
    changed = []
    for seed in range(3, 40):  # a draw may use no figure (a small model fits any chip)
        chip = _chip_of(template_id, var, seed)
        base = values(bank().generate(template_id, seed, {var: chip}))
        for field, value in _as_custom(chip).items():
            if field == "interconnect_links":
                continue
            try:
                own = bank().generate(
                    template_id, seed, {var: chip, f"{var}.{field}": repr(2 * float(value))}
                )
            except TemplateError:
                continue  # a figure the draw cannot take (a constraint on memory): the others must move it
            changed += [field] if values(own) != base else []
        if changed:
            break
    assert changed, f"{template_id}: no figure of {chip} changes an answer"


def test_a_books_tpu_v5e_poses_with_its_own_figures() -> None:
    """Austin et al.'s TPU v5e: 1.97e14 bf16 FLOP/s and 8.2e11 bytes/s; a ridge of about 240 FLOPs/byte."""
    own = bank().generate(
        "roofline-matmul-intensity",
        1,
        {"gpu": "tpu-v5e", "gpu.bf16": "1.97e14", "gpu.hbm_bandwidth": "8.2e11"},
    )
    ridge = own.parts[1].value
    assert ridge == pytest.approx(1.97e14 / 8.2e11)
    assert "TPU v5e" in own.parts[1].prompt or "197" in own.parts[1].prompt


def test_a_chip_field_that_is_not_one_is_named() -> None:
    with pytest.raises(TemplateError, match=r"variables\.gpu\.hbm_bandwith.*did you mean 'hbm_bandwidth'"):
        bank().generate("roofline-matmul-intensity", 1, {"gpu.hbm_bandwith": "2e12"})


def test_a_custom_chip_missing_a_figure_says_which() -> None:
    with pytest.raises(TemplateError, match="give the chip its hbm_bandwidth"):
        bank().generate(
            "roofline-matmul-intensity", 1, {"gpu": "custom", "gpu.bf16": "1e15", "dtype": "bf16"}
        )


# --- models as data --------------------------------------------------------------------------------------

PRESETS_TO_COMPARE = ("llama-3-8b", "deepseek-v3", "gemma-3-4b", "qwen3-30b-a3b", "gpt-oss-20b")


@pytest.mark.parametrize("name", PRESETS_TO_COMPARE)
def test_a_config_json_equal_to_a_preset_gives_identical_answers(name: str) -> None:
    registered = register_config(dict(preset(name).config))
    for template_id in model_templates():
        try:
            as_preset = posed_for(bank(), template_id, 5, name)
        except (TemplateError, QuizzerError):
            with pytest.raises((TemplateError, QuizzerError)):
                posed_for(bank(), template_id, 5, registered)
            continue
        assert values(posed_for(bank(), template_id, 5, registered)) == values(as_preset), template_id


def test_a_field_derived_from_one_set_follows_it() -> None:
    """GPT-2's head_dim is derived (768 / 12) and its v_head_dim from it: set head_dim, both move; Llama 3's
    8 KV heads are its config's own and stay when n_heads is set."""
    gpt2 = preset("gpt2{head_dim=32}").spec
    assert (gpt2.head_dim, gpt2.v_head_dim) == (32, 32)
    llama = preset("llama-3-8b{n_heads=16}").spec
    assert (llama.n_kv_heads, llama.head_dim) == (8, 4096 // 16)


def test_a_models_own_field_changes_the_count() -> None:
    base = posed_for(bank(), "preset-kv-bytes-per-token", 3, "llama-3-8b")
    own = posed_for(bank(), "preset-kv-bytes-per-token", 3, "llama-3-8b{n_kv_heads=4}")
    assert own.main.value * 2 == base.main.value
    assert own.id == "preset-kv-bytes-per-token#3@llama-3-8b{n_kv_heads=4}"


def _configs_by_type() -> dict[str, dict[str, Any]]:
    """One config.json for each model_type quizzer reads: a preset's, else a measured one's."""
    from tests.core.test_hf_2025 import MEASURED

    found: dict[str, dict[str, Any]] = {}
    for name in preset_names():
        config = dict(preset(name).config)
        found.setdefault(str(config["model_type"]), config)
    extra = json.loads((REFERENCE / "real_models_2026_extra.json").read_text(encoding="utf-8"))
    for model in extra["models"]:
        found.setdefault(model["model_type"], model["config_json"])
    for config, _ in MEASURED.values():
        found.setdefault(config["model_type"], dict(config))
    return found


def test_every_supported_model_type_has_a_config_here() -> None:
    assert set(_configs_by_type()) >= set(BUILDERS)


def _drill(posed: ModelBank, questions: int) -> list[str]:
    """The ids a drill of ``questions`` on ``posed`` asks (each answered "1"); it never raises."""
    from quizzer.session.drill import DrillSession

    session = DrillSession(posed, seed=11, clock=lambda: 0.0)
    asked = []
    for _ in range(questions):
        asked.append(session.instance.id)
        session.answer("1")
        session.next()
    return asked


# A third of the models in the dev run, all under the ci profile (tests/sampling.py): each builds a bank posed
# for the model, a second or more; every preset and type is read and counted every run by the core's tests.
@pytest.mark.parametrize("model_type", sampled(sorted(BUILDERS)))
def test_a_drill_on_every_model_type_asks_about_that_model(model_type: str) -> None:
    name = register_config(_configs_by_type()[model_type])
    posed = ModelBank(bank(), name)
    assert posed.posed(), posed.skipped
    assert all(i.endswith(f"@{name}") for i in _drill(posed, 12))
    for reason in posed.skipped.values():
        assert reason
        assert "\n" not in reason


@pytest.mark.parametrize("name", sampled(preset_names()))
def test_a_drill_on_every_preset_asks_about_it(name: str) -> None:
    posed = ModelBank(bank(), name)
    assert len(posed.posed()) >= 10, posed.skipped
    assert all(i.endswith(f"@{name}") for i in _drill(posed, 20))


def test_a_dense_model_skips_the_expert_questions_with_a_reason() -> None:
    posed = ModelBank(bank(), "llama-3-8b")
    assert posed.skipped["mixtral-total-vs-active"] == "a dense model: the question is about experts"
    assert "modern-architectures-mla-layer-params" not in posed.posed()


def test_an_attempt_on_a_users_config_replays_from_its_variables() -> None:
    config = dict(preset("mistral-7b").config) | {"num_hidden_layers": 30}
    name = register_config(config)
    instance = posed_for(bank(), "preset-kv-bytes-per-token", 9, name)
    assert instance.variables[CONFIG_KEY] == config
    recorded = json.loads(json.dumps(instance.variables))  # as the history keeps them
    from quizzer.core import presets

    presets._OWN.pop(name)  # another process: the config is known only from the attempt
    again = replay(bank(), "preset-kv-bytes-per-token", 9, recorded)
    assert values(again) == values(instance)


def test_a_saved_set_keeps_the_config_it_names() -> None:
    config = dict(preset("qwen3-8b").config) | {"num_hidden_layers": 20}
    name = register_config(config)
    instance = posed_for(bank(), "preset-kv-bytes-per-token", 2, name)
    text = format_set([instance, bank().generate("embedding-table-params", 1)], 10)
    from quizzer.core import presets

    presets._OWN.pop(name)
    replayed = parse_set(bank(), text, "set.txt")
    assert [i.id for i in replayed] == [instance.id, "embedding-table-params#1"]
    assert values(replayed[0]) == values(instance)


# --- the verbs -------------------------------------------------------------------------------------------


def test_show_model_config_json_names_the_instance(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(dict(preset("llama-3-8b").config)), encoding="utf-8")
    by_config = json.loads(
        run_cli(*["show", "preset-kv-bytes-per-token#3", "--model", str(path), "--json"]).stdout
    )
    by_preset = json.loads(
        run_cli(*["show", "preset-kv-bytes-per-token#3", "--model", "llama-3-8b", "--json"]).stdout
    )
    assert by_config["answer"] == by_preset["answer"]
    assert by_config["instance"].startswith("preset-kv-bytes-per-token#3@config-")
    assert by_preset["instance"] == "preset-kv-bytes-per-token#3@llama-3-8b"
    replay_id = by_preset["instance"]
    assert json.loads(run_cli(*["show", replay_id, "--json"]).stdout)["answer"] == by_preset["answer"]


def test_a_model_quizzer_cannot_read_gets_counts_message(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "mamba"}), encoding="utf-8")
    out = run_cli(*["show", "preset-kv-bytes-per-token#3", "--model", str(path)])
    count = run_cli(*["count", str(path)])
    assert out.returncode == count.returncode == 2
    assert "unsupported model_type 'mamba'" in out.stderr
    assert out.stderr.split(": ", 1)[1] == count.stderr.split(": ", 1)[1]


def test_model_on_a_template_without_one_is_a_usage_error() -> None:
    out = run_cli(*["show", "embedding-table-params#1", "--model", "llama-3-8b"])
    assert out.returncode == 2
    assert "takes no model" in out.stderr


def test_plain_model_through_a_pipe(tmp_path: Path) -> None:
    history = str(tmp_path / "h.sqlite3")
    argv = ["plain", "--model", "gemma-3-4b", "--count", "2", "--seed", "5", "--db", history]
    out = run_cli(*argv, stdin="1\n\n\n\n\n\n")
    assert out.stdout.count("@gemma-3-4b]") == 2
    assert "questions about gemma-3-4b" in out.stderr


def test_list_model_names_the_skipped_and_why() -> None:
    rows = json.loads(run_cli(*["list", "--model", "llama-3-8b", "--json"]).stdout)
    skipped = {r["id"]: r["reason"] for r in rows if not r["posed"]}
    assert skipped["mixtral-total-vs-active"] == "a dense model: the question is about experts"
    assert any(r["posed"] for r in rows)


def test_settable_rows_offer_custom_for_every_chip() -> None:
    for template_id, var in chip_templates():
        row = next(r for r in settable_rows(bank().get(template_id)) if r["name"] == var)
        assert row["kind"] == "chip"
        assert "custom" in row["values"]
        assert f"{var}.hbm_bandwidth" in row["fields"]


def test_a_presets_title_is_its_name_alone() -> None:
    """Any model may be asked any question that takes one (--model): its title, which prompts quote, holds no
    count or shape a question could ask ("DeepSeek-V3 (671B, 37B active...)" gave a total away); `count
    --list` shows the rest."""
    for name in preset_names():
        assert "(" not in preset(name).title, name
    assert preset("deepseek-v3").about.startswith("671B, 37B active")
