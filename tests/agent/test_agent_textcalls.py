"""The rule for calls found in text, end to end (docs/tool-calls.md): real stub server, real
tools, the confirmation answering "apply" as ``--auto-apply`` would."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.agent.conftest import RecordingHandlers, ScriptedModel, open_harness
from tests.stubs.model_server import ModelStubServer, ScriptedReply

PROVIDER = "ollama"
DELETE = json.dumps({"name": "delete_file", "arguments": {"path": "shop/catalog.py"}})
READ = json.dumps({"name": "get_lines", "arguments": {"path": "shop/pricing.py"}})


def last_user(body: dict[str, Any]) -> str:
    users = [m for m in body["messages"] if m["role"] == "user"]
    return str(users[-1]["content"]) if users else ""


async def test_a_delete_in_prose_waits_for_a_reply_that_is_only_the_call(
    project: Path, model_server: ModelStubServer
) -> None:
    prose = f"The catalog module is unused, so I will remove it:\n```json\n{DELETE}\n```\nDone."
    model = ScriptedModel(
        [ScriptedReply(text=prose), ScriptedReply(text=DELETE), ScriptedReply(text="removed")]
    )
    async with open_harness(project, model_server, PROVIDER, model) as h:
        end = await h.app.agent.send("clean up the shop")
        note = last_user(model.bodies[1])
        names_after_first = [e.call.name for e in h.of_type("tool_call_end")]
    assert end.reason == "done" and end.answer == "removed"
    assert "You wrote a `delete_file` call in your text" in note
    assert "reply with only the call" in note
    assert names_after_first == ["delete_file"]  # once: from the bare reply, not from the prose
    assert not (project / "shop" / "catalog.py").exists()


async def test_a_delete_in_prose_is_not_run_when_the_model_then_only_answers(
    project: Path, model_server: ModelStubServer
) -> None:
    prose = f"Nur ein Beispiel, ich führe es nicht aus:\n{DELETE}\nSo sähe es aus."
    model = ScriptedModel([ScriptedReply(text=prose), ScriptedReply(text="Nichts gelöscht.")])
    async with open_harness(project, model_server, PROVIDER, model) as h:
        end = await h.app.agent.send("wie löscht man catalog?")
        ran = h.of_type("tool_call_end")
    assert end.answer == "Nichts gelöscht." and ran == []
    assert (project / "shop" / "catalog.py").exists()


async def test_a_read_in_prose_runs_at_once(project: Path, model_server: ModelStubServer) -> None:
    prose = f"Let me look at the pricing rules first.\n{READ}\nThen I will explain them."
    model = ScriptedModel([ScriptedReply(text=prose), ScriptedReply(text="explained")])
    async with open_harness(project, model_server, PROVIDER, model) as h:
        end = await h.app.agent.send("explain pricing")
        ran = [e.call.name for e in h.of_type("tool_call_end")]
    assert end.answer == "explained" and ran == ["get_lines"]
    assert len(model.bodies) == 2  # no extra turn for a read


async def test_calls_in_a_table_of_next_steps_are_not_run_and_the_answer_says_so(
    project: Path, model_server: ModelStubServer
) -> None:
    table = (
        "Possible next steps:\n\n| # | call |\n|---|---|\n"
        f"| 1 | {DELETE} |\n| 2 | {READ} |\n\nTell me which to run."
    )
    model = ScriptedModel([ScriptedReply(text=table), ScriptedReply(text="next")])
    async with open_harness(project, model_server, PROVIDER, model) as h:
        end = await h.app.agent.send("what next?")
        await h.app.agent.send("the first one")
        told = model.bodies[1]["messages"]
    assert h.of_type("tool_call_end") == []
    assert "Tell me which to run." in end.answer
    assert "not run: the `delete_file` call in a table was shown, not made" in end.answer
    assert any("in a table was shown, not made" in str(m["content"]) for m in told)
    assert (project / "shop" / "catalog.py").exists()


async def test_bold_react_labels_are_a_call_not_the_final_answer(
    project: Path, model_server: ModelStubServer
) -> None:
    react = '**Action:** get_lines\n**Action Input:** {"path": "shop/pricing.py"}'
    model = ScriptedModel([ScriptedReply(text=react), ScriptedReply(text="read")])
    async with open_harness(project, model_server, PROVIDER, model) as h:
        end = await h.app.agent.send("read pricing")
        ran = [e.call.name for e in h.of_type("tool_call_end")]
    assert end.answer == "read" and ran == ["get_lines"]


async def test_a_call_held_in_prose_three_times_goes_to_the_user(
    project: Path, model_server: ModelStubServer
) -> None:
    prose = ScriptedReply(text=f"Removing the catalog now:\n{DELETE}\nDone.")
    handlers = RecordingHandlers(error_choice="skip")
    model = ScriptedModel([prose, prose, prose])
    async with open_harness(project, model_server, PROVIDER, model, handlers=handlers) as h:
        end = await h.app.agent.send("clean up")
        ran = h.of_type("tool_call_end")
    assert ran == [] and len(model.bodies) == 3
    [(kind, message)] = handlers.errors
    assert kind == "parse" and "delete_file call inside prose 3 times" in message
    assert end.reason == "done" and "not run yet: a `delete_file` call" in end.answer
    assert (project / "shop" / "catalog.py").exists()


async def test_near_miss_names_run_and_the_model_is_told_once(
    project: Path, model_server: ModelStubServer
) -> None:
    text = json.dumps({"name": "read_file", "arguments": {"path": "shop/pricing.py"}})
    model = ScriptedModel([ScriptedReply(text=text), ScriptedReply(text="ok")])
    async with open_harness(project, model_server, PROVIDER, model) as h:
        end = await h.app.agent.send("read pricing")
        ran = [e.call.name for e in h.of_type("tool_call_end")]
    assert end.answer == "ok" and ran == ["get_lines"]
    told = last_user(model.bodies[1])
    assert "read the tool name 'read_file' as 'get_lines'" in told
