"""Applying a stored plan through the workspace, as every front end does: the triggers, ONE
confirmation holding the whole diff and the index's "may break" list, one transaction, one
undo step that restores every file byte for byte (created files and folders removed), the
plan's commands offered afterwards, and every way it can end without writing."""

from __future__ import annotations

from pathlib import Path

import pytest

from ipuaro.core.commands import parse_command, run_operation
from ipuaro.core.decisions import Answer, ConfirmChange, Question
from ipuaro.core.plan_apply import APPLY_WORDS, apply_trigger
from ipuaro.core.workspace import WorkspaceOptions
from ipuaro.domain.plan import Action, PlanRecord
from tests.core.conftest import RecordingDecider, open_workspace
from tests.planning.conftest import record
from tests.stubs.model_server import ModelStubServer, ScriptedReply

PRICING = "shop/pricing.py"


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every file's bytes and every folder (None), .git and .ipuaro aside."""
    found: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel.split("/")[0] in (".git", ".ipuaro"):
            continue
        found[rel] = path.read_bytes() if path.is_file() else None
    return found


def read_hashes(root: Path, *rels: str) -> dict[str, str]:
    from ipuaro.planning.actions import file_sha256

    return {rel: file_sha256((root / rel).read_bytes().decode()) for rel in rels}


def rename_plan(root: Path, commands: tuple[str, ...] = ()) -> PlanRecord:
    """Rename apply_discount in pricing.py only (its callers in cart.py and the test stay),
    add a folder with a file, delete the README and write CRLF into a file."""
    old = (root / PRICING).read_text()
    (root / "notes.txt").write_bytes(b"first\r\nsecond\r\n")
    return record(
        [
            Action("UPDATE_FILE", PRICING, old.replace("apply_discount", "apply_rebate")),
            Action("CREATE_DIR", "docs/api"),
            Action("CREATE_FILE", "docs/api/pricing.md", "# Pricing\n\n`apply_rebate`\n"),
            Action("UPDATE_FILE", "notes.txt", "first\nsecond\nthird\n"),
            Action("DELETE_FILE", "README.md"),
        ],
        read=read_hashes(root, PRICING, "notes.txt"),
        summary="Rename `apply_discount` to `apply_rebate` and document it",
        commands=commands,
    )


@pytest.mark.parametrize("word", ["ok", "ок", "apply", "применяй", "да", "  OK \n", "Да", "ОК"])
def test_apply_words(word: str) -> None:
    assert apply_trigger(word) == ""


@pytest.mark.parametrize("text", ["ok then", "okay", "apply it", "да, но", "/apply", "nope"])
def test_not_apply_words(text: str) -> None:
    assert apply_trigger(text) is None


def test_apply_prefix_keeps_the_note() -> None:
    assert apply_trigger("Apply: only the docs please") == "only the docs please"
    assert {"ok", "ок", "apply", "применяй", "да"} == APPLY_WORDS


async def test_ok_applies_the_stored_plan_as_one_change_and_one_undo_restores_it(
    project: Path, server: ModelStubServer
) -> None:
    decider = RecordingDecider({ConfirmChange: "apply"})
    async with open_workspace(project, server, decider=decider) as opened:
        ws = opened.workspace
        plan = rename_plan(project)
        before = snapshot(project)
        ws.store_plan(plan)
        end = await ws.send("ok")
        assert end.reason == "done", end.answer
        # ONE confirmation for the whole change; then the project's remembered test and lint
        # commands (the plan names none), each asked on its own
        question, *commands = decider.of(ConfirmChange)
        assert [q.request.kind for q in commands] == ["command", "command"]
        request = question.request
        assert request.kind == "edit" and request.title == "Apply the plan: 4 files, 2 folder(s)"
        assert [f.path for f in request.files] == [
            PRICING,
            "docs/api/pricing.md",
            "notes.txt",
            "README.md",
        ]
        for name in (PRICING, "docs/api/pricing.md", "notes.txt", "README.md"):
            assert f"/{name}" in (request.diff or "")
        assert "+ folder docs/\n+ folder docs/api/" in (request.diff or "")
        may_break = next(line for line in request.description.splitlines() if "may break" in line)
        assert may_break == (
            "- may break: `apply_discount` (removed from shop/pricing.py) — 5 uses (2 calls) in "
            "3 files not updated: shop/__init__.py:4, shop/cart.py:7, shop/cart.py:37, "
            "tests/cart_checks.py:4, tests/cart_checks.py:14"
        )
        # written as planned, line endings kept
        assert (project / "notes.txt").read_bytes() == b"first\r\nsecond\r\nthird\r\n"
        assert "def apply_rebate" in (project / PRICING).read_text()
        assert (project / "docs/api/pricing.md").read_text().startswith("# Pricing")
        assert not (project / "README.md").exists()
        assert ws.stored_plan() is None  # "ok" does not apply it twice
        # the index was refreshed: the new name is known, the old one only where not updated
        definitions = ws.ctx.store.find_definitions("apply_rebate")
        assert [d.path for d in definitions] == [PRICING]
        assert "docs/api/pricing.md" in ws.known_paths()
        assert "README.md" not in ws.known_paths()
        # the answer is in the session, and the events drew it
        assert ws.history()[-2].content == "ok"
        assert ws.history()[-1].content.startswith("Applied the plan as one change")
        assert [e.type for e in opened.events if e.type.startswith(("agent_", "message_"))] == [
            "agent_start",
            "message_delta",
            "message_end",
            "agent_end",
        ]
        undone = await ws.undo()
        assert undone.done, undone.message
        assert snapshot(project) == before  # every file byte for byte, created folders gone
        assert "docs/api/pricing.md" not in ws.known_paths()
        nothing = await ws.undo()
        assert not nothing.done  # ONE undo step
        redone = await ws.redo()
        assert redone.done and not (project / "README.md").exists()
        assert (project / "docs/api").is_dir()


