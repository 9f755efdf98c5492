"""Opt-in lane (``pytest -m realmodel tests/planning``): plan mode against a real
OpenAI-compatible server (llama-cpp-python's, serving SmolLM2-135M; see
scripts/realmodel-setup.sh). The plan's schema goes out as ``response_format`` ``json_schema``;
this server refuses that type (a 500 naming it), so the client resends it as ``json_object``
with the schema, which the server turns into a grammar: whatever the tiny model says, the plan
must come back valid."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from jsonschema import Draft202012Validator

from ipuaro.planning.schema import PLAN_SCHEMA, SCHEMA_HASH
from tests.llm.test_llm_realmodel import llama_server  # noqa: F401  (the real server fixture)

pytestmark = pytest.mark.realmodel


def test_a_real_server_returns_a_plan_that_validates(
    llama_server: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    project = tmp_path / "tiny"
    project.mkdir()
    (project / "hello.py").write_text('def greet(name):\n    return f"hi {name}"\n')
    models = httpx.get(f"{llama_server}/models", timeout=10).json()["data"]
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("IPUARO_")},
        "IPUARO_DATA_DIR": str(tmp_path / "data"),
        "IPUARO_CONFIG_DIR": str(tmp_path / "config"),
        "IPUARO_LLM__PROVIDER": "openai",
        "IPUARO_LLM__BASE_URL": llama_server,
        "IPUARO_LLM__MODEL": models[0]["id"],
        "IPUARO_TRACE": "1",
    }
    done = subprocess.run(
        [sys.executable, "-m", "ipuaro", "run", "--plan", "--project", str(project),
         "-p", "Add a README.md that says what greet() does.", "--output", "json"],
        env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout)
    plan = result["plan"]
    assert list(Draft202012Validator(PLAN_SCHEMA).iter_errors(plan)) == []
    assert result["planSchema"]["hash"] == SCHEMA_HASH
    [trace_file] = (project / ".ipuaro" / "traces").glob("*.json")
    trace = json.loads(trace_file.read_text())
    events = [e["event"] for e in trace["logEvents"]]
    assert events[0] == "LLM_REQUEST_SENT" and "LLM_RESPONSE_OK" in events
    # What the small model produced, for the lane's report (pytest -s shows it).
    print("\nrealmodel plan:", json.dumps(plan, ensure_ascii=False))
    print("realmodel log events:", events)
