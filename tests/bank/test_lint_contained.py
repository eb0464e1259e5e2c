"""The contained lint (#25): preset fields an answer reads must be stated; readings of a step must be said.

Each pack names a real preset whose config is public (DeepSeek-V3: 61 layers, the first 3 dense, d_model
7,168; Llama 3 8B: vocab 128,256, d_model 4,096, 32 layers of 32 heads, 8 KV heads, d_ff 14,336, untied,
8,030,261,248 parameters, of which the token table is 128,256 × 4,096 = 525,336,576, 6.54%).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizzer.bank.check.contained_trace import SPEC_CALCULATORS, Calls
from quizzer.bank.check.registry import chosen
from quizzer.bank.check.run import check_template
from quizzer.bank.errors import TemplateError
from quizzer.bank.loader import load_bank
from quizzer.core import CALCULATORS
from quizzer.core.errors import QuizzerError
from quizzer.core.presets import preset_names

HEAD = """
[[template]]
id = "{tid}"
title = "Contained fixture"
topic = "fixtures"
difficulty = "easy"
minutes = 2
kind = "exact"
explanation = "{{derivation}}"
tldr = "{{answer}}."
"""


def _findings(
    tmp_path: Path, body: str, tid: str = "cont", seeds: int = 3
) -> tuple[str, list[TemplateError]]:
    path = tmp_path / "pack.toml"
    path.write_text(HEAD.format(tid=tid) + body, encoding="utf-8")
    bank = load_bank([str(path)])
    assert bank.problems() == []
    problems, count = check_template(bank.get(tid), range(seeds), lints=chosen(only=("contained",)))
    assert count == seeds
    return str(path), problems


#: Part 2 asks for DeepSeek-V3's MoE layers' worth of a per-layer number: it needs 61 layers and 3 dense.
MOE_LAYERS = """
prompt = "DeepSeek-V3 has d_model {{model_d_model:count}}. How many bf16 bytes is one token's hidden state?"
conventions = [{convention}]
[template.variables]
model = {{ preset = ["deepseek-v3"] }}
n_moe = {{ expr = "model_n_layers - model_first_dense_layers" }}
[template.answer]
expr = "2 * model_d_model"
unit = "bytes"
[[template.parts]]
prompt = "One copy per MoE layer{shown}: how many bytes in all the MoE layers?"
explanation = "{{derivation}}"
answer = {{ expr = "part1 * n_moe", unit = "bytes" }}
"""


def test_a_field_read_through_a_derived_variable_and_never_stated_is_named(tmp_path: Path) -> None:
    path, problems = _findings(tmp_path, MOE_LAYERS.format(convention="", shown=""))
    (problem,) = problems
    assert (problem.path, problem.template_id, problem.field) == (path, "cont", "parts[0].answer.expr")
    assert problem.message.startswith("seed 0: the answer reads deepseek-v3's ")
    assert "n_layers (61)" in problem.message
    assert "first_dense_layers (3)" in problem.message
    assert "through n_moe" in problem.message
    assert "show {n_moe}" in problem.message


def test_the_variable_shown_in_the_later_prompt_states_it(tmp_path: Path) -> None:
    assert _findings(tmp_path, MOE_LAYERS.format(convention="", shown=" ({n_moe} of them)"))[1] == []


def test_the_fields_stated_in_a_convention_state_it(tmp_path: Path) -> None:
    convention = '"DeepSeek-V3: {model_n_layers} layers, the first {model_first_dense_layers} dense."'
    assert _findings(tmp_path, MOE_LAYERS.format(convention=convention, shown=""))[1] == []


#: Llama 3 8B's 32 query heads share 8 KV heads: 4 each, shown, the fields it is made of not.
GROUP = """
prompt = "Each KV head of Llama 3 8B serves {group} query heads. How many query heads do two KV heads serve?"
[template.variables]
model = { preset = ["llama-3-8b"] }
group = { expr = "model_n_heads // model_n_kv_heads" }
[template.answer]
expr = "2 * group"
unit = "count"
"""


def test_a_derived_number_the_prompt_shows_is_a_given_whatever_it_is_made_of(tmp_path: Path) -> None:
    assert _findings(tmp_path, GROUP)[1] == []


#: The bf16 weights of Llama 3 8B: the calculator reads the config; the prompt may or may not print it.
WEIGHTS = """
prompt = "Llama 3 8B{shown}. How many bytes do its bf16 weights take?"
[template.variables]
model = {{ preset = ["llama-3-8b"] }}
params = {{ expr = "model_params_of(model)" }}
[template.answer]
expr = "2 * params"
unit = "bytes"
"""


def test_the_fields_a_calculator_reads_of_a_preset_are_named(tmp_path: Path) -> None:
    path, problems = _findings(tmp_path, WEIGHTS.format(shown=""))
    (problem,) = problems
    assert (problem.path, problem.template_id, problem.field) == (path, "cont", "answer.expr")
    assert "through params" in problem.message
    for field in ("vocab_size (128,256)", "d_model (4,096)", "n_layers (32)", "d_ff (14,336)"):
        assert field in problem.message
    assert "qkv_bias" not in problem.message  # no biases: the default, what a student assumes


def test_the_calculator_result_printed_states_every_field_it_read(tmp_path: Path) -> None:
    assert _findings(tmp_path, WEIGHTS.format(shown=" holds {params:count} parameters"))[1] == []


def test_the_calculator_result_printed_roughly_in_the_name_states_nothing(tmp_path: Path) -> None:
    """ "8B" is 8,030,261,248 to one figure: a name, not a count."""
    assert len(_findings(tmp_path, WEIGHTS.format(shown=" (8B)"))[1]) == 1


#: Every config field of Llama 3 8B printed but the tying: 525,336,576 parameters hang on it.
TIED = """
prompt = \"\"\"Llama 3 8B: vocab_size {{model_vocab_size}}, d_model {{model_d_model}}, \
{{model_n_layers}} layers of {{model_n_heads}} heads, {{model_n_kv_heads}} KV heads, \
d_ff {{model_d_ff}}{tied}. How many parameters?\"\"\"
[template.variables]
model = {{ preset = ["llama-3-8b"] }}
[template.answer]
expr = "model_params_of(model)"
unit = "params"
"""


def test_tying_left_unsaid_is_named_though_untied_is_the_default(tmp_path: Path) -> None:
    (problem,) = _findings(tmp_path, TIED.format(tied=""))[1]
    assert problem.field == "answer.expr"
    assert "tie_embeddings (False)" in problem.message
    assert "state {model_tie_embeddings}" in problem.message


def test_tying_said_in_words_states_it(tmp_path: Path) -> None:
    assert _findings(tmp_path, TIED.format(tied=", an untied LM head"))[1] == []


#: What is left of Llama 3 8B without its two vocabulary matrices, from the total printed: every field
#: the total rests on reaches the answer only through that printed total.
CARRIED = """
prompt = \"\"\"Llama 3 8B holds {total:count} parameters; vocab_size {model_vocab_size}, d_model \
{model_d_model}, an untied head. How many parameters are not in the two vocabulary matrices?\"\"\"
[template.variables]
model = { preset = ["llama-3-8b"] }
total = { expr = "model_params_of(model)" }
[template.answer]
expr = "model_params_of(model) - 2 * model_vocab_size * model_d_model"
unit = "params"
"""


def test_fields_that_reach_the_answer_only_through_a_printed_total_need_no_statement(tmp_path: Path) -> None:
    assert _findings(tmp_path, CARRIED)[1] == []


#: A decode step of Llama 3 8B, bf16 weights over 2 TB/s: whether the 525,336,576-parameter token table
#: is read whole or as a lookup moves the time by 525,336,576 / 8,030,261,248 = 6.5%.
DECODE = """
prompt = "A decode step of Llama 3 8B reads its {{weights:decimal}} of bf16 weights at 2 TB/s{text}. Time?"
conventions = ["Decode bounds are roofline lower bounds: every byte a step needs is read once."{convention}]
[template.variables]
model = {{ preset = ["{model}"] }}
weights = {{ expr = "2 * model_params_of(model)", unit = "bytes" }}
[template.answer]
expr = "weights / 2000000000000"
unit = "s"
display = "ms"
"""


def _decode(model: str = "llama-3-8b", text: str = "", convention: str = "") -> str:
    return DECODE.format(model=model, text=text, convention=convention)


def test_a_decode_step_that_leaves_the_table_reading_unsaid_is_named(tmp_path: Path) -> None:
    path, problems = _findings(tmp_path, _decode())
    (problem,) = problems
    assert (problem.path, problem.template_id, problem.field) == (path, "cont", "answer.expr")
    assert "token-embedding table whole or one row per sequence" in problem.message
    assert "moves the answer by 6.5%" in problem.message


def test_a_convention_on_the_table_settles_it(tmp_path: Path) -> None:
    said = ', "The token table is read whole, as the head is."'
    assert _findings(tmp_path, _decode(convention=said))[1] == []


def test_every_weight_read_settles_it(tmp_path: Path) -> None:
    assert _findings(tmp_path, _decode(text=", every weight read once"))[1] == []


LOOKUP = ', "The input token table is a lookup: a step reads one row per sequence, counted as 0."'


def test_a_lookup_convention_the_derivation_does_not_follow_is_named(tmp_path: Path) -> None:
    path, problems = _findings(tmp_path, _decode(convention=LOOKUP))
    (problem,) = problems
    assert (problem.path, problem.template_id, problem.field) == (path, "cont", "answer.expr")
    assert "say a decode step reads the token table one row per sequence" in problem.message
    assert "but the derivation reads it whole" in problem.message
    assert "moves the answer by 6.5%" in problem.message


def test_a_lookup_convention_the_derivation_follows_is_no_finding(tmp_path: Path) -> None:
    body = _decode(convention=LOOKUP).replace(
        'expr = "2 * model_params_of(model)"',
        'expr = "2 * (model_params_of(model) - model_vocab_size * model_d_model)"',
    )
    assert "model_vocab_size" in body
    assert _findings(tmp_path, body)[1] == []


def test_a_tied_model_has_no_table_reading_to_settle(tmp_path: Path) -> None:
    """Gemma 3 1B's head is its token table: a step reads it whole either way."""
    assert _findings(tmp_path, _decode(model="gemma-3-1b"))[1] == []


