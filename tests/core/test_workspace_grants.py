"""Grants through the core: an "always" answer (a secret file, a command, an edit) stops the
question for the rest of the session only; a new or loaded session asks again; ``/status``
lists them; a grant never widens the command policy or the path policy."""

from __future__ import annotations

from pathlib import Path

from ipuaro.core.decisions import ConfirmChange
from tests.agent.conftest import call, tool_outputs
from tests.core.conftest import RecordingDecider, open_workspace
from tests.stubs.model_server import ModelStubServer, ScriptedReply


def asked(decider: RecordingDecider, kind: str) -> int:
    return sum(1 for q in decider.of(ConfirmChange) if q.request.kind == kind)


async def test_a_secret_allowed_always_is_asked_again_in_a_new_session(
    project: Path, server: ModelStubServer
) -> None:
    (project / ".env").write_text("API_KEY=hunter2\n")
    read = call("git_diff", path=".env")
    steps = [read, ScriptedReply(text="one")] * 4
    decider = RecordingDecider({ConfirmChange: "always"})
    async with open_workspace(project, server, steps, decider=decider) as opened:
        ws = opened.workspace
        first = ws.session_id
        await ws.send("show the env diff")
        await ws.send("again")
        assert asked(decider, "read_secret") == 1, "always: not asked twice in one session"
        rows = dict((await ws.status()).rows)
        assert "secret files: .env" in rows["granted"]

        ws.new_session()
        decider.answers[ConfirmChange] = "reject"
        await ws.send("show it in the new session")
        assert asked(decider, "read_secret") == 2, "a new session starts without the grant"
        assert "did not allow" in tool_outputs(opened.model.agent_bodies[-1])[-1]

        ws.load_session(first)  # loading the first session does not bring its grant back
        await ws.send("and in the first one")
        assert asked(decider, "read_secret") == 3
        assert "nothing yet" in dict((await ws.status()).rows)["granted"]


async def test_always_on_a_command_stops_the_question_for_this_session_only(
    project: Path, server: ModelStubServer
) -> None:
    steps = [
        call("run_command", command="cp README.md one.md"),
        ScriptedReply(text="copied"),
        call("run_command", command="cp README.md two.md"),
        ScriptedReply(text="copied again"),
        call("run_command", command="cp README.md three.md"),
        ScriptedReply(text="not copied"),
    ]
    decider = RecordingDecider({ConfirmChange: "always"})
    async with open_workspace(project, server, steps, decider=decider) as opened:
        ws = opened.workspace
        await ws.send("copy")
        await ws.send("copy again")
        assert asked(decider, "command") == 1
        assert (project / "one.md").exists() and (project / "two.md").exists()
        assert "commands: cp" in dict((await ws.status()).rows)["granted"]
        ws.new_session()
        decider.answers[ConfirmChange] = "reject"
        await ws.send("copy in a new session")
        assert asked(decider, "command") == 2
        assert not (project / "three.md").exists()


async def test_always_on_an_edit_applies_later_edits_unasked_until_the_session_changes(
    project: Path, server: ModelStubServer
) -> None:
    steps = [
        call("create_file", path="a.md", content="a\n"),
        call("create_file", path="b.md", content="b\n"),
        ScriptedReply(text="made two"),
        call("create_file", path="c.md", content="c\n"),
        ScriptedReply(text="asked"),
    ]
    decider = RecordingDecider({ConfirmChange: "always"})
    async with open_workspace(project, server, steps, decider=decider) as opened:
        ws = opened.workspace
        assert not ws.auto_apply
        await ws.send("make a and b")
        assert (project / "a.md").exists() and (project / "b.md").exists()
        [question] = decider.of(ConfirmChange)
        assert "always" in question.values()
        assert ws.auto_apply
        rows = dict((await ws.status()).rows)
        assert rows["auto-apply"] == "on (an edit answered always, this session)"
        ws.new_session()
        assert not ws.auto_apply
        decider.answers[ConfirmChange] = "reject"
        await ws.send("make c")
        assert len(decider.of(ConfirmChange)) == 2 and not (project / "c.md").exists()


async def test_the_auto_apply_switch_is_kept_and_off_drops_an_always(
    project: Path, server: ModelStubServer
) -> None:
    steps = [call("create_file", path="a.md", content="a\n"), ScriptedReply(text="ok")]
    decider = RecordingDecider({ConfirmChange: "always"})
    async with open_workspace(project, server, steps, decider=decider) as opened:
        ws = opened.workspace
        await ws.send("make a")
        assert ws.auto_apply
        ws.set_auto_apply(False)  # /auto-apply off: the "always" goes too
        assert not ws.auto_apply
        ws.set_auto_apply(True)  # a switch the user set, not an answer: a new session keeps it
        ws.new_session()
        assert ws.auto_apply