async def test_ok_without_a_plan_goes_to_the_model_and_the_prefix_says_there_is_none(
    project: Path, server: ModelStubServer
) -> None:
    steps = [ScriptedReply(text="glad to help")]
    async with open_workspace(project, server, steps) as opened:
        ws = opened.workspace
        end = await ws.send("ok")
        assert end.answer == "glad to help"
        end = await ws.send("apply: the docs")
        assert end.reason == "error"
        assert end.answer.startswith("ERR_NO_PLAN: there is no stored plan to apply")
        reply = await run_operation(ws, parse_command("/apply"))
        assert reply.kind == "error" and reply.text.startswith("ERR_NO_PLAN")
        report = await ws.apply_plan()
        assert report.status == "no_plan" and report.codes == ("ERR_NO_PLAN",)


async def test_slash_apply_with_a_note_and_an_invalid_plan(
    project: Path, server: ModelStubServer
) -> None:
    decider = RecordingDecider({ConfirmChange: "apply"})
    async with open_workspace(project, server, decider=decider) as opened:
        ws = opened.workspace
        before = snapshot(project)
        ws.store_plan(record([Action("UPDATE_FILE", PRICING, "x = 1\n")]))
        reply = await run_operation(ws, parse_command("/apply careful now"))
        assert reply.kind == "error"
        assert reply.text.splitlines() == [
            "The plan was not applied; nothing was written:",
            "ERR_UPDATE_WITHOUT_BASE: action 1 (UPDATE_FILE shop/pricing.py): the file was not "
            "read while planning, so its new content would be written blind; read it "
            "(context_requests: read_file) and plan again",
        ]
        assert decider.of(ConfirmChange) == [] and snapshot(project) == before
        assert ws.stored_plan() is not None  # kept: a new plan replaces it
        ws.store_plan(record([Action("CREATE_FILE", "n.txt", "n")], summary="add n"))
        reply = await run_operation(ws, parse_command("/apply careful now"))
        assert reply.kind == "success", reply.text
        assert "plan: add n (careful now)" in reply.text
        assert (project / "n.txt").read_text() == "n\n"


async def test_no_changes_plan_writes_nothing(project: Path, server: ModelStubServer) -> None:
    async with open_workspace(project, server) as opened:
        ws = opened.workspace
        ws.store_plan(record([], summary="NO_CHANGES: the code already does that"))
        report = await ws.apply_plan()
        assert report.status == "no_changes"
        assert report.message == "Nothing to apply. NO_CHANGES: the code already does that"


async def test_the_user_rejects_some_files_and_the_rest_applies_as_one_undo_step(
    project: Path, server: ModelStubServer
) -> None:
    decider = RecordingDecider(
        {ConfirmChange: Answer("apply", rejected=frozenset({"README.md", "notes.txt"}))}
    )
    async with open_workspace(project, server, decider=decider) as opened:
        ws = opened.workspace
        plan = rename_plan(project)
        before = snapshot(project)
        report = await ws.apply_plan(plan)
        assert report.applied, report.message
        assert report.files == (PRICING, "docs/api/pricing.md")
        assert (project / "README.md").exists()
        assert (project / "notes.txt").read_bytes() == b"first\r\nsecond\r\n"
        assert "rejected by the user: README.md, notes.txt" in report.message
        assert (await ws.undo()).done
        assert snapshot(project) == before