def test_a_question_that_is_no_decode_step_is_not_asked_the_reading(tmp_path: Path) -> None:
    body = _decode().replace("A decode step of Llama 3 8B reads its", "Llama 3 8B stores")
    body = body.replace("Decode bounds are roofline lower bounds: every byte a step needs is read once.", "")
    assert _findings(tmp_path, body)[1] == []


def test_reading_weights_outside_a_decode_step_is_not_asked_the_reading(tmp_path: Path) -> None:
    """Loading a checkpoint reads the whole table: only a decode step may look rows up."""
    body = _decode().replace(
        "A decode step of Llama 3 8B reads its", "Loading Llama 3 8B from disk reads its"
    )
    body = body.replace("Decode bounds are roofline lower bounds: every byte a step needs is read once.", "")
    assert _findings(tmp_path, body)[1] == []


#: Four sliding layers of an 8-token window, at 100 tokens: W = 8 tokens kept, or W − 1 = 7 (12.5% less).
WINDOW = """
prompt = "A model has 4 sliding layers with a window of 8 tokens, 1 KV head of 64, bf16. Cache at 100 tokens?"
conventions = [{convention}]
[template.answer]
expr = "windowed_kv_cache_bytes(0, 4, 8, 1, 64, 100)"
unit = "bytes"
"""


