"""The status bar says ``[compacting…]`` while a compaction runs — ``/compact`` and the
auto-compaction within a request alike (``TaskStarted`` / ``TaskEnded``) — and stops saying
it when it ends. Before, only ``stream-json`` showed it; the TUI's bar said nothing."""

from __future__ import annotations

from ipuaro.tui.app import IpuaroApp
from tests.stubs.model_server import ModelStubServer, ScriptedReply
from tests.tui.conftest import MakeApp, chat_text, play, ready, reply, settle, submit, until

COMPACTING = "[compacting…]"


def bar(app: IpuaroApp) -> str:
    return str(app.status.render())


def slow_summary() -> ScriptedReply:
    """The summary arrives after a while, so the bar can be read while it is awaited."""
    return ScriptedReply(text="SUMMARY: the cart, checkout and tax.", first_token_delay=1.5)


async def test_compact_shows_compacting_while_it_runs(
    make_app: MakeApp, stub: ModelStubServer
) -> None:
    play(stub, reply("The cart sums prices."), reply("Checkout calls the cart."),
         reply("Tax is rounded down."), slow_summary())  # fmt: skip
    app = make_app()
    async with app.run_test(size=(140, 30)) as pilot:
        await ready(pilot)
        for question in ("how does the cart work?", "and checkout?", "and tax?"):
            await submit(pilot, question)
            await settle(pilot)
        assert COMPACTING not in bar(app)
        await submit(pilot, "/compact")
        await until(pilot, lambda: COMPACTING in bar(app))
        await settle(pilot)
        assert COMPACTING not in bar(app)
        assert "compacted: summarised" in chat_text(app)


async def test_auto_compaction_shows_compacting_within_the_request(
    make_app: MakeApp, stub: ModelStubServer
) -> None:
    long = "word " * 600
    first = ScriptedReply(text=f"answer 0 {long}", prompt_tokens=3000)
    play(stub, first, slow_summary(), reply("answer 1"))
    app = make_app(
        overrides={
            "context.keepRecent": 2,
            "context.autoCompressAt": 0.15,
            "llm.contextWindow": 8192,
        }
    )
    seen: list[str] = []
    async with app.run_test(size=(140, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "question 0 " + "detail " * 300)
        await settle(pilot)
        assert COMPACTING not in bar(app)
        await submit(pilot, "question 1")  # the window is past 15 %: compacted first
        await until(pilot, lambda: COMPACTING in bar(app))
        seen.append(app.status.fields.state)
        await settle(pilot)
        assert COMPACTING not in bar(app)
        assert "context compacted (summarised)" in chat_text(app)
    assert seen == ["thinking"]  # a phase of the running request
