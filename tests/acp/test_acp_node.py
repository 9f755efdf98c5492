"""A client nobody on ipuaro wrote: Zed's TypeScript ACP SDK (``@zed-industries/agent-client-
protocol`` from npm) spawns ``ipuaro acp`` and runs prompt → permission (allowed, then
rejected) → cancel against the stub model server.

Opt-in (``pytest -m acpnode``): it needs node and npm, and installs the pinned SDK into
tests/acp/node/node_modules (gitignored) on first run.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.acp.conftest import acp_env
from tests.acp.test_acp_flow import (
    NEGATIVE,
    NEGATIVE_NEW,
    ROUND_DOWN,
    ROUND_HALF_UP,
    edit_script,
)
from tests.stubs.model_server import ModelStubServer, ScriptedReply

pytestmark = pytest.mark.acpnode

NODE_DIR = Path(__file__).resolve().parent / "node"


@pytest.fixture(scope="module")
def node_client() -> Path:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail("the acpnode lane needs node (>= 18) and npm on PATH")
    if not (NODE_DIR / "node_modules" / "@zed-industries" / "agent-client-protocol").is_dir():
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"],
            cwd=NODE_DIR,
            check=True,
            capture_output=True,
            timeout=300,
        )
    return NODE_DIR / "client.mjs"


def test_zeds_typescript_client_drives_ipuaro_acp(
    node_client: Path, project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    pricing = project / "shop" / "pricing.py"
    original = pricing.read_text()
    edit_script(model_server, ROUND_DOWN, ROUND_HALF_UP, "Tax now rounds half up.")
    edit_script(model_server, NEGATIVE, NEGATIVE_NEW, "Left it as it was.")
    model_server.enqueue(ScriptedReply(text="word " * 200, chunks=200, chunk_delay=0.05))

    done = subprocess.run(
        ["node", str(node_client), str(project), sys.executable, "-m", "ipuaro", "acp"],
        env=acp_env(tmp_path, model_server),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    print(f"Node client: cancel → stop reason in {report['cancelled']['latencyMs']:.0f} ms")

    assert report["initialize"] == {"protocolVersion": 1, "loadSession": True}
    assert "Indexed" in report["indexing"]

    allowed = report["allowed"]
    assert allowed["stopReason"] == "end_turn"
    assert allowed["chunks"] >= 5 and allowed["text"].endswith("Tax now rounds half up.")
    assert [(c["kind"], c["status"]) for c in allowed["toolCalls"]] == [
        ("read", "completed"),
        ("edit", "completed"),
    ]
    assert allowed["toolCalls"][0]["locations"][0]["path"] == str(pricing)
    [asked] = allowed["permissions"]
    assert "apply" in asked["options"] and "reject" in asked["options"]
    [diff] = asked["diffs"]
    assert diff["path"] == str(pricing) and diff["oldText"] == original
    assert ROUND_HALF_UP in diff["newText"]

    rejected = report["rejected"]
    assert rejected["stopReason"] == "end_turn"
    assert len(rejected["permissions"]) == 1
    assert [c["status"] for c in rejected["toolCalls"]] == ["completed", "failed"]
    assert pricing.read_text() == original.replace(ROUND_DOWN, ROUND_HALF_UP)  # 2nd not applied

    cancelled = report["cancelled"]
    assert cancelled["stopReason"] == "cancelled"
    assert cancelled["latencyMs"] < 1000
    assert len(cancelled["text"]) < len("word " * 200)
    assert report["agentExitCode"] == 0
