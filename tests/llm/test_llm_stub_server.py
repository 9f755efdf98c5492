"""The stub model server itself: wire bytes, no accidental answers, responder, process mode."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx

from tests.llm.helpers import closed_port
from tests.stubs.model_server import ModelStubServer, ScriptedReply, StubToolCall

REPO = Path(__file__).resolve().parents[2]


def ndjson_text(body: str) -> str:
    return "".join(json.loads(line)["message"]["content"] for line in body.splitlines())


def test_empty_queue_answers_500_on_both_protocols(model_server: ModelStubServer) -> None:
    with httpx.Client(base_url=model_server.url) as http:
        ollama = http.post("/api/chat", json={"model": "qwen2.5-coder:7b-instruct"})
        openai = http.post("/v1/chat/completions", json={"model": "x"})
    assert ollama.status_code == 500
    assert "no scripted reply queued" in ollama.json()["error"]
    assert openai.status_code == 500
    assert "no scripted reply queued" in openai.json()["error"]["message"]


def test_ollama_stream_is_ndjson_with_a_final_done_line(model_server: ModelStubServer) -> None:
    model_server.enqueue(ScriptedReply(text="abcd", chunks=2, prompt_tokens=5))
    with httpx.Client(base_url=model_server.url) as http:
        response = http.post("/api/chat", json={"model": "qwen2.5-coder:7b-instruct"})
    assert response.headers["content-type"] == "application/x-ndjson"
    assert response.headers["transfer-encoding"] == "chunked"
    lines = [json.loads(line) for line in response.text.splitlines()]
    assert [line["message"]["content"] for line in lines] == ["ab", "cd", ""]
    assert [line["done"] for line in lines] == [False, False, True]
    assert lines[-1]["prompt_eval_count"] == 5 and lines[-1]["done_reason"] == "stop"


def test_openai_stream_is_sse_with_split_tool_arguments_usage_and_done(
    model_server: ModelStubServer,
) -> None:
    model_server.enqueue(
        ScriptedReply(tool_calls=[StubToolCall("f", {"k": "value"})], tool_call_chunks=3)
    )
    body = {"model": "m", "stream": True, "stream_options": {"include_usage": True}}
    with httpx.Client(base_url=model_server.url) as http:
        response = http.post("/v1/chat/completions", json=body)
    assert response.headers["content-type"] == "text/event-stream"
    raw = response.text
    assert raw.endswith("data: [DONE]\n\n")
    events = [json.loads(e[len("data: ") :]) for e in raw.split("\n\n") if e and "[DONE]" not in e]
    pieces = [
        c["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"]
        for c in events
        if c["choices"] and "tool_calls" in c["choices"][0]["delta"]
    ]
    assert pieces[0] == "" and len(pieces) == 4 and json.loads("".join(pieces)) == {"k": "value"}
    assert events[-2]["choices"][0]["finish_reason"] == "tool_calls"
    assert events[-1]["choices"] == [] and events[-1]["usage"]["total_tokens"] == 19


def test_responder_answers_from_the_conversation_when_the_queue_is_empty(
    model_server: ModelStubServer,
) -> None:
    def respond(body: dict[str, object]) -> ScriptedReply:
        messages = body["messages"]
        assert isinstance(messages, list)
        return ScriptedReply(text=f"you said {messages[-1]['content']}")

    model_server.responder = respond
    model_server.enqueue(ScriptedReply(text="queued first"))
    with httpx.Client(base_url=model_server.url) as http:
        request = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        first = http.post("/v1/chat/completions", json=request).text
        second = http.post("/v1/chat/completions", json=request).text
    assert "queued first" in first
    assert "you said hi" in second
    assert model_server.chat_requests() == [request, request]


def test_unknown_paths_are_404(model_server: ModelStubServer) -> None:
    with httpx.Client(base_url=model_server.url) as http:
        assert http.get("/api/nothing").status_code == 404


def test_runs_as_a_process_from_a_script_file(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            {
                "models": [{"name": "tiny", "context_length": 4096}],
                "replies": [{"text": "from the queue", "chunks": 2}],
                "rules": [{"match": "status", "reply": {"text": "clean tree"}}],
            }
        )
    )
    port = closed_port()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.stubs.model_server",
            "--port",
            str(port),
            "--script",
            str(script),
        ],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        assert (
            process.stdout.readline().strip() == f"model stub listening on http://127.0.0.1:{port}"
        )
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as http:
            tags = http.get("/api/tags").json()
            chat = {"model": "tiny", "messages": [{"role": "user", "content": "git status?"}]}
            queued = http.post("/api/chat", json=chat).text
            ruled = http.post("/api/chat", json=chat).text
            chat["messages"] = [{"role": "user", "content": "something else"}]
            unmatched = http.post("/api/chat", json=chat)
        assert [m["name"] for m in tags["models"]] == ["tiny"]
        assert ndjson_text(queued) == "from the queue"
        assert ndjson_text(ruled) == "clean tree"
        assert unmatched.status_code == 500 and "no rule matches" in unmatched.text
    finally:
        process.terminate()
        assert process.wait(timeout=10) == 0
        if process.stdout is not None:
            process.stdout.close()


def test_a_bad_script_is_refused_with_a_message(tmp_path: Path) -> None:
    script = tmp_path / "bad.json"
    script.write_text(json.dumps({"replies": [{"txet": "typo"}]}))
    result = subprocess.run(
        [sys.executable, "-m", "tests.stubs.model_server", "--script", str(script)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2
    assert "unknown reply keys ['txet']" in result.stderr
