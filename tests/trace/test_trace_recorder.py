"""IPUARO_TRACE=1 writes one trace per request; secrets never reach the file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from ipuaro.trace.recorder import TRACE_SCHEMA_VERSION
from tests.agent.conftest import GIT_ENV, ScriptedModel, call, copy_fixture, open_harness
from tests.stubs.model_server import ModelStubServer, ScriptedReply

SECRET = "sk-live-0123456789abcdef"
ENV_SECRET = "correct-horse-battery"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("IPUARO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("IPUARO_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("IPUARO_TRACE", "1")
    root = copy_fixture(tmp_path)
    (root / ".env").write_text(f"DB_PASSWORD={ENV_SECRET}\nDEBUG=true\n", encoding="utf-8")
    return root


@pytest.fixture
def server() -> Iterator[ModelStubServer]:
    with ModelStubServer() as running:
        yield running


def traces(root: Path) -> list[dict[str, object]]:
    return [
        json.loads(p.read_text(encoding="utf-8"))
        for p in sorted((root / ".ipuaro" / "traces").glob("*.json"))
    ]


async def run_once(root: Path, server: ModelStubServer) -> int:
    """One request; returns how many files the index holds (the trace's context stats)."""
    model = ScriptedModel(
        [
            call("grep_search", pattern=SECRET),
            ScriptedReply(text=f"The key {SECRET} and {ENV_SECRET} are not in the code."),
        ]
    )
    async with open_harness(root, server, "ollama", model) as h:
        await h.app.agent.send(f"is {SECRET} in the repo? password {ENV_SECRET}")
        return len(h.app.store.file_hashes())


async def test_one_trace_per_request_with_the_run_in_it(
    project: Path, server: ModelStubServer
) -> None:
    indexed = await run_once(project, server)
    (trace,) = traces(project)
    assert trace["schemaVersion"] == TRACE_SCHEMA_VERSION
    protocol = trace["protocol"]
    assert isinstance(protocol, dict) and len(protocol["schemaHash"]) == 64
    assert protocol["toolFormat"] == "native" and "get_lines" in protocol["tools"]
    assert trace["model"] == {"name": "qwen2.5-coder:7b-instruct", "numCtx": 32768}
    budget = trace["budget"]
    assert isinstance(budget, dict) and budget["window"] == 32768
    assert isinstance(trace["config"], dict) and trace["config"]["llm"]["provider"] == "ollama"
    assert [r["turn"] for r in trace["requests"]] == [1, 2]  # type: ignore[index]
    responses = trace["responses"]
    assert isinstance(responses, list)
    assert responses[0]["calls"][0]["name"] == "grep_search"
    assert "raw" not in responses[0]
    (tool,) = trace["toolCalls"]  # type: ignore[misc]
    assert tool["name"] == "grep_search" and tool["durationMs"] >= 0
    context = trace["context"]
    assert isinstance(context, list) and context[0]["filesTotal"] == indexed
    assert trace["end"]["reason"] == "done"  # type: ignore[index]
    text = json.dumps(trace)
    assert SECRET not in text and ENV_SECRET not in text


async def test_raw_text_only_with_trace_raw_and_masked(
    project: Path, server: ModelStubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("IPUARO_TRACE_RAW", "1")
    await run_once(project, server)
    (trace,) = traces(project)
    responses = trace["responses"]
    assert isinstance(responses, list)
    assert responses[-1]["raw"] == "The key *** and *** are not in the code."


async def test_no_trace_without_the_variable(
    project: Path, server: ModelStubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("IPUARO_TRACE")
    await run_once(project, server)
    assert not (project / ".ipuaro" / "traces").exists()