def test_a_window_reading_left_unsaid_is_named(tmp_path: Path) -> None:
    (problem,) = _findings(tmp_path, WINDOW.format(convention=""))[1]
    assert problem.field == "answer.expr"
    assert "W tokens or W − 1" in problem.message
    assert "moves the answer by 12.5%" in problem.message


def test_a_window_reading_said_is_no_finding(tmp_path: Path) -> None:
    said = '"A sliding layer keeps the last W tokens."'
    assert _findings(tmp_path, WINDOW.format(convention=said))[1] == []


def test_every_calculator_given_a_preset_is_recorded_and_gives_the_core_value() -> None:
    """The lint calls the spec functions itself: every ``*_of`` calculator is among them, with the value the
    core gives."""
    presets_module = {name for name in CALCULATORS if CALCULATORS[name].__module__ == "quizzer.core.presets"}
    assert presets_module == set(SPEC_CALCULATORS)
    calls = Calls()
    for model in preset_names():
        for name in SPEC_CALCULATORS:
            args = (model, 4096) if name in ("model_kv_cache_bytes_of", "model_cache_bytes_of") else (model,)
            try:
                expected = CALCULATORS[name](*args)
            except QuizzerError as refused:  # a hybrid's state of a model without a mixer: refused alike
                with pytest.raises(type(refused), match=re.escape(str(refused))):
                    calls[name](*args)
                continue
            assert calls[name](*args) == expected, (name, model)
            assert calls.fields, (name, model)


