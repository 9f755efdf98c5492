"""The TUI starts where ``ipuaro run`` works: an OpenAI-compatible server that does not list
the configured model name (llama.cpp serves its one model whatever the name) is no reason to
stop at the onboarding screen."""

from __future__ import annotations

from tests.stubs.model_server import ModelStubServer, StubModel
from tests.tui.conftest import MakeApp, ready


async def test_an_openai_server_without_the_configured_name_still_opens(
    make_app: MakeApp,
) -> None:
    with ModelStubServer(models=[StubModel("local-7b.gguf")]) as server:
        app = make_app(base_url=server.openai_url, overrides={"llm.provider": "openai"})
        async with app.run_test(size=(100, 30)) as pilot:
            await ready(pilot)  # past the onboarding checks, the workspace is open
            assert app.workspace is not None
            await pilot.press("ctrl+d")
