"""A plan request's trace (IPUARO_TRACE=1): the contract's version and hash, context and cache
stats, the named log events in order, and the raw reply kept when no plan came."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ipuaro.core.workspace import WorkspaceOptions
from ipuaro.planning.schema import SCHEMA_HASH, SCHEMA_VERSION
from tests.core.conftest import open_workspace
from tests.core.test_plan_flow import FINAL_PLAN, asks, reply
from tests.stubs.model_server import ModelStubServer, ScriptedReply

TRACING = WorkspaceOptions(new_session=True, environ={"IPUARO_TRACE": "1"})


def traces(project: Path) -> list[dict[str, Any]]:
    folder = project / ".ipuaro" / "traces"
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]


async def test_a_plan_trace_has_the_contract_stats_and_named_events(
    project: Path, server: ModelStubServer
) -> None:
    big = "".join(f"line_{n} = {n}\n" for n in range(3000))  # ~40K chars: cut to 20K
    (project / "shop" / "big.py").write_text(big)
    steps = [
        ScriptedReply(text="Let me think about it."),  # not JSON: one repair
        asks(
            {"type": "read_file", "path": "shop/big.py"},
            {"type": "search", "query": "def total"},
        ),
        asks({"type": "read_file", "path": "shop/big.py"}),  # the same file again: a hit
        reply(FINAL_PLAN),
    ]
    async with open_workspace(project, server, steps, options=TRACING) as opened:
        outcome = await opened.workspace.plan("tidy big.py")
        assert outcome.plan is not None
    [trace] = traces(project)
    plan = trace["plan"]
    assert plan["schemaVersion"] == SCHEMA_VERSION and plan["schemaHash"] == SCHEMA_HASH
    assert plan["calls"] == 4 and plan["repairs"] == 1 and plan["rounds"] == 2
    stats = plan["contextStats"]
    assert stats["files"] == 2 and stats["truncated"] == 2 and stats["dropped"] == 0
    assert 40_000 <= stats["totalChars"] <= 41_000
    cache = plan["cacheStats"]
    assert cache["hits"] == 1 and cache["misses"] == 2
    assert cache["byKind"]["read_file"] == {"hits": 1, "misses": 1}
    names = [e["event"] for e in trace["logEvents"]]
    assert names == [
        "LLM_REQUEST_SENT",
        "VALIDATION_FAILED",
        "LLM_REQUEST_SENT",
        "LLM_RESPONSE_OK",
        "CONTEXT_CACHE_MISS",
        "CONTEXT_CACHE_MISS",
        "CONTEXT_DIET_APPLIED",
        "LLM_REQUEST_SENT",
        "LLM_RESPONSE_OK",
        "CONTEXT_CACHE_HIT",
        "CONTEXT_DIET_APPLIED",
        "LLM_REQUEST_SENT",
        "LLM_RESPONSE_OK",
    ]
    failed = trace["logEvents"][1]
    assert failed["stage"] == "extract" and failed["repair"] is True
    assert trace["logEvents"][0]["responseFormat"] == "json_schema"
    assert [r["purpose"] for r in trace["requests"]] == ["plan"] * 4
    assert trace["end"]["reason"] == "done"
    assert "failure" not in plan


async def test_a_failed_plan_keeps_the_raw_reply_redacted(
    project: Path, server: ModelStubServer
) -> None:
    leaky = "use the key sk-abcdefghijklmnop to fix it"
    steps = [ScriptedReply(text="nope"), ScriptedReply(text=leaky)]
    async with open_workspace(project, server, steps, options=TRACING) as opened:
        outcome = await opened.workspace.plan("fix it")
        assert outcome.plan is None
    [trace] = traces(project)
    failure = trace["plan"]["failure"]
    assert failure["reason"] == "error"
    assert failure["raw"] == "use the key *** to fix it"
    assert failure["detail"].startswith("the model's plan is still not valid after one repair")
    assert [e["event"] for e in trace["logEvents"]].count("VALIDATION_FAILED") == 2
    assert trace["end"]["reason"] == "error"


async def test_a_refused_response_format_is_logged_as_a_fallback(
    project: Path, server: ModelStubServer
) -> None:
    server.reject_response_formats = {"json_schema", "json_object"}
    async with open_workspace(
        project, server, [reply(FINAL_PLAN, prose="Plan:\n")], options=TRACING,
        **{"llm.provider": "openai", "llm.baseUrl": server.openai_url},
    ) as opened:  # fmt: skip
        outcome = await opened.workspace.plan("cap it")
        assert outcome.plan is not None
    [trace] = traces(project)
    fallbacks = [e for e in trace["logEvents"] if e["event"] == "LLM_RESPONSE_FORMAT_FALLBACK"]
    reasons = [e["reason"] for e in fallbacks]
    assert reasons[0].startswith("the server refused response_format json_schema")
    assert reasons[1].startswith("the server refused response_format json_object")
    assert reasons[2] == "the JSON was fenced in prose"
    # The schema then travels in the prompt (the client's own fallback).
    last = server.chat_requests()[-1]
    assert "response_format" not in last
    assert f'"x_schema_version": {SCHEMA_VERSION}' in last["messages"][0]["content"]
