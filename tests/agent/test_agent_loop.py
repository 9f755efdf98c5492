"""The loop's behaviours beyond the happy paths: steering, follow-ups, aborts, the error matrix,
format re-prompts, text tool formats, sessions and stats. Real stub server, real tools."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from ipuaro.agent.events import AgentEvent
from ipuaro.agent.run.loop import AgentBusy
from tests.agent.conftest import (
    RecordingHandlers,
    ScriptedModel,
    call,
    open_harness,
    tool_outputs,
)
from tests.stubs.model_server import ModelStubServer, ScriptedReply, StubModel

PROVIDER = "ollama"


def last_user(body: dict[str, Any]) -> str:
    users = [m for m in body["messages"] if m["role"] == "user"]
    return str(users[-1]["content"]) if users else ""


async def wait_for(predicate: Any, timeout: float = 20) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, "condition never became true"
        await asyncio.sleep(0.02)


async def test_steer_is_injected_before_the_next_model_call(
    project: Path, model_server: ModelStubServer
) -> None:
    slow = ScriptedReply(tool_calls=call("get_structure").tool_calls, first_token_delay=0.6)
    model = ScriptedModel([slow, lambda body: ScriptedReply(text=f"seen: {last_user(body)}")])
    async with open_harness(project, model_server, PROVIDER, model) as h:
        task = asyncio.create_task(h.app.agent.send("look at the project"))
        await wait_for(lambda: len(model.bodies) == 1)
        h.app.agent.steer("only the shop folder please")
        assert h.app.agent.busy
        end = await task
    assert end.answer == "seen: only the shop folder please"
    steer = [m for m in h.app.session.history if m.kind == "steer"]
    assert [m.content for m in steer] == ["only the shop folder please"]
    queues = h.of_type("queue_changed")
    assert queues[0].steers == ("only the shop folder please",) and queues[-1].steers == ()


async def test_follow_up_runs_after_the_answer_as_its_own_request(
    project: Path, model_server: ModelStubServer
) -> None:
    slow = ScriptedReply(text="first answer", first_token_delay=0.5)
    model = ScriptedModel([slow, lambda body: ScriptedReply(text=f"re: {last_user(body)}")])
    async with open_harness(project, model_server, PROVIDER, model) as h:
        task = asyncio.create_task(h.app.agent.send("first"))
        await wait_for(lambda: len(model.bodies) == 1)
        h.app.agent.follow_up("second")
        with pytest.raises(AgentBusy):
            await h.app.agent.send("third")
        end = await task
    assert end.answer == "re: second"
    assert [e.answer for e in h.of_type("agent_end")] == ["first answer", "re: second"]
    assert [e.request for e in h.of_type("agent_start")] == ["first", "second"]


async def test_abort_during_the_stream_keeps_the_partial_answer(
    project: Path, model_server: ModelStubServer
) -> None:
    model = ScriptedModel(
        [ScriptedReply(text="one two three four five six", chunks=6, chunk_delay=0.5)]
    )
    async with open_harness(project, model_server, PROVIDER, model) as h:
        task = asyncio.create_task(h.app.agent.send("count"))
        await wait_for(lambda: bool(h.of_type("message_delta")))
        h.app.agent.abort()
        end = await asyncio.wait_for(task, 10)
        last = h.app.session.history[-1]
    assert end.reason == "aborted"
    assert last.role == "assistant" and last.content.endswith("[interrupted]")
    assert last.content.startswith("one")
    assert not h.app.agent.busy
    # The prompt was sent and part of the answer streamed: the request used tokens. The
    # server's count never came, so they are estimated — not reported as 0.
    assert end.stats.tokens_in > 100 and end.stats.tokens_out >= 1
    assert end.stats.tokens == end.stats.tokens_in + end.stats.tokens_out
    assert h.app.session.stats.total_tokens == end.stats.tokens


async def test_abort_stops_a_running_command_and_answers_every_call(
    project: Path, model_server: ModelStubServer
) -> None:
    model = ScriptedModel(
        [
            ScriptedReply(
                tool_calls=[
                    *call("run_command", command="sleep 30").tool_calls,
                    *call("git_status").tool_calls,
                ]
            )
        ]
    )
    async with open_harness(project, model_server, PROVIDER, model) as h:
        task = asyncio.create_task(h.app.agent.send("wait a bit"))
        await wait_for(lambda: bool(h.of_type("tool_call_start")))
        await asyncio.sleep(0.3)
        h.app.agent.abort()
        end = await asyncio.wait_for(task, 25)  # the command alone would run 30 s
        history = h.app.session.history
    assert end.reason == "aborted"
    calls = [c for m in history for c in m.tool_calls or []]
    results = {m.tool_results[0].call_id: m for m in history if m.role == "tool" and m.tool_results}
    assert {c.id for c in calls} == set(results)
    assert "cancelled" in results[calls[0].id].content


async def test_llm_error_offers_retry_and_the_retry_succeeds(
    project: Path, model_server: ModelStubServer
) -> None:
    handlers = RecordingHandlers(error_choice="retry")
    model = ScriptedModel(
        [ScriptedReply(status=500, error_message="runner crashed"), ScriptedReply(text="fine")]
    )
    async with open_harness(project, model_server, PROVIDER, model, handlers=handlers) as h:
        end = await h.app.agent.send("hello")
    assert end.reason == "done" and end.answer == "fine"
    assert handlers.errors and handlers.errors[0][0] == "llm"
    (raised,) = h.of_type("error")
    assert raised.choices == ("retry", "skip", "abort")


async def test_llm_error_abort_ends_the_request_with_the_suggestion(
    project: Path, model_server: ModelStubServer
) -> None:
    model = ScriptedModel([ScriptedReply(status=404, error_message="model 'x' not found")])
    async with open_harness(project, model_server, PROVIDER, model) as h:
        end = await h.app.agent.send("hello")
    assert end.reason == "error"
    assert "model error" in (end.detail or "") and "pull" in (end.detail or "")


async def test_unreadable_calls_are_reprompted_with_the_schema_then_stopped_after_three(
    project: Path, model_server: ModelStubServer
) -> None:
    broken = ScriptedReply(
        text='<tool_call>{"name": "get_lines", "arguments": {"path": </tool_call>'
    )
    model = ScriptedModel([broken], repeat_last=True)
    async with open_harness(project, model_server, PROVIDER, model) as h:
        end = await h.app.agent.send("read cart")
    assert end.reason == "error"
    assert "3 unreadable tool calls in a row" in (end.detail or "")
    assert len(model.bodies) == 3
    reprompt = last_user(model.bodies[1])
    assert "could not be read" in reprompt and '"path"' in reprompt  # error + get_lines schema
    assert h.handlers.errors[0][0] == "parse"


async def test_one_reprompt_fixes_the_format(project: Path, model_server: ModelStubServer) -> None:
    broken = ScriptedReply(text='Action: get_structure\nAction Input: {"path": ')
    model = ScriptedModel([broken, call("get_structure"), ScriptedReply(text="ok")])
    async with open_harness(project, model_server, PROVIDER, model) as h:
        end = await h.app.agent.send("look")
    assert end.reason == "done" and end.answer == "ok"
    assert [e.call.name for e in h.of_type("tool_call_end")] == ["get_structure"]


async def test_unknown_tool_becomes_a_result_the_model_can_read(
    project: Path, model_server: ModelStubServer
) -> None:
    model = ScriptedModel(
        [
            call("read_the_file", path="shop/cart.py"),
            lambda body: ScriptedReply(text=tool_outputs(body)[-1]),
        ]
    )
    async with open_harness(project, model_server, PROVIDER, model) as h:
        end = await h.app.agent.send("read cart")
    assert "Unknown tool 'read_the_file'" in end.answer and "get_lines" in end.answer


async def test_aliases_resolve_to_real_tools(project: Path, model_server: ModelStubServer) -> None:
    model = ScriptedModel([call("read_file", path="shop/pricing.py"), ScriptedReply(text="ok")])
    async with open_harness(project, model_server, PROVIDER, model) as h:
        await h.app.agent.send("read pricing")
    (ended,) = h.of_type("tool_call_end")
    assert ended.call.name == "get_lines" and ended.result.success


async def test_a_model_without_tools_gets_the_xml_protocol(
    project: Path, model_server: ModelStubServer
) -> None:
    model_server.models = [StubModel("qwen2.5-coder:7b-instruct", capabilities=("completion",))]
    xml = (
        '<tool_call name="get_function">\n<path>shop/pricing.py</path>\n'
        "<name>tax</name>\n</tool_call>"
    )
    model = ScriptedModel(
        [ScriptedReply(text=xml), lambda body: ScriptedReply(text=tool_outputs(body)[-1][:80])]
    )
    async with open_harness(project, model_server, PROVIDER, model) as h:
        assert h.app.agent.tool_format == "xml"
        end = await h.app.agent.send("show tax")
    first = model.bodies[0]
    assert "tools" not in first
    assert '<tool_call name="TOOL_NAME">' in first["messages"][0]["content"]
    second = model.bodies[1]["messages"]
    assert second[-1]["role"] == "user" and second[-1]["content"].startswith("Observation (")
    assert "get_function" in second[-2]["content"]  # the model sees its own call in its format
    assert end.answer.startswith("Observation (get_function):")


async def test_every_message_is_saved_and_stats_accumulate(
    project: Path, model_server: ModelStubServer
) -> None:
    model = ScriptedModel([call("git_status"), ScriptedReply(text="clean")])
    async with open_harness(project, model_server, PROVIDER, model) as h:
        saved: list[int] = []

        def on_event(event: AgentEvent) -> None:
            if event.type in ("message_end", "tool_call_end"):
                stored = h.app.store.load_session(h.app.session.id)
                assert stored is not None
                saved.append(len(stored.history))

        h.app.agent.subscribe(on_event)
        end = await h.app.agent.send("status")
        stored = h.app.store.load_session(h.app.session.id)
        used, window = h.app.agent.context_usage
    assert saved[0] >= 2  # the user message and the assistant call were saved before the tool ran
    assert stored is not None and [m.role for m in stored.history] == [
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    assert stored.stats.tool_calls == 1 and stored.stats.total_tokens == end.stats.tokens
    assert stored.input_history == ["status"]
    assert 0 < used < window == 32_768
    updates = h.of_type("context_update")
    assert updates and all(0 < u.fraction < 1 for u in updates)


async def test_sessions_new_load_and_clear(project: Path, model_server: ModelStubServer) -> None:
    model = ScriptedModel(
        [
            ScriptedReply(text="a"),
            lambda body: ScriptedReply(text=f"{len(body['messages'])} messages"),
        ]
    )
    async with open_harness(project, model_server, PROVIDER, model) as h:
        agent = h.app.agent
        first_id = agent.session.id
        await agent.send("one")
        agent.clear_history()
        end = await agent.send("two")
        assert end.answer == "2 messages"  # system + the new request: the old turns are gone
        fresh = agent.new_session()
        assert fresh.id != first_id and agent.session.history == []
        assert h.app.tool_ctx.session_id == fresh.id
        loaded = agent.load_session(first_id)
        assert [m.content for m in loaded.history if m.role == "user"] == ["one", "two"]


def conflict_script(cart: Path) -> list[Any]:
    def edit_after_outside_change(body: dict[str, Any]) -> ScriptedReply:
        # Someone edits the top of the file between the model's read and its edit.
        text = cart.read_text(encoding="utf-8")
        cart.write_text(text.replace('"""The shopping cart."""', '"""The cart."""\n# x'), "utf-8")
        return call(
            "edit_lines", path="shop/cart.py", start=21, end=21, content="class Cart:  # ok"
        )

    return [
        call("get_lines", path="shop/cart.py", start=15, end=25),
        edit_after_outside_change,
        lambda body: ScriptedReply(text=tool_outputs(body)[-1]),
    ]


async def test_conflict_regenerate_tells_the_model_to_read_again(
    project: Path, model_server: ModelStubServer
) -> None:
    cart = project / "shop" / "cart.py"
    handlers = RecordingHandlers(conflict_choice="regenerate")
    model = ScriptedModel(conflict_script(cart))
    async with open_harness(project, model_server, PROVIDER, model, handlers=handlers) as h:
        end = await h.app.agent.send("mark the Cart class")
    assert handlers.conflicts == ["shop/cart.py"]
    (raised,) = [e for e in h.of_type("error") if e.error.kind == "conflict"]
    assert raised.choices == ("apply", "skip", "regenerate")
    assert "changed since you read it" in end.answer and "Read the file again" in end.answer
    assert "# ok" not in cart.read_text(encoding="utf-8")
    assert h.confirm.requests == []


async def test_conflict_apply_writes_the_edit_onto_the_new_version(
    project: Path, model_server: ModelStubServer
) -> None:
    cart = project / "shop" / "cart.py"
    handlers = RecordingHandlers(conflict_choice="apply")
    model = ScriptedModel(conflict_script(cart))
    async with open_harness(project, model_server, PROVIDER, model, handlers=handlers) as h:
        end = await h.app.agent.send("mark the Cart class")
    assert end.reason == "done"
    text = cart.read_text(encoding="utf-8")
    assert text.startswith('"""The cart."""\n# x')  # the outside change stays
    assert "class Cart:  # ok" in text  # and the edit landed on the moved line
    assert [r.kind for r in h.confirm.requests] == ["edit"]
    assert end.changes == ("shop/cart.py",)


async def test_failed_summary_falls_back_to_dropping_tool_results(
    project: Path, model_server: ModelStubServer
) -> None:
    reads = [
        call("get_lines", path="shop/catalog.py", start=start, end=start + 59)
        for start in (1, 60, 120, 1, 60, 120, 1, 60, 120, 1)
    ]
    model = ScriptedModel([*reads, ScriptedReply(text="done")], fail_summaries=True)
    handlers = RecordingHandlers(loop_choice="continue")
    async with open_harness(
        project, model_server, PROVIDER, model, window=12_000, handlers=handlers
    ) as h:
        end = await h.app.agent.send("read the catalogue again and again")
        history = h.app.session.history
    assert end.reason == "done", end.detail
    compactions = h.of_type("compaction")
    assert compactions and not compactions[0].summarised
    assert compactions[0].tokens_after < compactions[0].tokens_before
    assert model.summary_requests >= 1
    assert any("dropped to save context" in m.content for m in history if m.role == "tool")
    assert not h.handlers.errors  # a failed summary is not an error the user must answer


async def test_a_skipped_conflict_tells_the_model_what_changed_not_that_a_user_decided(
    project: Path, model_server: ModelStubServer
) -> None:
    """Headless answers "skip" by policy: the model learns the file changed and which lines to
    re-read, so it can recover."""
    cart = project / "shop" / "cart.py"
    handlers = RecordingHandlers(conflict_choice="skip")
    model = ScriptedModel(conflict_script(cart))
    async with open_harness(project, model_server, PROVIDER, model, handlers=handlers) as h:
        end = await h.app.agent.send("mark the Cart class")
    assert "the user skipped" not in end.answer
    assert "shop/cart.py changed since you read it" in end.answer
    assert "lines 21-21" in end.answer and "get_lines" in end.answer
    assert "# ok" not in cart.read_text(encoding="utf-8")