#: A hybrid's fixed state read through the preset: the mixer's shapes and which layers are the mixer's.
HYBRID_STATE = """
prompt = "Qwen3-Next-80B-A3B keeps a fixed state per sequence{shown}. How many bytes (conv bf16, state fp32)?"
[template.variables]
model = {{ preset = ["qwen3-next-80b-a3b"] }}
[template.answer]
expr = "model_state_bytes_of(model)"
unit = "bytes"
"""
STATED = (
    " in its 36 gated DeltaNet layers (every 4th of its 48 layers is softmax attention), each with "
    "{model_mixer_heads} value heads and {model_mixer_key_heads} key heads of {model_mixer_key_dim} and "
    "{model_mixer_value_dim}, and a convolution of {model_mixer_conv_kernel}"
)


def test_a_hybrids_state_read_through_its_preset_names_the_mixer_fields_unsaid(tmp_path: Path) -> None:
    (problem,) = _findings(tmp_path, HYBRID_STATE.format(shown=""))[1]
    assert problem.field == "answer.expr"
    for field in ("layer_types", "mixer_heads", "mixer_key_dim", "mixer_value_dim", "mixer_conv_kernel"):
        assert field in problem.message


def test_a_hybrids_state_with_its_shapes_and_layers_said_is_no_finding(tmp_path: Path) -> None:
    assert _findings(tmp_path, HYBRID_STATE.format(shown=STATED))[1] == []


def _joined_reading(texts: list[str]) -> tuple[tuple[tuple[int, float, float], ...], frozenset[int]]:
    """The numbers and whole counts of ``texts`` read as one text joined by newlines (how ``shown`` read
    them before it read each text on its own)."""
    from quizzer.bank.generate.prompt_numbers import number_spans

    text = "\n".join(texts)
    numbers: list[tuple[int, float, float]] = []
    counts: set[int] = set()
    for start, end, values in number_spans(text):
        piece = text[start:end]
        figures = sum(c.isdigit() for c in piece.split("e")[0].lstrip("0.,"))
        numbers.extend((max(figures, 1), values[0], value) for value in values)
        if re.fullmatch(r"\d{1,3}(,\d{3})+|\d+", piece):
            counts.add(int(piece.replace(",", "")))
    return tuple(dict.fromkeys(numbers)), frozenset(counts)


_NUMBERISH = st.text(alphabet="0123456789.,eE+-kMBGiT% \t\u00a0abs\n", max_size=30)


@settings(max_examples=300, deadline=None)
@given(st.lists(_NUMBERISH, max_size=4))
def test_shown_reads_each_text_as_the_texts_joined_read(texts: list[str]) -> None:
    """A number never spans two texts joined by a newline, so reading each text on its own (remembered:
    the parts of an instance read the same prompts again) finds what reading them joined found."""
    from quizzer.bank.check.contained_stated import shown

    seen = shown([], texts)
    assert (seen.numbers, seen.counts) == _joined_reading(texts)
    assert seen.text == "\n".join(texts)