async def test_rejected_whole_and_headless_without_auto_apply_write_nothing(
    project: Path, server: ModelStubServer
) -> None:
    decider = RecordingDecider({ConfirmChange: "reject"})
    async with open_workspace(project, server, decider=decider) as opened:
        plan = rename_plan(project)
        before = snapshot(project)
        report = await opened.workspace.apply_plan(plan)
        assert report.status == "rejected" and report.reason == "refused"
        assert snapshot(project) == before
    options = WorkspaceOptions(new_session=True, unattended=True)
    async with open_workspace(project, server, options=options) as opened:
        report = await opened.workspace.apply_plan(rename_plan(project))
        assert report.status == "refused"
        assert "--auto-apply" in report.message and snapshot(project) == before
    options = WorkspaceOptions(new_session=True, unattended=True, auto_apply=True)
    async with open_workspace(project, server, options=options) as opened:
        report = await opened.workspace.apply_plan(rename_plan(project))
        assert report.applied and not (project / "README.md").exists()


async def test_a_file_changed_while_the_user_looked_is_not_overwritten(
    project: Path, server: ModelStubServer
) -> None:
    class EditsMeanwhile(RecordingDecider):
        async def decide(self, question: Question) -> Answer | str:
            (project / "notes.txt").write_text("someone else\n")
            return "apply"

    async with open_workspace(project, server, decider=EditsMeanwhile()) as opened:
        report = await opened.workspace.apply_plan(rename_plan(project))
        assert report.status == "stale" and report.codes == ("ERR_STALE_BASE",)
        assert report.message.startswith("ERR_STALE_BASE: notes.txt changed on disk while")
        assert (project / "README.md").exists()
        assert "apply_discount" in (project / PRICING).read_text()


async def test_a_failed_write_puts_every_file_back(project: Path, server: ModelStubServer) -> None:
    decider = RecordingDecider({ConfirmChange: "apply"})
    async with open_workspace(project, server, decider=decider) as opened:
        ws = opened.workspace
        plan = rename_plan(project)
        before = snapshot(project)
        (project / "notes.txt").chmod(0o444)  # the third write fails
        try:
            report = await ws.apply_plan(plan)
        finally:
            (project / "notes.txt").chmod(0o644)
        assert report.status == "failed"
        assert "notes.txt is read-only" in report.message
        assert snapshot(project) == before
        assert ws.ctx.store.list_undo(ws.session_id) == []  # no phantom undo entry


async def test_commands_are_offered_one_by_one_after_the_change(
    project: Path, server: ModelStubServer
) -> None:
    class Answers(RecordingDecider):
        async def decide(self, question: Question) -> Answer | str:
            self.asked.append(question)
            assert isinstance(question, ConfirmChange)
            command = question.request.command
            return "reject" if command == "echo second" else "apply"

    decider = Answers()
    async with open_workspace(project, server, decider=decider) as opened:
        ws = opened.workspace
        plan = rename_plan(project, commands=("echo first", "echo second"))
        report = await ws.apply_plan(plan)
        assert report.applied, report.message
        asked = [q.request.command for q in decider.of(ConfirmChange)]
        assert asked == [None, "echo first", "echo second"]
        first, second = report.commands
        assert first.ran and first.success and "first" in first.output
        assert not second.ran and second.output == "skipped by the user"
        # a plan without commands: the remembered ones are offered
        ws.store_plan(record([Action("CREATE_FILE", "m.txt", "m")]))
        report = await ws.apply_plan(default_commands=("echo remembered",))
        assert [c.command for c in report.commands] == ["echo remembered"]
        assert report.commands[0].ran and "remembered" in report.commands[0].output


