"""Play one golden scenario: the agent_app fixture, a stub server with the scripted replies, the
real client, parser, tools and loop; returns the normalised recording."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from ipuaro.agent.events import AgentEvent, ConflictChoice, ErrorChoice, LoopChoice
from ipuaro.config.loader import load_config
from ipuaro.core.wiring import build_app
from ipuaro.headless import to_jsonable
from ipuaro.trace.replay import (
    GOLDEN_VERSION,
    Normaliser,
    collapse_repeats,
    normalise_events,
    normalise_request,
)
from tests.stubs.model_server import ModelStubServer, ScriptedReply, StubModel

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "projects" / "agent_app"
GOLDEN_DIR = Path(__file__).resolve().parent
CHAT_PATHS = ("/api/chat", "/v1/chat/completions")


def recorded_requests(server: ModelStubServer, norm: Normaliser) -> list[dict[str, Any]]:
    """The chat requests the stub server received, normalised, repeats collapsed."""
    return collapse_repeats(
        [normalise_request(r.path, r.body, norm) for r in server.requests if r.path in CHAT_PATHS]
    )


MODEL = "qwen2.5-coder:7b-instruct"
INPUT_KEYS = ("name", "description", "provider", "capabilities", "request", "autoApply", "replies")


class PolicyHandlers:
    """Golden runs never need a human: errors abort, conflicts skip, loops stop."""

    async def on_error(self, error: Any, choices: tuple[ErrorChoice, ...]) -> ErrorChoice:
        return "abort"

    async def on_conflict(
        self, path: str, description: str, choices: tuple[ConflictChoice, ...] = ()
    ) -> ConflictChoice:
        return "skip"

    async def on_loop(self, tool_name: str, repeats: int) -> LoopChoice:
        return "stop"


async def play(scenario: dict[str, Any], workdir: Path) -> dict[str, Any]:
    root = workdir / "agent_app"
    shutil.copytree(FIXTURE, root)
    model = StubModel(MODEL, capabilities=tuple(scenario["capabilities"]))
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
            },
            env={"IPUARO_CONFIG_DIR": str(workdir / "config")},
        )
        app = await build_app(
            root,
            config,
            handlers=PolicyHandlers(),
            confirm=None,
            auto_apply=bool(scenario["autoApply"]),
            # The user's remembered preferences come from this empty folder, never the machine's.
            environ={"IPUARO_CONFIG_DIR": str(workdir / "config")},
        )
        try:
            app.indexer.index(workers=1)
            events: list[dict[str, Any]] = []

            def keep(event: AgentEvent) -> None:
                events.append(to_jsonable(event))

            app.agent.subscribe(keep)
            await app.agent.send(scenario["request"])
            norm = Normaliser(app.store.project_name)
        finally:
            await app.aclose()
        requests = recorded_requests(server, norm)
    return {"requests": requests, "events": normalise_events(events, norm)}


def golden_document(scenario: dict[str, Any], recording: dict[str, Any]) -> dict[str, Any]:
    inputs = {key: scenario[key] for key in INPUT_KEYS}
    return {"goldenVersion": GOLDEN_VERSION, **inputs, "expected": recording}
