"""The fields of issue #11: titles, nudges, conditional text, the grading context, omissions_ok, labels."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzer.bank.errors import TemplateError
from quizzer.bank.generate.render import Instance, generate, grade_context
from quizzer.bank.loader import load_bank
from quizzer.bank.read.schema import Template

DATA = Path(__file__).resolve().parent.parent / "data"
TEACHING = (DATA / "teaching" / "teaching.toml").read_text(encoding="utf-8")


def template(text: str = TEACHING, tmp_path: Path | None = None) -> Template:
    if tmp_path is None:
        bank = load_bank([str(DATA / "teaching" / "teaching.toml")])
    else:
        (tmp_path / "pack.toml").write_text(text, encoding="utf-8")
        bank = load_bank([str(tmp_path / "pack.toml")])
    return bank.get("teaching-cache")


def instance_where(condition: str, **overrides: str) -> Instance:
    """An instance whose variables satisfy ``condition`` (a Python test over them)."""
    t = template()
    for seed in range(200):
        inst = generate(t, seed, overrides)
        if eval(condition, {}, dict(inst.variables)):
            return inst
    raise AssertionError(f"no seed with {condition}")


def test_the_teaching_fixture_loads_with_every_field() -> None:
    t = template()
    assert [m.title for m in t.main.mistakes] == ["Every layer counted", ""]
    main = t.main
    assert len(main.nudges) == 2
    assert [p.when is None for p in main.explanation_parts] == [True, False, False]
    assert main.layers is not None
    assert main.dtype is not None
    assert main.layers_label == "the {held} layers one GPU holds"
    assert main.per_layer is False
    assert t.follow_ups[0].when is not None
    assert t.follow_ups[1].when is None
    assert "Multiply the bytes" in main.explanation
    assert "This GPU holds every layer." in main.explanation


def test_mistake_titles_default_to_the_name_in_words() -> None:
    inst = instance_where("split > 1")
    assert [(m.name, m.title) for m in inst.mistakes] == [
        ("all-layers", "Every layer counted"),
        ("one-layer-only", "One layer only"),
    ]


def test_nudges_and_layers_label_take_placeholders() -> None:
    inst = instance_where("n_layers == 16 and split == 4")
    assert inst.nudges == ("Which layers does one GPU hold?", "What does one of the 16 layers cost?")
    assert inst.layers_label == "the 4 layers one GPU holds"
    assert inst.layers == 4
    assert grade_context(inst).layers_label == "the 4 layers one GPU holds"


def test_parts_and_follow_ups_follow_their_conditions() -> None:
    split = instance_where("split == 2")
    assert "This GPU holds every layer." not in split.explanation
    assert f"This GPU holds {split.variables['held']} of the" in split.explanation
    assert "a 1/2 share each" in split.explanation
    assert [q for q, _ in split.follow_ups] == ["What if the model were not split?", "Always shown?"]
    whole = instance_where("split == 1")
    assert "This GPU holds every layer." in whole.explanation
    assert "share each" not in whole.explanation
    assert [q for q, _ in whole.follow_ups] == ["Always shown?"]
    assert whole.memory_aid == ""  # its one part holds only for n_layers > 100
    assert [m.name for m in whole.mistakes] == ["one-layer-only"]


def test_the_tldr_joins_the_parts_that_hold() -> None:
    inst = instance_where("held > 1")
    assert inst.tldr == f"Layers held × bytes per layer.\n\nHere {inst.display}."


def test_dtype_comes_from_the_answer_expression_or_the_dtype_variable(tmp_path: Path) -> None:
    inst = instance_where("dtype == 'fp8'")
    assert inst.dtype == "fp8"
    plain = TEACHING.replace("dtype = \"'fp8' if dtype == 'fp8' else 'bf16'\"\n", "")
    inst = generate(template(plain, tmp_path), 3, {"dtype": "bf16"})
    assert inst.dtype == "bf16"  # the variable named dtype
    no_dtype = plain.replace("in {dtype}", "in bf16").replace('dtype = { choices = ["bf16", "fp8"] }\n', "")
    assert generate(template(no_dtype, tmp_path), 3).dtype is None


def test_layers_default_to_n_layers(tmp_path: Path) -> None:
    text = TEACHING.replace('layers = "held"\n', "")
    inst = generate(template(text, tmp_path), 5, {"n_layers": "32"})
    assert inst.layers == 32


def test_variable_labels_name_variables_in_the_answer_row() -> None:
    inst = instance_where("True")
    last = inst.derivation[-1]
    assert last.formula == "layers on this GPU × per_layer_bytes"
    assert last.substituted == f"{inst.variables['held']:,} × {inst.variables['per_layer_bytes']:,}"


@pytest.mark.parametrize(
    ("old", "new", "field", "message"),
    [
        ('title = "Every layer counted"', 'title = ""', "mistakes[0].title", "must not be empty"),
        ('title = "Every layer counted"', 'title = "x\\ny"', "mistakes[0].title", "one short line"),
        ('title = "Every layer counted"', "title = 3", "mistakes[0].title", "expected text"),
        ('"Which layers does one GPU hold?", ', '"", ', "nudges[0]", "must not be empty"),
        ('{ text = "Layers held × bytes per layer." },', "", "tldr", "at least one part without `when`"),
        ('{ text = "Layers held × bytes per layer." }', '{ text = "x", when = "held > 1", also = 1 }',
         "tldr[0].also", "unknown key"),
        ('{ text = "Layers held × bytes per layer." }', "{ text = 3 }", "tldr[0].text", "expected text"),
        ('{ text = "Here {answer}.", when = "held > 1" }', '{ text = "Here {answer}.", when = "bogus > 1" }',
         "tldr[1].when", "unknown variable 'bogus'"),
        ('when = "split > 1"\n\n[[template.follow_ups]]\nquestion = "Always',
         'when = "nope"\n\n[[template.follow_ups]]\nquestion = "Always', "follow_ups[0].when",
         "unknown variable"),
        ("dtype = \"'fp8' if dtype == 'fp8' else 'bf16'\"", 'dtype = "n_layers"', "answer.dtype",
         "dtype name"),
        ('layers = "held"', 'layers = "dtype"', "answer.layers", "must give a number"),
        ("per_layer = false", 'per_layer = "no"', "answer.per_layer", "expected true/false"),
        ('layers_label = "the {held} layers one GPU holds"', 'layers_label = "the {hold} layers"',
         "answer.layers_label", "unknown placeholder {hold}"),
        ('held = { expr = "n_layers // split", label = "layers on this GPU" }',
         'held = { expr = "n_layers // split", label = 3 }', "variables.held.label", "expected text"),
    ],
)  # fmt: skip
def test_bad_new_fields_name_file_template_and_field(
    tmp_path: Path, old: str, new: str, field: str, message: str
) -> None:
    assert old in TEACHING
    with pytest.raises(TemplateError) as caught:
        template(TEACHING.replace(old, new, 1), tmp_path)
    assert caught.value.field == field
    assert message in caught.value.message
    assert caught.value.template_id == "teaching-cache"


@pytest.mark.parametrize(
    ("table", "field", "message"),
    [
        ('[{ step = "held", why = "" }]', "omissions_ok[0].why", "reason"),
        ('[{ step = "", why = "x" }]', "omissions_ok[0].step", "must not be empty"),
        ('[{ step = "held", why = "x" }, { step = "held", why = "y" }]', "omissions_ok[1].step", "twice"),
        ('[{ step = "held", because = "x" }]', "omissions_ok[0].because", "unknown key"),
        ('[{ step = "held" }]', "omissions_ok[0].why", "is required"),
    ],
)
def test_bad_omissions_ok(tmp_path: Path, table: str, field: str, message: str) -> None:
    text = TEACHING.replace("nudges = [", f"omissions_ok = {table}\nnudges = [", 1)
    with pytest.raises(TemplateError) as caught:
        template(text, tmp_path)
    assert caught.value.field == field
    assert message in caught.value.message


def test_a_dtype_expression_must_name_a_dtype(tmp_path: Path) -> None:
    text = TEACHING.replace("dtype = \"'fp8' if dtype == 'fp8' else 'bf16'\"", "dtype = \"'bf17'\"")
    with pytest.raises(TemplateError) as caught:
        generate(template(text, tmp_path), 1)
    assert caught.value.field == "answer.dtype"
    assert "'bf17', not a dtype" in caught.value.message
