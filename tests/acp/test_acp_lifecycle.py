"""The workspace's lifecycle seen by an editor over ACP (``ipuaro acp`` spawned, the official
SDK as the client): a plan's apply is a task — a second prompt is refused while its
confirmation waits; a stored plan expires when another request runs — a later ``ok`` goes to
the model; and each session lists the custom commands of its own project only."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, text_block
from acp.schema import AvailableCommandsUpdate

from tests.acp.conftest import TIMEOUT, RecordingClient, acp_agent, acp_env
from tests.agent.conftest import copy_fixture
from tests.stubs.model_server import ModelStubServer, ScriptedReply

PLAN = {
    "mode": "fix-plan",
    "summary": "Add a changelog",
    "questions": [],
    "context_requests": [],
    "plan": [{"step": "Write CHANGELOG.md", "details": ""}],
    "proposed_changes": {
        "actions": [{"kind": "CREATE_FILE", "path": "CHANGELOG.md", "content": "# Changes\n"}],
        "commands_to_run": [],
    },
    "risks": [],
    "memory_patch": {},
}


@dataclass
class AskedClient(RecordingClient):
    """Also tells when the editor was asked for a permission."""

    asked: asyncio.Event = field(default_factory=asyncio.Event)

    async def request_permission(
        self, session_id: str, tool_call: Any, options: Any, **kwargs: Any
    ) -> Any:
        self.asked.set()
        return await super().request_permission(session_id, tool_call, options, **kwargs)


async def test_a_second_prompt_is_refused_while_the_apply_waits_for_its_confirmation(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    client = AskedClient(answer="reject")
    async with acp_agent(client, acp_env(tmp_path, model_server), project) as conn:
        session = await asyncio.wait_for(conn.new_session(cwd=str(project)), TIMEOUT)
        sid = session.session_id
        model_server.enqueue(ScriptedReply(text=json.dumps(PLAN)))
        await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("plan: log")]), TIMEOUT
        )
        client.hold = asyncio.Event()
        applying = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[text_block("ok")]))
        await asyncio.wait_for(client.asked.wait(), TIMEOUT)  # the apply's question waits
        with pytest.raises(RequestError) as busy:
            second = conn.prompt(session_id=sid, prompt=[text_block("and something else")])
            await asyncio.wait_for(second, TIMEOUT)  # the old code ran it: no answer came
        assert "still answering" in str(busy.value)
        with pytest.raises(RequestError) as mode:
            await conn.set_session_mode(session_id=sid, mode_id="plan")
        assert "answering a prompt" in str(mode.value)
        client.hold.set()
        response = await asyncio.wait_for(applying, TIMEOUT)
        assert response.stop_reason == "refusal"
        assert "rejected the plan's change" in client.text()
    assert not (project / "CHANGELOG.md").exists()
    assert len(model_server.chat_requests()) == 1, "the refused prompt never reached the model"


async def test_ok_after_another_exchange_goes_to_the_model_and_writes_nothing(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    client = RecordingClient(answer="apply")
    async with acp_agent(client, acp_env(tmp_path, model_server), project) as conn:
        session = await asyncio.wait_for(conn.new_session(cwd=str(project)), TIMEOUT)
        sid = session.session_id

        async def say(text: str) -> str:
            client.clear()
            response = await asyncio.wait_for(
                conn.prompt(session_id=sid, prompt=[text_block(text)]), TIMEOUT
            )
            assert response.stop_reason == "end_turn", response
            return client.text()

        assert "auto-apply on" in await say("/auto-apply on")
        model_server.enqueue(ScriptedReply(text=json.dumps(PLAN)))
        await say("plan: add a changelog")
        model_server.enqueue(ScriptedReply(text="Shall I also rename the helper? (ok?)"))
        await say("what does the pricing module do?")
        model_server.enqueue(ScriptedReply(text="Renaming needs a plan; say what to call it."))
        said = await say("ok")
        assert said.endswith("Renaming needs a plan; say what to call it.")
        assert "Applied the plan" not in said
    assert not (project / "CHANGELOG.md").exists()
    last = model_server.chat_requests()[-1]["messages"]
    assert last[-1]["role"] == "user" and "ok" in str(last[-1]["content"])


async def test_two_sessions_on_two_projects_list_only_their_own_commands(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    other = copy_fixture(tmp_path / "second")
    for root, name in ((project, "alpha"), (other, "beta")):
        folder = root / ".ipuaro" / "commands"
        folder.mkdir(parents=True)
        (folder / f"{name}.md").write_text(f"---\ndescription: {name} only\n---\nDo {name}.")
    client = RecordingClient(answer="apply")
    async with acp_agent(client, acp_env(tmp_path, model_server), project) as conn:
        first = await asyncio.wait_for(conn.new_session(cwd=str(project)), TIMEOUT)
        second = await asyncio.wait_for(conn.new_session(cwd=str(other)), TIMEOUT)
        listed: dict[str, set[str]] = {}
        for session_id, update, _ in client.updates:
            if isinstance(update, AvailableCommandsUpdate):
                listed[session_id] = {c.name for c in update.available_commands}
        assert "alpha" in listed[first.session_id] and "beta" not in listed[first.session_id]
        assert "beta" in listed[second.session_id] and "alpha" not in listed[second.session_id]
        client.clear()
        response = await asyncio.wait_for(
            conn.prompt(session_id=second.session_id, prompt=[text_block("/alpha")]), TIMEOUT
        )
        assert response.stop_reason == "end_turn"
        assert "unknown command /alpha" in client.text()
        assert "/beta" in client.text()
    assert model_server.chat_requests() == [], "no command reached the model"
