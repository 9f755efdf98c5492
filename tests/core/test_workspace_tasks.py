"""The task runner seen through the core API: a request that arrives while the start-up
re-index runs waits for it, so its tools read the current index."""

from __future__ import annotations

from pathlib import Path

from ipuaro.core.events import AgentStart, IndexFinished, IndexProgress
from tests.core.conftest import open_workspace, wait_for
from tests.stubs.model_server import ModelStubServer, ScriptedReply

CHANGED = 400


async def test_a_request_during_the_background_reindex_waits_for_it(
    project: Path, server: ModelStubServer
) -> None:
    steps = [ScriptedReply(text="Seen.")]
    async with open_workspace(project, server, steps) as opened:
        ws = opened.workspace
        folder = project / "generated"
        folder.mkdir()
        for number in range(CHANGED):
            (folder / f"m{number}.py").write_text(f"def fresh_{number}():\n    return {number}\n")
        refresh = ws.refresh_index()
        await wait_for(
            lambda: any(isinstance(e, IndexProgress) and e.background for e in opened.events)
        )
        assert ws.indexing
        end = await ws.send("what is in generated/?")
        assert end.reason == "done" and refresh.done()
        kinds = [type(e) for e in opened.events if isinstance(e, IndexFinished | AgentStart)]
        assert kinds == [IndexFinished, AgentStart], "the request started on the old index"
        assert ws.ctx.store.find_definitions(f"fresh_{CHANGED - 1}")
