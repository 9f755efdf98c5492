"""Plan mode in the TUI (Pilot): request → two context rounds → the plan drawn (steps, proposed
changes, risks, questions), with the real app, core, stub server, index and store."""

from __future__ import annotations

import json
from typing import Any

from ipuaro.tui.widgets.status import StatusBar
from tests.stubs.model_server import ModelStubServer, ScriptedReply
from tests.tui.conftest import FIXTURE, MakeApp, chat_text, play, ready, settle, submit

LOGIN = (FIXTURE / "src" / "auth" / "login.ts").read_text(encoding="utf-8")
GUARDED = LOGIN.replace(
    "  const isValid", '  if (token === "") {\n    return false;\n  }\n  const isValid'
)
"""The whole new file: apply's checks run when the plan is read, and content that drops the
file's functions unannounced is refused there (ERR_SYMBOLS_REMOVED)."""

PLAN = {
    "mode": "fix-plan",
    "summary": "Reject empty tokens in validateToken.",
    "questions": ["Should an empty token log a warning?"],
    "context_requests": [],
    "plan": [{"step": "Guard the token", "details": "return false when it is empty"}],
    "proposed_changes": {
        "actions": [
            {"kind": "UPDATE_FILE", "path": "src/auth/login.ts", "content": GUARDED},
            {"kind": "CREATE_FILE", "path": "src/auth/login.test.ts", "content": "test\n"},
        ],
        "commands_to_run": ["npm test"],
    },
    "risks": ["callers that pass '' now get false"],
}


def json_reply(document: dict[str, Any]) -> ScriptedReply:
    return ScriptedReply(text=json.dumps(document), prompt_tokens=900, completion_tokens=120)


def asking(*requests: dict[str, Any]) -> ScriptedReply:
    return json_reply({"mode": "fix-plan", "summary": "…", "context_requests": list(requests)})


async def test_plan_mode_draws_two_context_rounds_and_the_plan(
    make_app: MakeApp, stub: ModelStubServer
) -> None:
    script = play(
        stub,
        asking({"type": "read_file", "path": "src/auth/login.ts", "start_line": 12}),
        asking({"type": "search", "query": "verifyToken"}),
        json_reply(PLAN),
    )
    app = make_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "/plan on")
        await settle(pilot)
        await submit(pilot, "validateToken accepts empty tokens")
        await settle(pilot)
        text = chat_text(app)
        assert "→ context round 1: FILE[src/auth/login.ts] lines 12-15 of 15" in text
        assert '→ context round 2: SEARCH "verifyToken"' in text
        assert "Reject empty tokens in validateToken." in text
        assert "1. **Guard the token** — return false when it is empty" in text
        assert "- `~ src/auth/login.ts (UPDATE_FILE, 18 lines)`" in text
        assert "- `+ src/auth/login.test.ts (CREATE_FILE, 1 line)`" in text
        assert "- callers that pass '' now get false" in text
        assert "- Should an empty token log a warning?" in text
        assert "plan kept with the session · 2 proposed change(s) · 1 file(s) read" in text
        assert str(app.query_one(StatusBar).render()).endswith("✓")  # ready, not error
        assert len(script.bodies) == 3 and all("tools" not in b for b in script.bodies)
        record = app.workspace.last_plan()  # type: ignore[union-attr]
        assert record is not None and list(record.read_files) == ["src/auth/login.ts"]


async def test_a_plan_prefix_plans_once_outside_plan_mode(
    make_app: MakeApp, stub: ModelStubServer
) -> None:
    # Nothing read in this one: a plan that only creates a file passes every check.
    new_file_only = {
        **PLAN,
        "proposed_changes": {"actions": PLAN["proposed_changes"]["actions"][1:]},
    }  # type: ignore[index]
    script = play(stub, json_reply(new_file_only))
    app = make_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "plan: guard empty tokens")
        await settle(pilot)
        assert "Reject empty tokens in validateToken." in chat_text(app)
        assert script.bodies[0]["messages"][-1]["content"].startswith("REQUEST:\nguard empty")
        assert not app.workspace.plan_mode  # type: ignore[union-attr]
