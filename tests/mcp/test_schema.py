"""What an agent reads before calling anything: the five tools, their descriptions and typed parameters."""

from __future__ import annotations

from typing import Any

from mcp_served import tools

from quizzer.bank.loader import Bank

#: tool -> (required parameters, every parameter)
PARAMETERS = {
    "list_templates": (set(), {"topic"}),
    "pose": ({"ref"}, {"ref", "set", "model"}),
    "grade": ({"ref", "answer"}, {"ref", "answer", "part", "given", "set", "model"}),
    "explain": ({"ref"}, {"ref", "set", "model"}),
    "count_model": ({"model"}, {"model", "dtype", "seq_len", "batch", "state_dtype", "mtp"}),
}


def _types(schema: dict[str, Any]) -> set[str]:
    """The JSON types a parameter's schema allows (``anyOf`` arms included)."""
    arms = schema.get("anyOf", [schema])
    return {arm["type"] for arm in arms if "type" in arm}


async def test_five_tools_each_described_with_typed_parameters(bank: Bank) -> None:
    listed = await tools(bank)
    assert set(listed) == set(PARAMETERS)
    for name, (required, every) in PARAMETERS.items():
        tool = listed[name]
        assert tool.description is not None
        assert len(tool.description) > 80, name  # a sentence or more for the agent, not just a name
        schema = tool.input_schema
        assert set(schema.get("required", [])) == required, name
        assert set(schema["properties"]) == every, name
        for parameter, spec in schema["properties"].items():
            assert spec.get("description"), (name, parameter)
        assert tool.output_schema is not None
        assert tool.output_schema["type"] == "object"
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is True  # nothing is written: no history, no file
        assert tool.annotations.open_world_hint is False


async def test_parameter_types(bank: Bank) -> None:
    listed = await tools(bank)
    grade = listed["grade"].input_schema["properties"]
    assert _types(grade["ref"]) == {"string"}
    assert _types(grade["answer"]) == {"string"}
    assert _types(grade["part"]) == {"integer"}
    assert grade["part"]["default"] == 1
    assert _types(grade["given"]) == {"object", "null"}
    given = next(arm for arm in grade["given"]["anyOf"] if arm.get("type") == "object")
    assert _types(given["additionalProperties"]) == {"string", "integer", "number"}
    own = next(arm for arm in grade["set"]["anyOf"] if arm.get("type") == "object")
    assert _types(own["additionalProperties"]) == {"string", "integer", "number", "boolean"}
    count = listed["count_model"].input_schema["properties"]
    assert count["state_dtype"]["enum"] == ["fp32", "model"]
    assert (count["dtype"]["default"], count["seq_len"]["default"], count["batch"]["default"]) == (
        "bf16",
        0,
        1,
    )
    assert _types(count["mtp"]) == {"boolean"}


async def test_pose_is_not_idempotent_and_the_others_are(bank: Bank) -> None:
    """pose without a seed draws a new question each call; every other tool answers the same call alike."""
    listed = await tools(bank)
    hints = {name: tool.annotations.idempotent_hint for name, tool in listed.items() if tool.annotations}
    assert hints == {name: name != "pose" for name in PARAMETERS}


async def test_the_descriptions_say_what_comes_back(bank: Bank) -> None:
    listed = await tools(bank)
    assert "WITHOUT its answer" in (listed["pose"].description or "")
    assert "quizzer grade --json" in (listed["grade"].description or "")
    assert "quizzer show --json" in (listed["explain"].description or "")
    assert "quizzer count MODEL --json" in (listed["count_model"].description or "")
