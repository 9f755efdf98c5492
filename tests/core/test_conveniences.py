"""``!command`` parsing and the output the conversation keeps; ``@path`` attachments."""

from __future__ import annotations

from pathlib import Path

import pytest

from ipuaro.core.commands import CommandError, is_command, parse_command
from ipuaro.core.conveniences import capped, conversation_note
from ipuaro.core.mentions import CHARS_PER_TOKEN, WINDOW_SHARE, attachments, mentioned
from tests.core.conftest import open_workspace
from tests.stubs.model_server import ModelStubServer


def test_a_bang_line_is_the_shell_command_with_its_quotes_untouched() -> None:
    typed = "!grep -n 'def main' src/*.py | head -3"
    assert is_command(typed)
    command = parse_command(typed)
    assert command.name == "shell"
    assert command.args == ("grep -n 'def main' src/*.py | head -3",)
    assert parse_command('/shell echo "it\'s"').args == ('echo "it\'s"',)


@pytest.mark.parametrize("typed", ["!", "!   ", "/shell"])
def test_an_empty_command_says_what_to_type(typed: str) -> None:
    with pytest.raises(CommandError, match="type a command after '!'"):
        parse_command(typed)


def test_long_output_keeps_head_and_tail_and_says_what_was_left_out() -> None:
    output = "HEAD" + "x" * 10_000 + "TAIL"
    kept = capped(output, 1000)
    assert kept.startswith("HEAD") and kept.endswith("TAIL")
    assert "characters left out" in kept and len(kept) < 1100
    note = conversation_note("make", output, ok=False)
    assert "`make`" in note and "(it failed)" in note and "TAIL" in note


def test_mentions_are_the_at_words_without_trailing_punctuation() -> None:
    text = "explain @src/cart.ts, then (@README.md) and mail me@example.com @src/cart.ts."
    assert mentioned(text) == ["src/cart.ts", "README.md"]


async def test_attachments_keep_the_budget_refuse_secrets_and_outside_paths(
    project: Path, server: ModelStubServer
) -> None:
    long_module = "\n".join(f"def f{i}():\n    return {i}\n" for i in range(400))
    (project / "big.py").write_text(long_module, encoding="utf-8")
    (project / ".env").write_text("API_KEY=s3cret\n", encoding="utf-8")
    async with open_workspace(project, server) as opened:
        ctx = opened.workspace.ctx
        found = attachments(ctx, "see @big.py @.env @/etc/passwd @team", 4096)
    by_path = {item.path: item for item in found}
    assert set(by_path) == {"big.py", ".env", "/etc/passwd"}  # @team names no file
    big = by_path["big.py"]
    assert not big.whole and "too long to attach whole" in big.text and "outline:" in big.text
    assert "def f0():" in big.text and "def f399():" not in big.text.split("lines 1-")[1]
    assert len(big.text) <= 4096 * WINDOW_SHARE * CHARS_PER_TOKEN + 200
    assert by_path[".env"].refused and "s3cret" not in by_path[".env"].text
    assert by_path["/etc/passwd"].refused and "outside" in by_path["/etc/passwd"].text


async def test_rewind_kept_files_drop_the_conversation_only(
    project: Path, server: ModelStubServer
) -> None:
    from ipuaro.core.commands import parse_command, run_operation
    from tests.stubs.model_server import ScriptedReply, StubToolCall

    pricing = project / "shop" / "pricing.py"
    edit = StubToolCall(
        name="replace",
        arguments={"path": "shop/pricing.py", "old": "MAX_DISCOUNT_PERCENT = 50", "new": "X = 1"},
    )
    steps = [ScriptedReply(tool_calls=[edit]), ScriptedReply(text="Done.")]
    async with open_workspace(project, server, steps) as opened:  # the decider: "keep"
        ws = opened.workspace
        ws.set_auto_apply(True)
        await ws.send("rename the constant")
        changed = pricing.read_bytes()
        assert b"X = 1" in changed
        wrong = await run_operation(ws, parse_command("/rewind 5"))
        assert wrong.kind == "error" and "from 1 to 1" in wrong.text
        kept = await run_operation(ws, parse_command("/rewind 1"))
        assert kept.kind == "success" and "keep their 1 change(s)" in kept.text
        assert [type(q).__name__ for q in opened.decider.asked][-1] == "RewindFiles"
        assert pricing.read_bytes() == changed
        assert ws.history() == []
        nothing = await run_operation(ws, parse_command("/rewind"))
        assert "no requests yet" in nothing.text


async def test_abort_stops_a_running_bang_command(project: Path, server: ModelStubServer) -> None:
    import asyncio

    from ipuaro.core.commands import parse_command, run_operation
    from tests.core.conftest import wait_for

    async with open_workspace(project, server) as opened:
        ws = opened.workspace
        running = asyncio.create_task(run_operation(ws, parse_command("!sleep 600")))
        await wait_for(lambda: ws.busy)
        await wait_for(
            lambda: ws.ctx.tool_ctx.shell is None or ws.ctx.tool_ctx.shell.pid is not None
        )
        ws.abort()
        reply = await asyncio.wait_for(running, 60)
        assert not ws.busy
    assert reply.kind == "error" and "cancelled by the user" in reply.text, reply.text
