"""The MCP server (the official SDK's MCPServer): quizzer's five tools, typed and described for an agent."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from quizzer import __version__
from quizzer.bank.loader import Bank
from quizzer.bank.read.control import visible
from quizzer.commands import mcp_tools
from quizzer.commands.mcp_tools import SetValue
from quizzer.core.errors import QuizzerError

#: What the agent reads first: how the tools fit together.
INSTRUCTIONS = """\
quizzer poses ML-systems sizing questions (parameters, FLOPs, memory, KV cache, latency) with verified \
answers, grades typed answers with named slips, and counts real models part by part.
To interview someone: list_templates (pick an id), pose (show the person the prompt, conventions and \
tolerance: never the answer), grade their answer with the instance pose returned (its grade_with), then \
explain for the worked answer. Parts of a chain: pose shows every part's prompt with earlier answers \
masked; grade part N with the person's earlier answers in `given` for carried-forward credit.
count_model gives a real model's parameter, weight, KV-cache and FLOP figures.
Error messages are the quizzer command line's: its options --set, --part, --given and --model are the \
parameters set, part, given and model here."""

Ref = Annotated[
    str,
    Field(
        description="A question instance: 'ID#SEED' as pose returned it (its 'instance'), e.g. "
        "'kv-cache-bytes#42'; 'ID#SEED@MODEL' names the model it was posed about."
    ),
]
SetValues = Annotated[
    dict[str, SetValue] | None,
    Field(
        description="Own numbers, variable name -> value, like `quizzer show --set NAME=VALUE`, e.g. "
        "{'seq_len': 4096, 'dtype': 'fp8'}; pose lists the names under 'settable'. Give grade and explain "
        "the same values pose was given."
    ),
]
Model = Annotated[
    str | None,
    Field(
        description="Ask about this model: a preset name (e.g. 'llama-3-8b') or an absolute path to a "
        "Hugging Face config.json; only templates that take a model accept it."
    ),
]

_T = TypeVar("_T")


def build_server(bank: Bank) -> MCPServer[Any]:
    """The server with its tools over ``bank``; one tool call at a time reads it (a lock)."""
    server: MCPServer[Any] = MCPServer(
        "quizzer", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )
    lock = threading.Lock()

    def reply(compute: Callable[[], _T]) -> _T:
        """``compute()`` under the lock; quizzer's own errors become tool errors with the CLI's message."""
        with lock:
            try:
                return compute()
            except QuizzerError as exc:
                raise ToolError(visible(str(exc))) from None

    same = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)

    @server.tool(annotations=same)
    def list_templates(
        topic: Annotated[
            str | None, Field(description="Only this topic (e.g. 'kv-cache'); every topic is listed.")
        ] = None,
    ) -> dict[str, Any]:
        """List the question templates: id, title, topic, difficulty, kind (exact or estimate), minutes
        expected and number of parts (a chain of follow-ups when more than 1), and every topic."""
        return reply(lambda: mcp_tools.list_templates(bank, topic))

    @server.tool(annotations=same.model_copy(update={"idempotent_hint": False}))  # a new draw without #SEED
    def pose(
        ref: Annotated[
            str,
            Field(
                description="A template id ('kv-cache-bytes': a new random instance) or 'ID#SEED' (the "
                "same question every time); 'ID#SEED@MODEL' poses it about a model."
            ),
        ],
        set: SetValues = None,
        model: Model = None,
    ) -> dict[str, Any]:
        """Pose a question WITHOUT its answer, to show a person: the prompt and conventions (Markdown), the
        tolerance sentence, answer_unit (the kind of unit, and what a bare number is read in), nudges
        (hints, if they ask), and for a chain each later part's prompt with the earlier answers masked.
        'instance' (ID#SEED) names this exact question: grade and explain it with 'grade_with'."""
        return reply(lambda: mcp_tools.pose_question(bank, ref, set, model))

    @server.tool(annotations=same)
    def grade(
        ref: Ref,
        answer: Annotated[
            str,
            Field(
                description="The answer as the person typed it: '16.4M', '7e9', '~15.6 GiB', "
                "'2.1e21 FLOPs', '3 days'.",
            ),
        ],
        part: Annotated[int, Field(description="The part of a chain to grade; 1 is the main question.")] = 1,
        given: Annotated[
            dict[int, str | int | float] | None,
            Field(
                description="The person's own earlier answers, part number -> answer as typed (e.g. "
                "{'1': '25 GB'}), for carried-forward credit when part > 1: a later part right on a wrong "
                "earlier answer is 'consistent'."
            ),
        ] = None,
        set: SetValues = None,
        model: Model = None,
    ) -> dict[str, Any]:
        """Grade an answer, exactly as `quizzer grade --json`: verdict (right, close, wrong, consistent...),
        given and expected values in base units, relative_error, mistake (a named slip: GB vs GiB, K and V,
        a dtype...) with its feedback, diagnosis, message (Markdown), part and carried (credit carried
        from earlier answers). An answer that cannot be read is the verdict "unparsed", its message saying
        why."""
        return reply(
            lambda: mcp_tools.grade(bank, ref, answer, part=part, given=given, values=set, model=model)
        )

    @server.tool(annotations=same)
    def explain(ref: Ref, set: SetValues = None, model: Model = None) -> dict[str, Any]:
        """The full worked answer, exactly as `quizzer show --json`: answer (value, unit, display),
        derivation (each step's formula, substitution and value), explanation and tldr (Markdown), mistakes
        (named slips with their values and feedback), common_mistakes, follow_ups, references, and the
        same for every later part. Call it after the person has answered."""
        return reply(lambda: mcp_tools.explain(bank, ref, set, model))

    @server.tool(annotations=same)
    def count_model(
        model: Annotated[
            str,
            Field(
                description="A preset name ('llama-3-8b', 'deepseek-v3', 'gpt2'...) or an absolute path to "
                "a Hugging Face config.json (or the folder holding it)."
            ),
        ],
        dtype: Annotated[
            str, Field(description="The dtype of weights and KV cache: bf16, fp16, fp32, fp8, int8, int4...")
        ] = "bf16",
        seq_len: Annotated[
            int,
            Field(description="Context length: adds the KV cache and attention FLOPs at this many tokens."),
        ] = 0,
        batch: Annotated[int, Field(description="Sequences in the KV cache.")] = 1,
        state_dtype: Annotated[
            Literal["fp32", "model"],
            Field(description="A hybrid's recurrent state: fp32 (as Hugging Face keeps it) or the dtype."),
        ] = "fp32",
        mtp: Annotated[
            bool, Field(description="Count the multi-token-prediction modules the config gives.")
        ] = False,
    ) -> dict[str, Any]:
        """A real model's exact figures, as `quizzer count MODEL --json`: params (total, active, embedding,
        attention, mlp, norm, lm_head...; the parts add up to total), per_layer, weights_bytes at dtype,
        kv_cache_bytes_per_token, flops_per_token (forward), layer_groups (MoE experts, hybrids' mixers),
        and with seq_len the KV cache for batch x seq_len tokens."""
        return reply(lambda: mcp_tools.count_model(model, dtype, seq_len, batch, state_dtype, mtp))

    return server


__all__ = ["INSTRUCTIONS", "build_server"]
