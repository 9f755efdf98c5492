"""The workspace's lifecycle seen through the real TUI (Pilot): ``/model`` swaps the model
alone — the start-up re-index it interrupts keeps writing through the same store, and the
persistent shell keeps its directory and variables; typed while the agent answers, it waits
for the answer (which keeps its model) and then switches."""

from __future__ import annotations

import asyncio
from multiprocessing import forkserver, resource_tracker
from pathlib import Path

import pytest

from ipuaro.core.events import Event, IndexFinished, IndexProgress
from ipuaro.security.process.persistent_shell import available
from ipuaro.tui.widgets.toolline import ToolLine
from tests.stubs.model_server import ModelStubServer, ScriptedReply, StubModel
from tests.tui.conftest import (
    TIMEOUT,
    MakeApp,
    chat_text,
    play,
    ready,
    reply,
    settle,
    submit,
    until,
)

CHANGED = 1500


def _write_changes(root: Path) -> None:
    folder = root / "src" / "generated"
    folder.mkdir(parents=True)
    for number in range(CHANGED):
        (folder / f"mod{number}.ts").write_text(
            f"export function freshDefinition{number}(): number {{\n  return {number};\n}}\n"
        )


async def test_model_switch_during_the_startup_reindex_keeps_the_index_whole(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    stub.models.append(StubModel("llama3.1:8b", context_length=16384))
    first = make_app()
    async with first.run_test(size=(100, 30)) as pilot:
        await ready(pilot)  # the first run indexes the project
        await settle(pilot)
    _write_changes(project)
    # The index's process pool needs multiprocessing's helper processes; started here, outside
    # Textual's stderr capture (fileno -1), as the TUI's own start-up does on the pool branch.
    forkserver.ensure_running()
    resource_tracker.ensure_running()

    app = make_app()
    events: list[Event] = []
    async with app.run_test(size=(100, 30)) as pilot:
        # Listen from the moment the workspace is there (before the re-index starts).
        await until(pilot, lambda: app.workspace is not None)
        workspace = app.workspace
        assert workspace is not None
        workspace.subscribe(events.append)
        # The start-up re-index is under way (a progress report short of the end) …
        await until(
            pilot,
            lambda: (
                any(
                    isinstance(e, IndexProgress) and e.background and 0 < e.done < e.total
                    for e in events
                )
                or any(isinstance(e, IndexFinished) for e in events)
            ),
        )
        assert not any(isinstance(e, IndexFinished) for e in events), "indexed too fast"
        await ready(pilot)
        await submit(pilot, "/model llama3.1:8b")  # … when the model changes
        await until(pilot, lambda: any(isinstance(e, IndexFinished) for e in events), 120)
        await settle(pilot)
        assert workspace.model == "llama3.1:8b"
        (finished,) = [e for e in events if isinstance(e, IndexFinished)]
        assert finished.error is None, finished.error
        store = workspace.ctx.store
        missing = [n for n in range(CHANGED) if not store.find_definitions(f"freshDefinition{n}")]
        assert missing == []
        assert "model llama3.1:8b" in chat_text(app)


@pytest.mark.skipif(not available(), reason="needs bash and Linux /proc")
async def test_model_switch_keeps_the_persistent_shell(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    stub.models.append(StubModel("llama3.1:8b", context_length=16384))
    play(
        stub,
        reply("", ("run_command", {"command": "cd src && export X=1"})),
        reply("Done."),
        reply("", ("run_command", {"command": "pwd; echo X=$X"})),
        reply("Shown."),
    )
    app = make_app(overrides={"commands.persistentShell": True})
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "go into src")
        await settle(pilot)
        await submit(pilot, "/model llama3.1:8b")
        await settle(pilot)
        await until(pilot, lambda: "model llama3.1:8b" in chat_text(app))
        await submit(pilot, "where are you")
        await settle(pilot)
        lines = list(app.query(ToolLine))
        assert len(lines) == 2
        shown = await asyncio.wait_for(_result(lines[1]), TIMEOUT)
    assert "in src/]" in shown
    assert shown.splitlines()[-2:] == [str(project / "src"), "X=1"]
    assert stub.chat_requests()[-1]["model"] == "llama3.1:8b"


async def _result(line: ToolLine) -> str:
    return line.result_text


async def test_a_new_session_waits_while_the_plans_apply_waits_for_its_confirmation(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    from ipuaro.domain.plan import Action
    from tests.planning.conftest import record
    from tests.tui.conftest import wait_for_panel

    plan = record([Action("CREATE_FILE", "CHANGES.md", "changed\n")], summary="Write changes")
    app = make_app()
    async with app.run_test(size=(110, 40)) as pilot:
        await ready(pilot)
        workspace = app.workspace
        assert workspace is not None
        session_id = workspace.session_id
        workspace.store_plan(plan)
        await submit(pilot, "ok")
        await wait_for_panel(pilot)  # the apply waits for Y / N
        assert workspace.busy
        app.prompt.focus()  # the panel has the focus; the user clicks back into the input
        await pilot.pause()
        await submit(pilot, "/sessions new")
        await until(pilot, lambda: "/sessions waits until the agent has answered" in chat_text(app))
        assert workspace.session_id == session_id
        await pilot.press("escape", "n")  # back to the waiting change; turned down
        await settle(pilot)
        assert not workspace.busy
        assert workspace.session_id == session_id
    assert not (project / "CHANGES.md").exists()


async def test_model_typed_while_the_agent_answers_switches_after_the_answer(
    make_app: MakeApp, stub: ModelStubServer
) -> None:
    stub.models.append(StubModel("llama3.1:8b", context_length=16384))
    play(
        stub,
        ScriptedReply(text="a slow answer in many words", chunks=5, chunk_delay=0.3),
        reply("from llama"),
    )
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        old = app.workspace.model if app.workspace is not None else ""
        await submit(pilot, "explain slowly")
        await until(pilot, lambda: "a slow" in chat_text(app))
        await submit(pilot, "/model llama3.1:8b")
        await until(pilot, lambda: "switching once the agent has answered" in chat_text(app))
        await until(pilot, lambda: "model llama3.1:8b · context window" in chat_text(app))
        await settle(pilot)
        assert "a slow answer in many words" in chat_text(app)
        await submit(pilot, "and now?")
        await settle(pilot)
        assert "from llama" in chat_text(app)
    models = [body["model"] for body in stub.chat_requests()]
    assert models[-2:] == [old, "llama3.1:8b"]