async def test_opening_completes_a_plan_a_kill_cut_short(
    project: Path, server: ModelStubServer
) -> None:
    """Pending all-or-nothing entries of a dead writer, the change on disk in part: opening
    the workspace writes the rest, says so, and one undo still reverts all of it."""
    import subprocess
    import sys
    import time

    from ipuaro.domain import UndoEntry
    from ipuaro.store.factory import open_store
    from tests.core.conftest import config_for

    dead = int(
        subprocess.run(
            [sys.executable, "-c", "import os; print(os.getpid())"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    async with open_workspace(project, server, index=False) as opened:
        killed = opened.workspace.session_id  # the session the killed apply ran in
    (project / "a.txt").write_text("a new\n")  # renamed into place before the kill
    (project / "b.txt").write_text("b old\n")  # never reached
    store = open_store(config_for(project, server), project.resolve())
    try:
        store.set_config("applying", {"session": killed, "group": "g1"})
        for name, kind in (("made", "dir"), ("a.txt", "file"), ("b.txt", "file")):
            store.push_undo(
                killed,
                UndoEntry(
                    id=f"id-{name}",
                    timestamp=time.time(),
                    file_path=name,
                    previous_content=None if kind == "dir" else [f"{name[0]} old\n"],
                    new_content=[] if kind == "dir" else [f"{name[0]} new\n"],
                    description="plan: two files",
                    group="g1",
                    group_size=3,
                    pending=dead,
                    is_dir=kind == "dir",
                    all_or_nothing=True,
                ),
                10,
            )
    finally:
        store.close()
    async with open_workspace(project, server) as opened:
        ws = opened.workspace
        assert any(w.startswith("completed the change 'plan: two files'") for w in ws.warnings)
        assert (project / "b.txt").read_text() == "b new\n"
        assert (project / "made").is_dir()
        assert ws.session_id != killed  # found in whichever session it ran
        assert [e.pending for e in ws.ctx.store.list_undo(killed)] == [None, None, None]
        assert ws.ctx.store.get_config("applying") is None
        ws.load_session(killed)
        assert (await ws.undo()).done
        assert (project / "a.txt").read_text() == "a old\n"
        assert (project / "b.txt").read_text() == "b old\n"
        assert not (project / "made").exists()


async def test_request_two_context_rounds_plan_ok_one_change_one_undo(
    project: Path, server: ModelStubServer
) -> None:
    """The whole story with a scripted model: a plan request, two rounds of context (a file
    and a search, then the test file), the plan shown and stored, "ok", ONE confirmation of a
    two-file diff, one transaction, and one undo that restores every file byte for byte."""
    import json

    pricing = (project / PRICING).read_text()
    checks = (project / "tests/cart_checks.py").read_text()
    final = {
        "mode": "fix-plan",
        "summary": "Lower the discount cap from 50 % to 40 % and fix its test",
        "questions": [],
        "context_requests": [],
        "plan": [{"step": "Change MAX_DISCOUNT_PERCENT", "details": "40 in shop/pricing.py"}],
        "proposed_changes": {
            "actions": [
                {
                    "kind": "UPDATE_FILE",
                    "path": PRICING,
                    "content": pricing.replace("= 50", "= 40"),
                },
                {
                    "kind": "UPDATE_FILE",
                    "path": "tests/cart_checks.py",
                    "content": checks.replace("500", "600"),
                },
            ],
            "commands_to_run": [],
        },
        "risks": [],
        "memory_patch": {},
    }
    rounds = [
        {
            "mode": "fix-plan",
            "summary": "Need the pricing code first.",
            "context_requests": [
                {"type": "read_file", "path": PRICING},
                {"type": "search", "query": "apply_discount"},
            ],
        },
        {
            "mode": "fix-plan",
            "summary": "Need the test.",
            "context_requests": [{"type": "read_file", "path": "tests/cart_checks.py"}],
        },
    ]
    steps = [ScriptedReply(text=json.dumps(document)) for document in [*rounds, final]]
    decider = RecordingDecider({ConfirmChange: "apply"})
    async with open_workspace(project, server, steps, decider=decider) as opened:
        ws = opened.workspace
        before = snapshot(project)
        planned = await ws.send("plan: lower the discount cap to 40 %")
        assert planned.reason == "done", planned.detail
        assert len(server.chat_requests()) == 3  # two context rounds, then the plan
        assert "Lower the discount cap" in planned.answer
        assert snapshot(project) == before  # planning writes nothing
        record = ws.stored_plan()
        assert record is not None and set(record.read_files) >= {PRICING, "tests/cart_checks.py"}
        applied = await ws.send("ok")
        assert applied.reason == "done", applied.answer
        question, *commands = decider.of(ConfirmChange)
        assert all(q.request.kind == "command" for q in commands)
        assert [f.path for f in question.request.files] == [PRICING, "tests/cart_checks.py"]
        assert "MAX_DISCOUNT_PERCENT = 40" in (project / PRICING).read_text()
        assert applied.changes == (PRICING, "tests/cart_checks.py")
        assert (await ws.undo()).done
        assert snapshot(project) == before
        assert not (await ws.undo()).done


async def test_a_plan_without_commands_offers_the_remembered_test_command(
    project: Path, server: ModelStubServer
) -> None:
    decider = RecordingDecider(answers={ConfirmChange: "apply"})
    async with open_workspace(project, server, decider=decider) as opened:
        ws = opened.workspace
        await ws.unset_memory("project.default_lint_command")
        await ws.set_memory("project.default_test_command", "echo remembered-tests")
        ws.store_plan(record([Action("CREATE_FILE", "m.txt", "m")]))
        report = await ws.apply_plan()
    assert report.applied, report.message
    assert [c.command for c in report.commands] == ["echo remembered-tests"]
    assert report.commands[0].ran and "remembered-tests" in report.commands[0].output
