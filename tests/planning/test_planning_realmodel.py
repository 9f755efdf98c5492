"""Opt-in lane (``pytest -m realmodel tests/planning``): plan mode against a real
OpenAI-compatible server (llama-cpp-python's, serving SmolLM2-135M; see
scripts/realmodel-setup.sh), watched on the wire through a recording proxy.

What a user depends on, and what this server can show:

- the plan's schema reaches the server in a form it constrains with: ``response_format``
  ``json_schema`` first; this server refuses that type (a validation error naming it), so the
  client resends it as ``json_object`` carrying the schema, which the server turns into a
  grammar, and keeps doing so for the rest of the request;
- under that grammar every reply is a JSON object that conforms to the schema (a reply cut at
  the token cap aside). The schema says what the reader requires, so the tiny model cannot
  write a plan the reader refuses (under version 1 of the schema it wrote
  ``{"type": "read_file"}`` twice and the plan failed);
- the run ends with a plan that validates, or — a 135M model does not make plans that apply —
  exit 1 with the ``ERR_…`` check that refused it, after a repair turn that quoted it to the
  model; never a traceback.
"""

from __future__ import annotations

import http.server
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator

from ipuaro.planning.schema import PLAN_SCHEMA, SCHEMA_HASH, SCHEMA_NAME
from tests.llm.test_llm_realmodel import llama_server  # noqa: F401  (the real server fixture)

pytestmark = pytest.mark.realmodel

SCHEMA_VALIDATOR = Draft202012Validator(PLAN_SCHEMA)
GRAMMAR_BLIND = {"minimum"}
"""Schema keywords llama-cpp-python 0.3.36's grammar converter does not enforce (its integer
rule takes any integer); the reader still checks them."""


@dataclass
class Exchange:
    path: str
    status: int
    body: dict[str, Any]
    response: str

    def reply(self) -> tuple[str, str]:
        """The streamed reply's text and finish reason."""
        text, finish = [], ""
        for line in self.response.splitlines():
            if not line.startswith("data: {"):
                continue
            for choice in json.loads(line[len("data: ") :]).get("choices") or []:
                text.append(choice.get("delta", {}).get("content") or "")
                finish = choice.get("finish_reason") or finish
        return "".join(text), finish


@pytest.fixture
def recorded(llama_server: str) -> Iterator[tuple[str, list[Exchange]]]:  # noqa: F811
    """A loopback proxy in front of the real server, keeping every POST and its answer (whole:
    a streamed answer reaches the client in one piece, which it reads the same)."""
    upstream = llama_server.removesuffix("/v1")
    exchanges: list[Exchange] = []

    class Forward(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _forward(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            answer = httpx.request(method, upstream + self.path, content=body, timeout=900,
                                   headers={"Content-Type": "application/json"})  # fmt: skip
            if body:
                exchanges.append(Exchange(self.path, answer.status_code, json.loads(body),
                                          answer.text))  # fmt: skip
            self.send_response(answer.status_code)
            self.send_header("Content-Type", answer.headers.get("Content-Type", "text/plain"))
            self.send_header("Content-Length", str(len(answer.content)))
            self.end_headers()
            self.wfile.write(answer.content)

        def do_GET(self) -> None:
            self._forward("GET")

        def do_POST(self) -> None:
            self._forward("POST")

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Forward)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", exchanges
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_a_real_server_is_held_to_the_plan_schema_and_the_outcome_is_reported(
    recorded: tuple[str, list[Exchange]], tmp_path: Path
) -> None:
    base_url, exchanges = recorded
    project = tmp_path / "tiny"
    project.mkdir()
    (project / "hello.py").write_text('def greet(name):\n    return f"hi {name}"\n')
    models = httpx.get(f"{base_url}/models", timeout=10).json()["data"]
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("IPUARO_")},
        "IPUARO_DATA_DIR": str(tmp_path / "data"),
        "IPUARO_CONFIG_DIR": str(tmp_path / "config"),
        "IPUARO_LLM__PROVIDER": "openai",
        "IPUARO_LLM__BASE_URL": base_url,
        "IPUARO_LLM__MODEL": models[0]["id"],
        "IPUARO_TRACE": "1",
    }
    done = subprocess.run(
        [sys.executable, "-m", "ipuaro", "run", "--plan", "--project", str(project),
         "-p", "Add a README.md that says what greet() does.", "--output", "json"],
        env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    result = json.loads(done.stdout)
    plans = [e for e in exchanges if e.path.endswith("/chat/completions") and "response_format"
             in e.body]  # fmt: skip
    replies = [e.reply() for e in plans[1:]]
    [trace_file] = (project / ".ipuaro" / "traces").glob("*.json")
    events = json.loads(trace_file.read_text())["logEvents"]
    names = [e["event"] for e in events]
    # What the small model did, for the lane's report (pytest -s shows it).
    print("\nrealmodel plan requests:", [(e.status, e.body["response_format"]["type"])
                                         for e in plans])  # fmt: skip
    for text, finish in replies:
        print(f"realmodel plan reply ({finish}):", text[:600])
    print("realmodel plan log events:", names)
    print("realmodel plan outcome:", done.returncode, result["reason"], result.get("detail"))

    # The schema goes out as json_schema; this server refuses the type, naming it …
    first = plans[0]
    assert first.body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": SCHEMA_NAME, "schema": PLAN_SCHEMA},
    }
    assert first.status >= 400 and "response_format" in first.response
    assert "LLM_RESPONSE_FORMAT_FALLBACK" in names
    # … so every later request carries it the way the server constrains with.
    assert replies, "no plan request came after the refusal"
    for exchange in plans[1:]:
        assert exchange.status == 200, exchange.response[:500]
        assert exchange.body["response_format"] == {"type": "json_object", "schema": PLAN_SCHEMA}
    # Under that grammar each reply conforms to the schema the server was sent.
    for text, finish in replies:
        if finish == "length":
            continue  # cut at the token cap: not JSON (tests/core/test_plan_bounded.py)
        errors = [e.message for e in SCHEMA_VALIDATOR.iter_errors(json.loads(text))
                  if e.validator not in GRAMMAR_BLIND]  # fmt: skip
        assert errors == [], text

    # A reply the reader or apply's checks refused went back once, quoting what was wrong.
    failures = [e for e in events if e["event"] == "VALIDATION_FAILED"]
    for failure in (f for f in failures if f["repair"]):
        repairs = [e for e in plans if _last_user(e.body).startswith("Your last answer")]
        assert any(failure["error"] in _last_user(e.body) for e in repairs), failure
    if done.returncode == 0:
        assert result["reason"] == "done"
        assert list(SCHEMA_VALIDATOR.iter_errors(result["plan"])) == []
        assert result["planSchema"]["hash"] == SCHEMA_HASH
    else:
        # Not a plan that applies: said with the check that refused it, the cut, or what the
        # grammar cannot hold the model to.
        assert (done.returncode, result["reason"], result["plan"]) == (1, "error", None)
        said = r"\bERR_[A-Z_]+\b|cut off|is less than the minimum of 1"
        assert re.search(said, result["detail"]), result["detail"]


def _last_user(body: dict[str, Any]) -> str:
    users = [m for m in body["messages"] if m.get("role") == "user"]
    return str(users[-1].get("content") or "") if users else ""
