"""A running command's output shows under its tool line while it runs (Pilot, real bash)."""

from __future__ import annotations

import pytest

from ipuaro.security.process.persistent_shell import available
from ipuaro.tui.widgets.toolline import ToolLine
from tests.stubs.model_server import ModelStubServer
from tests.tui.conftest import MakeApp, play, ready, reply, settle, submit, until

pytestmark = pytest.mark.skipif(not available(), reason="needs bash and Linux /proc")


async def test_command_output_streams_into_the_tool_line(
    make_app: MakeApp, stub: ModelStubServer
) -> None:
    command = "echo first-line; sleep 1.5; echo last-line"
    play(stub, reply("", ("run_command", {"command": command})), reply("Ran it."))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "run the command")
        await until(
            pilot, lambda: any("first-line" in line.live_text for line in app.query(ToolLine))
        )
        (line,) = app.query(ToolLine)
        assert line.state == "running" and line.has_class("-live")
        shown = str(line.query_one(".tool-result").render())
        assert "first-line" in shown and "last-line" not in shown
        await settle(pilot)
        assert line.state == "ok" and not line.has_class("-live") and not line.expanded
        assert "first-line\nlast-line" in line.result_text
        # The output stays in the transcript after the command ended (collapsed to its tail).
        body = line.query_one(".tool-result")
        assert line.has_class("-kept") and body.display
        assert "first-line\nlast-line" in str(body.render())
