"""QA (issue 24, one step outside the tested framings): a ReAct block is "a reply that is
nothing but the call" only when it *is* just Thought/Action/Action Input. A reply that says it
will not act and puts the call inside its ``Final Answer:`` (an instruction for the user), or
that recounts a call with its ``Observation:`` (the model narrating what it claims already
happened), is more than the call — yet the delete runs on first sight.

Reproduced end to end with ``ipuaro run --auto-apply --output json`` against the stub model
server: reply 1 was

    Thought: I will not delete it; the user only asked how.
    Final Answer: To delete it yourself, use:
    Action: delete_file
    Action Input: {"path": "src/legacy.ts"}

and src/legacy.ts was deleted (``"changes": ["src/legacy.ts"]``, exit 0).

Expected: no change from these replies without the second signal (held, as prose is).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ipuaro.agent.run.intent import sort_calls
from ipuaro.llm.toolcalls import parse_tool_calls
from tests.agent.conftest import ScriptedModel, open_harness
from tests.stubs.model_server import ModelStubServer, ScriptedReply

PROVIDER = "ollama"
READ_ONLY = frozenset({"get_lines", "grep_search"})
ALLOWED = READ_ONLY | {"delete_file", "run_command", "create_file", "remember"}
ACTION = 'Action: delete_file\nAction Input: {"path": "shop/catalog.py"}'

SHOWN_NOT_MADE = {
    "call inside the final answer": (
        "Thought: I will not delete it; the user only asked how.\n"
        f"Final Answer: To delete it yourself, use:\n{ACTION}"
    ),
    "call recounted with its observation": f"{ACTION}\nObservation: File deleted.",
    "bold labels, observation and final answer": (
        '**Action:** delete_file\n**Action Input:** {"path": "shop/catalog.py"}\n'
        "**Observation:** deleted\n**Final Answer:** done"
    ),
}


@pytest.mark.parametrize("text", list(SHOWN_NOT_MADE.values()), ids=list(SHOWN_NOT_MADE))
def test_a_react_call_that_is_not_the_whole_reply_never_runs_a_change(text: str) -> None:
    parsed = parse_tool_calls(text, ALLOWED)
    intent = sort_calls(parsed.calls, parsed, lambda call: call.name in READ_ONLY)
    assert [call.name for call in intent.run] == [], text


async def test_a_delete_given_as_the_users_instruction_in_a_final_answer_is_not_run(
    project: Path, model_server: ModelStubServer
) -> None:
    model = ScriptedModel(
        [
            ScriptedReply(text=SHOWN_NOT_MADE["call inside the final answer"]),
            ScriptedReply(text="Nothing deleted."),
        ]
    )
    async with open_harness(project, model_server, PROVIDER, model) as h:
        await h.app.agent.send("How would I delete shop/catalog.py? Don't delete it.")
        ran = [e.call.name for e in h.of_type("tool_call_end")]
    assert "delete_file" not in ran
    assert (project / "shop" / "catalog.py").exists()
    # The model is told, in the turn after, that its call was text and how to make it.
    told = json.dumps(model.agent_bodies[1]["messages"][-2:])
    assert "`delete_file` call in your text; it was not run" in told
