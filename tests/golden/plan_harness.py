"""Play one plan-mode golden scenario: the agent_app fixture, a stub server with the scripted
replies, the real Workspace, plan flow, reader, validator, context fulfilment and diet;
returns the normalised recording (what went over the wire and what the front ends saw)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from ipuaro.config.loader import load_config
from ipuaro.core.decisions import Question
from ipuaro.core.events import Event
from ipuaro.core.workspace import Workspace, WorkspaceOptions
from ipuaro.headless import to_jsonable
from ipuaro.trace.replay import GOLDEN_VERSION, Normaliser
from tests.golden.harness import FIXTURE, MODEL, recorded_requests
from tests.stubs.model_server import ModelStubServer, ScriptedReply, StubModel

PLAN_GOLDEN_DIR = Path(__file__).resolve().parent / "plan"
PLAN_INPUT_KEYS = ("name", "description", "provider", "request", "files", "replies")
_KEPT_EVENTS = ("agent_start", "turn_start", "plan_context_round", "plan_updated", "agent_end")


class SafeDecider:
    async def decide(self, question: Question) -> str:
        return question.safe


def normalise_plan_events(events: list[dict[str, Any]], norm: Normaliser) -> list[dict[str, Any]]:
    kept: list[dict[str, Any]] = []
    for event in events:
        kind = event.get("type")
        if kind not in _KEPT_EVENTS:
            continue
        if kind == "plan_updated":
            event = {k: v for k, v in event.items() if k not in ("plan", "session_id")}
        elif kind == "agent_start":
            event = {"type": kind, "request": event["request"]}
        elif kind == "agent_end":
            event = {k: event[k] for k in ("type", "reason", "answer", "detail")}
        kept.append(norm.value(event))
    return kept


async def play_plan(scenario: dict[str, Any], workdir: Path) -> dict[str, Any]:
    root = workdir / "agent_app"
    shutil.copytree(FIXTURE, root)
    for path, text in (scenario.get("files") or {}).items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    model = StubModel(MODEL, capabilities=("completion", "tools"))
    with ModelStubServer(models=[model]) as server:
        server.enqueue(*(ScriptedReply.from_dict(r) for r in scenario["replies"]))
        base_url = server.url if scenario["provider"] == "ollama" else server.openai_url
        config = load_config(
            root,
            {
                "llm.provider": scenario["provider"],
                "llm.baseUrl": base_url,
                "llm.contextWindow": 32_768,
                "store.path": str(workdir / "store.db"),
                "watchdog.enabled": False,
            },
            env={"IPUARO_CONFIG_DIR": str(workdir / "config")},
        )
        workspace = await Workspace.open(
            root, config, SafeDecider(), WorkspaceOptions(new_session=True, environ={})
        )
        events: list[dict[str, Any]] = []

        def keep(event: Event) -> None:
            events.append(to_jsonable(event))

        try:
            await workspace.reindex()
            workspace.subscribe(keep)
            await workspace.plan(scenario["request"])
            norm = Normaliser(workspace.ctx.store.project_name)
        finally:
            await workspace.aclose()
        requests = recorded_requests(server, norm)
    return {"requests": requests, "events": normalise_plan_events(events, norm)}


def plan_golden_document(scenario: dict[str, Any], recording: dict[str, Any]) -> dict[str, Any]:
    inputs = {key: scenario.get(key) for key in PLAN_INPUT_KEYS}
    return {"goldenVersion": GOLDEN_VERSION, **inputs, "expected": recording}
